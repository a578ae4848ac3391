package org.stagecheck.interp.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;

import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * The vector kernel, which now takes products of every size (a few multiply-adds included), gives
 * each element the chain {@code acc = fma(a, b, acc)} in k order on the values where a fused and
 * an unfused multiply-add, or two summation orders, differ most: signed zeros, subnormals, the
 * largest finite values (whose products overflow), infinities and NaNs, mixed with ordinary ones.
 * Every element equals the scalar chain bit for bit (a NaN: any NaN, as the evaluator stores one
 * canonical NaN), with 1 and 3 threads, B plain and transposed, in place in a wider array or not.
 */
class MatMulKernelSpecialValuesTest {
    private static final float[] SPECIAL = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, -Float.MIN_NORMAL,
        Float.MAX_VALUE, -Float.MAX_VALUE, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 1f, -1f,
        0x1p-140f, 0x1p100f, -0x1p100f, 1 + 0x1p-23f, 1 - 0x1p-24f};

    private static float draw(SplittableRandom r) {
        return r.nextInt(3) == 0 ? (float) (r.nextGaussian() * Math.pow(2, r.nextInt(-30, 30))) : SPECIAL[r.nextInt(SPECIAL.length)];
    }

    @SeededProperty(tries = 80)
    void theVectorKernelEqualsTheChainOnSpecialValues(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int m = r.nextInt(1, 9);
        int k = r.nextInt(1, 40);
        int n = r.nextInt(1, 40);
        boolean transposedB = r.nextBoolean();
        DType dtype = r.nextInt(3) == 0 ? DType.BF16 : DType.F32;
        int pad = r.nextInt(0, 5); // B as a block of a wider array: its rows are ld apart
        int rows = transposedB ? n : k;
        int cols = transposedB ? k : n;
        int ld = cols + pad;
        float[] a = new float[m * k];
        float[] wide = new float[rows * ld];
        float[] init = new float[m * n];
        for (int i = 0; i < a.length; i++) a[i] = draw(r);
        for (int i = 0; i < wide.length; i++) wide[i] = draw(r);
        for (int i = 0; i < init.length; i++) init[i] = draw(r);
        Tensor b = Tensor.fromFloats(dtype, Shape.of(rows, ld), wide);
        float[] expect = init.clone();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float c = expect[i * n + j];
                for (int kk = 0; kk < k; kk++) {
                    c = Math.fma(a[i * k + kk], b.getFloat(transposedB ? (long) j * ld + kk : (long) kk * ld + j), c);
                }
                expect[i * n + j] = c;
            }
        }
        for (int threads : new int[] {1, 3}) {
            try (Parallel par = new Parallel(threads)) {
                for (boolean vector : new boolean[] {true, false}) {
                    float[] acc = init.clone();
                    MatMulKernel.multiply(a, b, 0, ld, transposedB, acc, m, k, n, par, vector);
                    for (int e = 0; e < acc.length; e++) {
                        String what = String.format("seed %d, %dx%dx%d %s%s ld %d, vector %s, threads %d, element %d", seed, m, k, n,
                                dtype, transposedB ? " transposed" : "", ld, vector, threads, e);
                        if (Float.isNaN(expect[e])) {
                            assertThat(acc[e]).as(what).isNaN();
                        } else {
                            assertThat(Float.floatToRawIntBits(acc[e])).as(what).isEqualTo(Float.floatToRawIntBits(expect[e]));
                        }
                    }
                }
            }
        }
    }
}
