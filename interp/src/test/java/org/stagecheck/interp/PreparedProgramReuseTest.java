package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * A prepared program keeps the storage of its stage values from run to run (a buffer arena) and
 * the regions it resolved: no run may see anything of an earlier one. Each run of a reused
 * prepared program, on new inputs and interleaved with another program's runs on the same
 * interpreter, equals bit for bit a run of a fresh interpreter that keeps every stage value (a
 * traced run, which uses no arena), outputs, state and faults alike.
 */
class PreparedProgramReuseTest {

    @SeededProperty(tries = 40)
    void reusedRunsEqualFreshRunsBitForBit(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Program p = RandomPrograms.generate(seed, new GenOptions(2, 2, 2, rnd.nextInt(1, 100), 8));
        Program q = RandomPrograms.generate(seed ^ 0x5DEECE66DL, new GenOptions(2, 2, 2, rnd.nextInt(1, 100), 8));
        int threads = 1 + rnd.nextInt(3);
        Interpreter shared = new Interpreter(RunOptions.defaults().withThreads(threads));
        PreparedProgram pp = shared.prepare(p);
        PreparedProgram pq = shared.prepare(q);
        for (int round = 0; round < 4; round++) {
            long inputs = seed * 31 + round;
            // p and q alternate on one interpreter, each on new inputs and parameters every round
            assertSameRun(pp.run(GeneratedProgramsTest.bindings(p, inputs), GeneratedProgramsTest.params(p, inputs)),
                    fresh(p, inputs), "p, round " + round);
            assertSameRun(pq.run(GeneratedProgramsTest.bindings(q, inputs), GeneratedProgramsTest.params(q, inputs)),
                    fresh(q, inputs), "q, round " + round);
            // Interpreter.run reuses its last prepared program for the same program object
            assertSameRun(shared.run(p, GeneratedProgramsTest.bindings(p, inputs + 7), GeneratedProgramsTest.params(p, inputs + 7)),
                    fresh(p, inputs + 7), "p through Interpreter.run, round " + round);
        }
    }

    /** Two threads run one prepared program at once: the arena is lent to one run, the other makes its own. */
    @Test
    void concurrentRunsOfOnePreparedProgramEqualFreshRuns() throws Exception {
        Program p = RandomPrograms.generate(11, new GenOptions(2, 2, 2, 80, 8));
        PreparedProgram pp = new Interpreter(RunOptions.defaults().withThreads(1)).prepare(p);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<RunResult>> runs = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                long inputs = i;
                runs.add(pool.submit(() -> pp.run(GeneratedProgramsTest.bindings(p, inputs), GeneratedProgramsTest.params(p, inputs))));
            }
            for (int i = 0; i < runs.size(); i++) {
                assertSameRun(runs.get(i).get(), fresh(p, i), "concurrent run " + i);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * An output tensor that a run stores only where a parameter says starts zeroed in every run:
     * the second run, storing elsewhere, must not see the first run's row, and a spill that no
     * stage wrote reads as +0 however many products ran before in the same arena.
     */
    @Test
    void aRunNeverSeesTheValuesOfTheRunBefore() {
        Fixtures f = Fixtures.program()
                .param("row", 0, 3, 0)
                .tensor("x", TensorRole.INPUT, 0, Tensor.fromFloats(DType.F32, Shape.of(1, 4), new float[] {1, 2, 3, 4}))
                .tensor("w", TensorRole.WEIGHT, 0, Tensor.fromFloats(DType.F32, Shape.of(4, 4), new float[] {
                        1, 0, 0, 0, 0, 2, 0, 0, 0, 0, 3, 0, 0, 0, 0, 4}))
                .output("y", DType.F32, 4, 4)
                .buffer("X", DType.F32, 1, 4).buffer("W", DType.F32, 4, 4).buffer("Y", DType.F32, 1, 4)
                .buffer("S", DType.F32, 1, 4)
                .loadAll("lx", "x", "X", Fixtures.CORE).loadAll("lw", "w", "W", Fixtures.CORE)
                .compute("mm", List.of("X", "W"), "Y", new ComputeOp.MatMul(false, false, null, "S"))
                .stage("st", List.of("Y"), List.of(), new StageKind.Store("y",
                        new AccessPattern.Block(List.of(Offset.param("row", 1, 0), Offset.constant(0)), Shape.of(1, 4)), 1, 1));
        Program p = f.build();
        PreparedProgram pp = new Interpreter(RunOptions.defaults().withThreads(1)).prepare(p);
        RunResult first = pp.run(f.bound(), Map.of("row", 0L));
        RunResult second = pp.run(f.bound(), Map.of("row", 2L));
        assertThat(first.tensor("y").toFloats()).containsExactly(1, 4, 9, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
        assertThat(second.tensor("y").toFloats()).containsExactly(0, 0, 0, 0, 0, 0, 0, 0, 1, 4, 9, 16, 0, 0, 0, 0);
        // the first run's result is not changed by the second run
        assertThat(first.tensor("y").toFloats()).containsExactly(1, 4, 9, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    private static RunResult fresh(Program p, long inputs) {
        return new Interpreter(RunOptions.defaults().withThreads(1).withTrace(true))
                .run(p, GeneratedProgramsTest.bindings(p, inputs), GeneratedProgramsTest.params(p, inputs));
    }

    static void assertSameRun(RunResult got, RunResult expected, String what) {
        assertThat(got.faults()).extracting(Diagnostic::code, Diagnostic::message)
                .as(what + ": faults").isEqualTo(expected.faults().stream().map(d -> org.assertj.core.groups.Tuple.tuple(d.code(), d.message())).toList());
        assertThat(got.tensors().keySet()).as(what + ": tensors").isEqualTo(expected.tensors().keySet());
        expected.tensors().forEach((name, t) ->
                assertThat(got.tensor(name).bitEquals(t)).as("%s: tensor %s bit for bit", what, name).isTrue());
    }
}
