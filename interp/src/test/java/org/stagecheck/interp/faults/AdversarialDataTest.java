package org.stagecheck.interp.faults;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import java.util.SplittableRandom;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * A review of the evaluator, "faults, never exceptions": the spec generator's programs (every kind,
 * pattern and op) bound to hostile data - NaN, infinities, f32 extremes, subnormals, -0, and i32
 * values that lie outside every table (so index buffers and buffer offsets go out of range) - end
 * in a RunResult whose faults are only the data-dependent ones, never INTERNAL; and the runs on 1
 * and 3 threads are bit-identical, faults included (docs/semantics.md, "Parallelism").
 */
class AdversarialDataTest {
    /** What hostile data may legitimately cause in a valid program. */
    private static final Set<String> DATA_FAULTS = Set.of("DIV_BY_ZERO", "INDEX_OUT_OF_RANGE", "BLOCK_OUT_OF_BOUNDS",
            "OFFSET_OVERFLOW", "NON_FINITE");

    private static final float[] HOSTILE_FLOATS = {Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
            Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, -0.0f, 0.0f, 65504f, 65520f, 3.3895314e38f, 1e-40f,
            Float.intBitsToFloat(0x7FC00001), Float.intBitsToFloat(0xFF800001)};
    private static final int[] HOSTILE_INTS = {0, 1, -1, 2, 7, 8, 9, Integer.MIN_VALUE, Integer.MAX_VALUE, -8, 1 << 20};

    static Map<String, Tensor> hostile(Program p, long seed) {
        Random r = new Random(seed);
        Map<String, Tensor> out = new HashMap<>();
        for (TensorDecl t : p.tensors()) {
            if (!t.role().isBoundBeforeRun()) {
                continue;
            }
            int n = (int) t.shape().elementCount();
            if (t.dtype() == DType.I32) {
                int[] v = new int[n];
                for (int i = 0; i < n; i++) {
                    v[i] = r.nextInt(12) == 0 ? HOSTILE_INTS[r.nextInt(HOSTILE_INTS.length)] : r.nextInt(4);
                }
                out.put(t.name(), Tensor.fromInts(t.shape(), v));
            } else {
                float[] v = new float[n];
                for (int i = 0; i < n; i++) {
                    v[i] = r.nextInt(4) == 0 ? HOSTILE_FLOATS[r.nextInt(HOSTILE_FLOATS.length)] : (float) (r.nextGaussian() * 1e3);
                }
                out.put(t.name(), Tensor.fromFloats(t.dtype(), t.shape(), v));
            }
        }
        return out;
    }

    static Map<String, Long> params(Program p, long seed) {
        Random r = new Random(seed);
        Map<String, Long> out = new HashMap<>();
        for (Param prm : p.params()) {
            out.put(prm.name(), r.nextBoolean() ? (r.nextBoolean() ? prm.min() : prm.max())
                    : prm.min() + (long) (r.nextDouble() * (prm.max() - prm.min() + 1)));
        }
        return out;
    }

    @SeededProperty(tries = 100)
    void hostileDataGivesOnlyDataFaultsAndIsThreadCountIndependent(long seed) {
        SplittableRandom draw = new SplittableRandom(seed);
        int stages = draw.nextInt(0, 101);
        boolean stopAtNonFinite = draw.nextBoolean();
        Program p = RandomPrograms.generate(seed, new GenOptions(3, 2, 2, stages, 6));
        Map<String, Tensor> bound = hostile(p, seed);
        Map<String, Long> params = params(p, seed);
        RunOptions base = RunOptions.defaults().withTrace(true).withStopAtNonFinite(stopAtNonFinite);
        RunResult one = new Interpreter(base.withThreads(1)).run(p, bound, params);
        assertThat(one.faults()).extracting(Diagnostic::code).allMatch(DATA_FAULTS::contains);
        RunResult three = new Interpreter(base.withThreads(3)).run(p, bound, params);
        assertThat(three.faults()).isEqualTo(one.faults());
        assertThat(three.stoppedAtStage()).isEqualTo(one.stoppedAtStage());
        assertThat(three.trace().keySet()).containsExactlyElementsOf(one.trace().keySet());
        one.trace().forEach((id, outs) -> {
            for (int port = 0; port < outs.size(); port++) {
                assertThat(outs.get(port).bitEquals(three.trace().get(id).get(port))).as("stage %s port %d", id, port).isTrue();
            }
        });
        one.tensors().forEach((name, t) -> assertThat(t.bitEquals(three.tensor(name))).as(name).isTrue());
        RunResult f64 = new Interpreter(base.withPrecision(Precision.F64)).run(p, bound, params);
        assertThat(f64.faults()).extracting(Diagnostic::code).allMatch(DATA_FAULTS::contains);
    }
}
