package org.stagecheck.interp.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
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
@Tag("slow")
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

    /**
     * Shapes that reach every tail of the row-streaming (matvec) kernel: K not a multiple of the 8
     * rows streamed per pass (1, 3, 5, 7, 9, 17, 513), N below, at and just past a multiple of the lane
     * count, one and two column ranges per thread, 1 to 3 rows (2 and 3 rows take k-chunks),
     * f32 read in place and bf16 widened in registers, with B a block of a wider matrix (its rows
     * {@code ld > N} apart, from an offset) as a Load's view gives it.
     */
    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> streamingShapes() {
        java.util.List<org.junit.jupiter.params.provider.Arguments> cases = new java.util.ArrayList<>();
        for (int m : new int[] {1, 2, 3}) {
            for (int k : new int[] {1, 3, 5, 7, 8, 9, 17, 513}) {
                for (int n : new int[] {1, 7, 8, 9, 15, 16, 17, 33, 1000, 2050}) {
                    for (DType dtype : new DType[] {DType.F32, DType.BF16}) {
                        cases.add(org.junit.jupiter.params.provider.Arguments.of(m, k, n, dtype));
                    }
                }
            }
        }
        return cases.stream();
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "{0}x{1}x{2} {3}")
    @org.junit.jupiter.params.provider.MethodSource("streamingShapes")
    void rowStreamingEqualsTheChainOnEveryTail(int m, int k, int n, DType dtype) {
        Random r = new Random(31L * k + n + 7L * m);
        int ld = n + 5;
        int off = 3;
        float[] a = new float[m * k];
        float[] bv = new float[off + k * ld];
        float[] init = new float[m * n];
        for (int i = 0; i < a.length; i++) a[i] = (float) r.nextGaussian();
        for (int i = 0; i < bv.length; i++) bv[i] = (float) r.nextGaussian();
        for (int i = 0; i < init.length; i++) init[i] = (float) r.nextGaussian();
        Tensor b = Tensor.fromFloats(dtype, Shape.of(bv.length), bv);
        float[] expect = init.clone();
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                float c = expect[i * n + j];
                for (int kk = 0; kk < k; kk++) {
                    c = Math.fma(a[i * k + kk], b.getFloat(off + (long) kk * ld + j), c);
                }
                expect[i * n + j] = c;
            }
        }
        for (int threads : new int[] {1, 2, 3}) {
            try (Parallel par = new Parallel(threads)) {
                for (boolean vector : new boolean[] {true, false}) {
                    float[] acc = init.clone();
                    MatMulKernel.multiply(a, b, off, ld, false, acc, m, k, n, par, vector);
                    for (int e = 0; e < acc.length; e++) {
                        if (Float.floatToRawIntBits(acc[e]) != Float.floatToRawIntBits(expect[e])) {
                            assertThat(acc[e]).as("threads=%d vector=%s element %d", threads, vector, e).isEqualTo(expect[e]);
                        }
                    }
                }
            }
        }
    }

    @Test
    void aMatvecSplitsItsColumnsOncePerThreadInWholeCacheLines() {
        assertThat(MatMulKernel.streamColumns(4096, 1)).isEqualTo(4096);
        assertThat(MatMulKernel.streamColumns(4096, 2)).isEqualTo(2048);
        assertThat(MatMulKernel.streamColumns(1000, 3)).isEqualTo(384);
        assertThat(MatMulKernel.streamColumns(10, 4)).isEqualTo(64);
        assertThat(MatMulKernel.streamChunk(1, 4096, 4096)).isEqualTo(4096);
        assertThat(MatMulKernel.streamChunk(2, 2048, 4096)).isEqualTo(64);
    }

    @Test
    void thisBuildRunsTheVectorLoop() {
        assertThat(MatMulKernel.implementation()).startsWith("vector");
    }
}
