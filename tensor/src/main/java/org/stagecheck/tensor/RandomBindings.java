package org.stagecheck.tensor;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * Deterministic values for a program's bound tensors (role input, weight or state), for
 * {@code stagecheck run --random SEED} and for property tests of compiler passes: a tensor's value
 * depends only on the seed and the tensor's name, so two runs, two machines, and a program and its
 * transformed twin (same tensor names) bind the same bytes. Floating tensors draw uniformly from
 * [-1, 1) (then rounded to the dtype); i32 tensors draw uniformly from [0, {@value #INT_BOUND}),
 * small enough to index the tables of the examples (an index tensor into a smaller table gives an
 * INDEX_OUT_OF_RANGE fault, a data fault, not a crash).
 */
public final class RandomBindings {
    /** Exclusive upper bound of generated i32 values. */
    public static final int INT_BOUND = 16;

    private RandomBindings() {}

    /** A value for every tensor of {@code program} whose role is bound before a run. */
    public static Map<String, Tensor> forProgram(Program program, long seed) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (TensorDecl t : program.tensors()) {
            if (t.role().isBoundBeforeRun()) {
                out.put(t.name(), of(t, seed));
            }
        }
        return out;
    }

    /** The value of tensor {@code t} for {@code seed}. */
    public static Tensor of(TensorDecl t, long seed) {
        long h = seed;
        for (byte b : t.name().getBytes(StandardCharsets.UTF_8)) {
            h = h * 1_000_003L + b;
        }
        SplittableRandom r = new SplittableRandom(h);
        int n = Math.toIntExact(t.shape().elementCount());
        if (t.dtype().isInteger()) {
            int[] v = new int[n];
            for (int i = 0; i < n; i++) {
                v[i] = r.nextInt(INT_BOUND);
            }
            return Tensor.fromInts(t.shape(), v);
        }
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) (r.nextDouble() * 2 - 1);
        }
        return Tensor.fromFloats(t.dtype(), t.shape(), v);
    }
}
