package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * Generated programs (the spec generator: every stage kind, access pattern and compute op) in
 * host emulation against the reference, traced, on random bindings and random parameters in
 * range. The programs are compiled {@link #PER_COMPILE} to one source to keep CI time down.
 * A failure prints the seed: {@code RandomPrograms.generate(seed, options)} rebuilds the program.
 */
@Tag("slow")
class GeneratedDifferentialTest {
    static final int PROGRAMS = 240;
    static final int PER_COMPILE = 80;

    static GenOptions options(long seed) {
        // mostly one round of every fragment on 2 chips of 2x2 cores; every tenth on 3 chips of 3x2, longer
        return seed % 10 == 0 ? new GenOptions(3, 3, 2, 60, 8) : GenOptions.small();
    }

    @TestFactory
    Stream<DynamicContainer> generatedProgramsAgreeWithTheReference() {
        return IntStream.range(0, PROGRAMS / PER_COMPILE).mapToObj(batch -> {
            long first = 1000L + (long) batch * PER_COMPILE;
            return DynamicContainer.dynamicContainer("seeds " + first + ".." + (first + PER_COMPILE - 1), Stream.of(
                    DynamicTest.dynamicTest("batch of " + PER_COMPILE, () -> checkBatch(first))));
        });
    }

    /** The random bindings with every i32 tensor filled with {@code value}. */
    static Map<String, Tensor> ints(Program p, long seed, int value) {
        Map<String, Tensor> out = new LinkedHashMap<>(RandomBindings.forProgram(p, seed));
        for (var t : p.tensors()) {
            if (t.dtype().isInteger() && out.containsKey(t.name())) {
                int[] v = new int[(int) t.shape().elementCount()];
                java.util.Arrays.fill(v, value);
                out.put(t.name(), Tensor.fromInts(t.shape(), v));
            }
        }
        return out;
    }

    private static void checkBatch(long first) throws Exception {
        List<Program> programs = new ArrayList<>();
        for (int i = 0; i < PER_COMPILE; i++) {
            programs.add(RandomPrograms.generate(first + i, options(first + i)));
        }
        List<String> failures = new ArrayList<>();
        int faulted = 0;
        try (CudaModule module = new CudaBackend(TestBackends.emulation().withHostOpt(0)).openAll(programs)) {
            for (int i = 0; i < programs.size(); i++) {
                long seed = first + i;
                Program p = programs.get(i);
                SplittableRandom rnd = new SplittableRandom(seed);
                Map<String, Long> params = new LinkedHashMap<>();
                for (Param prm : p.params()) {
                    params.put(prm.name(), prm.min() + rnd.nextLong(prm.max() - prm.min() + 1));
                }
                // random i32 inputs often index past a table or divide by zero: the reference faults, and
                // the fault must agree; then the program is run again with i32 inputs that run through
                // (all ones, else all zeros), so that its outputs are compared too
                List<Map<String, Tensor>> attempts = List.of(RandomBindings.forProgram(p, seed), ints(p, seed, 1), ints(p, seed, 0));
                boolean ran = false;
                for (int a = 0; a < attempts.size() && !ran; a++) {
                    Map<String, Tensor> bound = attempts.get(a);
                    RunResult ref = new Interpreter(RunOptions.defaults().withThreads(1)).run(p, bound, params, true);
                    ran = ref.ok();
                    if (!ran && a > 0 && a < attempts.size() - 1) {
                        continue;
                    }
                    RunResult act = CudaSession.of(module, i).step(bound, params, true);
                    List<String> diff = Agreement.compare(p, ref, act);
                    if (!diff.isEmpty()) {
                        failures.add("seed " + seed + " bindings " + a + ": " + diff.getFirst());
                    }
                }
                if (!ran) {
                    faulted++;
                }
            }
        }
        assertThat(failures).as("programs disagreeing with the reference").isEmpty();
        // nearly every generated program runs to the end on one of the bindings: outputs are compared, not just faults
        assertThat(faulted).isLessThan(PER_COMPILE / 10);
    }
}
