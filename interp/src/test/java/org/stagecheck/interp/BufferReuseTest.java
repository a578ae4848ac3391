package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

import org.stagecheck.backend.RunResult;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;
import org.junit.jupiter.api.Tag;

/**
 * Programs whose core buffers are reused as a compiler's allocator reuses them
 * ({@link BufferReuse}): one buffer holds value after value, Slice windows of a buffer outlive
 * the buffer's value, stages write their input buffer. A prepared program's untraced runs (which
 * keep stage values in an arena, leave Slice windows and Load blocks in place, and may update
 * donated state in place) equal bit for bit a fresh traced run (which copies every value), run
 * after run on new inputs, in f32 and float64 mode, with 1 to 3 threads; the caller's tensors
 * never change unless donated; and the reused program computes what the original does.
 */
@Tag("slow")
class BufferReuseTest {

    @SeededProperty(tries = 60)
    void reusedBuffersRunAsAFreshTracedRunDoes(long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        Program original = RandomPrograms.generate(seed, new GenOptions(2, 2, 2, rnd.nextInt(40, 160), 8));
        Program p = BufferReuse.coalesce(original);
        assertThat(BufferReuse.merged(original, p)).as("the coalescing merged buffers").isPositive();
        int threads = 1 + rnd.nextInt(3);
        for (Precision precision : Precision.values()) {
            RunOptions untraced = RunOptions.defaults().withThreads(threads).withPrecision(precision);
            PreparedProgram prepared = new Interpreter(untraced).prepare(p);
            PreparedProgram stopping = new Interpreter(untraced.withStopAtNonFinite(true)).prepare(p);
            for (int round = 0; round < 3; round++) {
                long inputs = seed * 131 + round;
                String what = precision + ", round " + round + ", threads " + threads;
                RunResult expected = fresh(p, inputs, precision);
                if (round == 0) {
                    RunResult unreused = fresh(original, inputs, precision);
                    PreparedProgramReuseTest.assertSameRun(expected, unreused, what + ": the reused program computes what the original does");
                }
                Map<String, Tensor> bound = GeneratedProgramsTest.bindings(p, inputs);
                Map<String, Tensor> before = copies(bound);
                PreparedProgramReuseTest.assertSameRun(prepared.run(bound, GeneratedProgramsTest.params(p, inputs)), expected, what);
                assertUnchanged(bound, before, what);
                if (!expected.faults().isEmpty()) {
                    continue; // a NaN stop below would stop elsewhere
                }
                RunResult stopped = stopping.run(bound, GeneratedProgramsTest.params(p, inputs));
                if (stopped.faults().isEmpty()) {
                    PreparedProgramReuseTest.assertSameRun(stopped, expected, what + ", stopping at non-finite values");
                }
                assertUnchanged(bound, before, what + ", stopping at non-finite values");
                // every state and output tensor donated: the same values, other tensors untouched
                Map<String, Tensor> donating = new HashMap<>(bound);
                Set<String> donated = new HashSet<>();
                for (TensorDecl t : p.tensors()) {
                    if (t.role() == TensorRole.STATE || t.role() == TensorRole.OUTPUT) {
                        donating.put(t.name(), donating.containsKey(t.name()) ? donating.get(t.name()).copy()
                                : (precision == Precision.F64 && t.dtype().isFloating() ? Tensor.zerosFloat64(t.dtype(), t.shape())
                                        : Tensor.zeros(t.dtype(), t.shape())));
                        donated.add(t.name());
                    }
                }
                PreparedProgramReuseTest.assertSameRun(prepared.run(donating, GeneratedProgramsTest.params(p, inputs), donated),
                        expected, what + ", state and outputs donated");
                assertUnchanged(bound, before, what + ", donated copies");
            }
        }
    }

    private static RunResult fresh(Program p, long inputs, Precision precision) {
        return new Interpreter(RunOptions.defaults().withThreads(1).withTrace(true).withPrecision(precision))
                .run(p, GeneratedProgramsTest.bindings(p, inputs), GeneratedProgramsTest.params(p, inputs));
    }

    private static Map<String, Tensor> copies(Map<String, Tensor> bound) {
        Map<String, Tensor> out = new HashMap<>();
        bound.forEach((k, v) -> out.put(k, v.copy()));
        return out;
    }

    private static void assertUnchanged(Map<String, Tensor> bound, Map<String, Tensor> before, String what) {
        bound.forEach((k, v) -> assertThat(v.bitEquals(before.get(k))).as("%s: the caller's tensor %s is unchanged", what, k).isTrue());
    }
}
