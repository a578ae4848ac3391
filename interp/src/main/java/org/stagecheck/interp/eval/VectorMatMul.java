package org.stagecheck.interp.eval;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * The register-blocked inner block of {@link MatMulKernel}, on the Vector API. Loaded only when
 * the JVM has the {@code jdk.incubator.vector} module. Each lane holds one output element's
 * accumulator and applies {@code acc = fma(a[i,k], b[k,j], acc)} for k ascending, so the result
 * equals the scalar chain bit for bit, whatever the lane count.
 */
final class VectorMatMul {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    private static final VectorSpecies<Short> S16 = VectorSpecies.of(short.class, VectorShape.forBitSize(L * 16));
    private static final VectorSpecies<Integer> S32 = VectorSpecies.of(int.class, VectorShape.forBitSize(L * 32));

    private VectorMatMul() {
    }

    static int lanes() {
        return L;
    }

    /**
     * acc[i, j0 + j] for rows [i0, i1) and j in [0, w) takes k-chunk [k0, k0 + kc); B row kk of the
     * chunk starts at {@code src[base + kk * ld]}.
     */
    static void block(float[] a, int k, int k0, int kc, float[] src, int base, int ld, float[] acc, int n,
                      int i0, int i1, int j0, int w) {
        int wv = w - w % (2 * L);
        int i = i0;
        for (; i + 4 <= i1; i += 4) {
            int r0 = i * n + j0;
            int r1 = r0 + n;
            int r2 = r1 + n;
            int r3 = r2 + n;
            int a0 = i * k + k0;
            int a1 = a0 + k;
            int a2 = a1 + k;
            int a3 = a2 + k;
            for (int j = 0; j < wv; j += 2 * L) {
                FloatVector c00 = FloatVector.fromArray(S, acc, r0 + j);
                FloatVector c01 = FloatVector.fromArray(S, acc, r0 + j + L);
                FloatVector c10 = FloatVector.fromArray(S, acc, r1 + j);
                FloatVector c11 = FloatVector.fromArray(S, acc, r1 + j + L);
                FloatVector c20 = FloatVector.fromArray(S, acc, r2 + j);
                FloatVector c21 = FloatVector.fromArray(S, acc, r2 + j + L);
                FloatVector c30 = FloatVector.fromArray(S, acc, r3 + j);
                FloatVector c31 = FloatVector.fromArray(S, acc, r3 + j + L);
                for (int kk = 0; kk < kc; kk++) {
                    int bo = base + kk * ld + j;
                    FloatVector b0 = FloatVector.fromArray(S, src, bo);
                    FloatVector b1 = FloatVector.fromArray(S, src, bo + L);
                    FloatVector x0 = FloatVector.broadcast(S, a[a0 + kk]);
                    FloatVector x1 = FloatVector.broadcast(S, a[a1 + kk]);
                    FloatVector x2 = FloatVector.broadcast(S, a[a2 + kk]);
                    FloatVector x3 = FloatVector.broadcast(S, a[a3 + kk]);
                    c00 = b0.fma(x0, c00);
                    c01 = b1.fma(x0, c01);
                    c10 = b0.fma(x1, c10);
                    c11 = b1.fma(x1, c11);
                    c20 = b0.fma(x2, c20);
                    c21 = b1.fma(x2, c21);
                    c30 = b0.fma(x3, c30);
                    c31 = b1.fma(x3, c31);
                }
                c00.intoArray(acc, r0 + j);
                c01.intoArray(acc, r0 + j + L);
                c10.intoArray(acc, r1 + j);
                c11.intoArray(acc, r1 + j + L);
                c20.intoArray(acc, r2 + j);
                c21.intoArray(acc, r2 + j + L);
                c30.intoArray(acc, r3 + j);
                c31.intoArray(acc, r3 + j + L);
            }
            scalarColumns(a, k, k0, kc, src, base, ld, acc, n, i, i + 4, j0, wv, w);
        }
        for (; i < i1; i++) {
            rowStream(a, k, k0, kc, src, base, ld, acc, n, i, j0, w);
        }
    }

    /** Rows of B that {@link #rowStream} multiplies in one pass over the accumulators. */
    private static final int KU = 8;

    /**
     * One row, streaming B row by row (k outer, j inner): each element still takes its chain in
     * k order. B is read contiguously, {@value #KU} rows at a time: every accumulator is loaded
     * once per {@value #KU} rows and takes their steps k, k+1, ... in order in a register (the
     * same fma chain, with fewer loads and stores of the accumulators), and {@value #KU} row
     * streams are in flight at once, which is what a block of a wider weight needs (its rows are
     * a few hundred bytes, far apart).
     */
    static void rowStream(float[] a, int k, int k0, int kc, float[] src, int base, int ld, float[] acc, int n,
                          int i, int j0, int w) {
        int r0 = i * n + j0;
        int a0 = i * k + k0;
        int wv = w - w % L;
        int kk = 0;
        for (; kk + KU <= kc; kk += KU) {
            int ak = a0 + kk;
            FloatVector x0 = FloatVector.broadcast(S, a[ak]);
            FloatVector x1 = FloatVector.broadcast(S, a[ak + 1]);
            FloatVector x2 = FloatVector.broadcast(S, a[ak + 2]);
            FloatVector x3 = FloatVector.broadcast(S, a[ak + 3]);
            FloatVector x4 = FloatVector.broadcast(S, a[ak + 4]);
            FloatVector x5 = FloatVector.broadcast(S, a[ak + 5]);
            FloatVector x6 = FloatVector.broadcast(S, a[ak + 6]);
            FloatVector x7 = FloatVector.broadcast(S, a[ak + 7]);
            int b0 = base + kk * ld;
            for (int j = 0; j < wv; j += L) {
                int b = b0 + j;
                FloatVector c = FloatVector.fromArray(S, acc, r0 + j);
                c = FloatVector.fromArray(S, src, b).fma(x0, c);
                c = FloatVector.fromArray(S, src, b + ld).fma(x1, c);
                c = FloatVector.fromArray(S, src, b + 2 * ld).fma(x2, c);
                c = FloatVector.fromArray(S, src, b + 3 * ld).fma(x3, c);
                c = FloatVector.fromArray(S, src, b + 4 * ld).fma(x4, c);
                c = FloatVector.fromArray(S, src, b + 5 * ld).fma(x5, c);
                c = FloatVector.fromArray(S, src, b + 6 * ld).fma(x6, c);
                c = FloatVector.fromArray(S, src, b + 7 * ld).fma(x7, c);
                c.intoArray(acc, r0 + j);
            }
            for (int j = wv; j < w; j++) {
                float c = acc[r0 + j];
                for (int u = 0; u < KU; u++) {
                    c = Math.fma(a[ak + u], src[b0 + u * ld + j], c);
                }
                acc[r0 + j] = c;
            }
        }
        for (; kk < kc; kk++) {
            float xs = a[a0 + kk];
            FloatVector x = FloatVector.broadcast(S, xs);
            int bo = base + kk * ld;
            for (int j = 0; j < wv; j += L) {
                FloatVector.fromArray(S, src, bo + j).fma(x, FloatVector.fromArray(S, acc, r0 + j)).intoArray(acc, r0 + j);
            }
            for (int j = wv; j < w; j++) {
                acc[r0 + j] = Math.fma(xs, src[bo + j], acc[r0 + j]);
            }
        }
    }

    /** {@link #rowStream} over bf16 patterns, widened exactly in registers (no packing pass). */
    static void rowStreamBf16(float[] a, int k, int k0, int kc, short[] src, int base, int ld, float[] acc, int n,
                              int i, int j0, int w) {
        int r0 = i * n + j0;
        int a0 = i * k + k0;
        int wv = w - w % L;
        int kk = 0;
        for (; kk + KU <= kc; kk += KU) {
            int ak = a0 + kk;
            FloatVector x0 = FloatVector.broadcast(S, a[ak]);
            FloatVector x1 = FloatVector.broadcast(S, a[ak + 1]);
            FloatVector x2 = FloatVector.broadcast(S, a[ak + 2]);
            FloatVector x3 = FloatVector.broadcast(S, a[ak + 3]);
            FloatVector x4 = FloatVector.broadcast(S, a[ak + 4]);
            FloatVector x5 = FloatVector.broadcast(S, a[ak + 5]);
            FloatVector x6 = FloatVector.broadcast(S, a[ak + 6]);
            FloatVector x7 = FloatVector.broadcast(S, a[ak + 7]);
            int b0 = base + kk * ld;
            for (int j = 0; j < wv; j += L) {
                int b = b0 + j;
                FloatVector c = FloatVector.fromArray(S, acc, r0 + j);
                c = widen(src, b).fma(x0, c);
                c = widen(src, b + ld).fma(x1, c);
                c = widen(src, b + 2 * ld).fma(x2, c);
                c = widen(src, b + 3 * ld).fma(x3, c);
                c = widen(src, b + 4 * ld).fma(x4, c);
                c = widen(src, b + 5 * ld).fma(x5, c);
                c = widen(src, b + 6 * ld).fma(x6, c);
                c = widen(src, b + 7 * ld).fma(x7, c);
                c.intoArray(acc, r0 + j);
            }
            for (int j = wv; j < w; j++) {
                float c = acc[r0 + j];
                for (int u = 0; u < KU; u++) {
                    c = Math.fma(a[ak + u], bf16(src[b0 + u * ld + j]), c);
                }
                acc[r0 + j] = c;
            }
        }
        for (; kk < kc; kk++) {
            float xs = a[a0 + kk];
            FloatVector x = FloatVector.broadcast(S, xs);
            int bo = base + kk * ld;
            for (int j = 0; j < wv; j += L) {
                widen(src, bo + j).fma(x, FloatVector.fromArray(S, acc, r0 + j)).intoArray(acc, r0 + j);
            }
            for (int j = wv; j < w; j++) {
                acc[r0 + j] = Math.fma(xs, bf16(src[bo + j]), acc[r0 + j]);
            }
        }
    }

    /** L bf16 patterns from {@code src[at]} as f32 lanes, exactly ({@code bits << 16}). */
    private static FloatVector widen(short[] src, int at) {
        return (FloatVector) ShortVector.fromArray(S16, src, at)
                .convertShape(VectorOperators.S2I, S32, 0)
                .lanewise(VectorOperators.LSHL, 16)
                .reinterpretAsFloats();
    }

    private static float bf16(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** dst[d0 + j] = the f32 value of bf16 pattern src[s0 + j], j in [0, w): exact ({@code bits << 16}). */
    static void widenBf16(short[] src, int s0, float[] dst, int d0, int w) {
        int j = 0;
        for (; j + L <= w; j += L) {
            ShortVector.fromArray(S16, src, s0 + j)
                    .convertShape(VectorOperators.S2I, S32, 0)
                    .lanewise(VectorOperators.LSHL, 16)
                    .reinterpretAsFloats()
                    .intoArray(dst, d0 + j);
        }
        for (; j < w; j++) {
            dst[d0 + j] = Float.intBitsToFloat((src[s0 + j] & 0xFFFF) << 16);
        }
    }

    /** Columns [from, w) that do not fill two vectors: the same chain, one element at a time. */
    private static void scalarColumns(float[] a, int k, int k0, int kc, float[] src, int base, int ld, float[] acc, int n,
                                      int i0, int i1, int j0, int from, int w) {
        for (int i = i0; i < i1; i++) {
            for (int j = from; j < w; j++) {
                float c = acc[i * n + j0 + j];
                for (int kk = 0; kk < kc; kk++) {
                    c = Math.fma(a[i * k + k0 + kk], src[base + kk * ld + j], c);
                }
                acc[i * n + j0 + j] = c;
            }
        }
    }
}
