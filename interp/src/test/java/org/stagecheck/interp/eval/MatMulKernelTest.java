package org.stagecheck.interp.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * Both inner loops of the matmul kernel (Vector API and plain Java) equal the written chain
 * {@code acc = fma(a, b, acc)}, k ascending, bit for bit, on random shapes and thread counts.
 */
class MatMulKernelTest {

    /** The floating dtypes a matmul operand may have (every DType but I32). */
    private static final DType[] FLOATING = java.util.Arrays.stream(DType.values()).filter(DType::isFloating).toArray(DType[]::new);

    @SeededProperty(tries = 60)
    void vectorAndScalarLoopsBothEqualTheChain(long seed) {
        SplittableRandom draw = new SplittableRandom(seed);
        int m = Draw.between(draw, 1, 70);
        int k = Draw.between(draw, 1, 600);
        int n = Draw.between(draw, 1, 300);
        boolean transposedB = draw.nextBoolean();
        DType dtype = Draw.oneOf(draw, FLOATING);
        int threads = Draw.between(draw, 1, 3);
        Random r = new Random(seed);
        float[] a = new float[m * k];
        float[] bv = new float[k * n];
        float[] init = new float[m * n];
        for (int i = 0; i < a.length; i++) a[i] = (float) r.nextGaussian();
        for (int i = 0; i < bv.length; i++) bv[i] = (float) r.nextGaussian();
        for (int i = 0; i < init.length; i++) init[i] = (float) r.nextGaussian();
        Tensor b = Tensor.fromFloats(dtype, transposedB ? Shape.of(n, k) : Shape.of(k, n), bv);
        float[] expect = init.clone();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float c = expect[i * n + j];
                for (int kk = 0; kk < k; kk++) {
                    c = Math.fma(a[i * k + kk], b.getFloat(transposedB ? (long) j * k + kk : (long) kk * n + j), c);
                }
                expect[i * n + j] = c;
            }
        }
        try (Parallel par = new Parallel(threads)) {
            for (boolean vector : new boolean[] {true, false}) {
                float[] acc = init.clone();
                MatMulKernel.multiply(a, b, 0, transposedB, acc, m, k, n, par, vector);
                for (int e = 0; e < acc.length; e++) {
                    assertThat(Float.floatToRawIntBits(acc[e])).as("vector=%s element %d", vector, e)
                            .isEqualTo(Float.floatToRawIntBits(expect[e]));
                }
            }
        }
    }

    @Test
    void thisBuildRunsTheVectorLoop() {
        assertThat(MatMulKernel.implementation()).startsWith("vector");
    }
}
