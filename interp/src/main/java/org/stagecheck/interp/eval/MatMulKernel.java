package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.tensor.numeric.F16;
import org.stagecheck.tensor.numeric.Rounding;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;

/**
 * The f32 matmul hot loop (docs/semantics.md, "MatMul"). The value of every output element is
 * defined by one sequential chain: {@code acc = init; for k = 0..K-1: acc = fma(a[i,k], b[k,j], acc)}
 * in f32, one rounding per step ({@link Math#fma}). The loops below only reorder work across
 * <em>different</em> output elements (blocking over j, k-chunks taken in ascending order, four rows
 * at once, tasks over row/column tiles), so the result is bit-identical to that chain for every
 * thread count, tile size and vector width. With the Vector API present ({@code --add-modules
 * jdk.incubator.vector}) the inner block keeps a 4-row x 2-vector tile of accumulators in registers
 * ({@link VectorMatMul}); without it a plain loop over j, which the JIT vectorizes. Lane-wise fma
 * is {@link Math#fma} per lane, so both give the same bits.
 */
public final class MatMulKernel {
    /** Columns per tile: each task owns a {@code ROWS_PER_TASK x COLS} tile of the output. */
    static final int COLS = 256;
    static final int ROWS_PER_TASK = 64;
    /** k-chunk whose packed B panel ({@code KC x COLS} floats, 256 KiB) stays in L2. */
    static final int KC = 256;

    private MatMulKernel() {
    }

    /**
     * Products smaller than this many multiply-adds take the vector kernel only in a program that
     * runs again and again ({@link #vectorFor}). Compiled, the vector kernel is 4-7x faster than
     * the plain {@code Math.fma} loop even on a few hundred multiply-adds (the JIT does not
     * vectorize that loop: k = 64, N = 16 took 0.9 us against 0.2 us); but until the optimising
     * compiler has compiled it, Vector API code runs many times slower than the plain loop, so a
     * program run once (a CI gate) ran about twice as long with it. The values are the same.
     */
    static final long VECTOR_MIN_FMAS = 1L << 12;

    /**
     * Whether a product of {@code fmas} multiply-adds takes the vector kernel: when the module is
     * there and the product is large, or the program has run often enough ({@code warm}) that the
     * compiled kernel pays for its warm-up.
     */
    static boolean vectorFor(long fmas, boolean warm) {
        return VECTOR && (warm || fmas >= VECTOR_MIN_FMAS);
    }

    /**
     * Products smaller than this many multiply-adds run on the calling thread: handing a task to
     * another thread costs more than such a product (the result is the same either way).
     */
    static final long PARALLEL_MIN_FMAS = 1L << 18;

    /**
     * {@code acc[m*N + j] = chain over k} with {@code acc} holding the initial values.
     *
     * @param a      A as f32 [M, K] row-major
     * @param b      B: f32, bf16 or f16 storage, [K, N] or, when {@code bT}, [N, K]
     * @param bOff   element offset of this batch's B in its storage
     */
    public static void multiply(float[] a, Tensor b, int bOff, boolean bT, float[] acc, int m, int k, int n, Parallel par) {
        multiply(a, b, bOff, bT ? k : n, bT, acc, m, k, n, par, VECTOR);
    }

    /** As above, choosing the inner loop: {@code vector} is honoured only when the module is present. */
    public static void multiply(float[] a, Tensor b, int bOff, boolean bT, float[] acc, int m, int k, int n, Parallel par,
                                boolean vector) {
        multiply(a, b, bOff, bT ? k : n, bT, acc, m, k, n, par, vector);
    }

    /**
     * As above, with B a block of a larger row-major array: its row r (of [K, N], or of [N, K]
     * when {@code bT}) starts at {@code bOff + r * ldb}. This is how a Load of a weight's column
     * block is multiplied in place, without copying the block.
     */
    public static void multiply(float[] a, Tensor b, int bOff, int ldb, boolean bT, float[] acc, int m, int k, int n,
                                Parallel par, boolean vector) {
        multiply(a, b, bOff, ldb, bT, acc, m, k, n, par, vector, null);
    }

    /**
     * As above; {@code spare} (or null) is a working array the calling thread may use as the packed
     * B panel of a product it runs alone, so that a run does not allocate one per product.
     */
    static void multiply(float[] a, Tensor b, int bOff, int ldb, boolean bT, float[] acc, int m, int k, int n,
                         Parallel par, boolean vector, float[] spare) {
        long fmas = (long) m * k * n;
        boolean useVector = vector && VECTOR;
        if (fmas < PARALLEL_MIN_FMAS) {
            tile(useVector, a, b, bOff, ldb, bT, acc, m, k, n, 0, m, 0, n, spare);
            return;
        }
        List<Runnable> tasks = new ArrayList<>();
        // a few rows (a matvec) stream B row by row: one column range per thread keeps each row's
        // run as long as it can be, which the hardware prefetcher needs (a 1024-column tile is one
        // 4 KiB page of f32, and every page restarts the prefetch); larger products take 64 x 256 tiles
        int cols = m < 4 ? streamColumns(n, par.threads()) : COLS;
        for (int i0 = 0; i0 < m; i0 += ROWS_PER_TASK) {
            for (int j0 = 0; j0 < n; j0 += cols) {
                int ii0 = i0;
                int jj0 = j0;
                tasks.add(() -> tile(useVector, a, b, bOff, ldb, bT, acc, m, k, n, ii0, Math.min(m, ii0 + ROWS_PER_TASK), jj0,
                        Math.min(n, jj0 + cols), null));
            }
        }
        par.runAll(tasks);
    }

    /**
     * Columns per task of a product of fewer than 4 rows: the columns split evenly over the
     * threads, in multiples of 64. The split moves work between threads, never the order of any
     * element's chain, so the bits do not depend on it.
     */
    static int streamColumns(int n, int threads) {
        int per = (n + threads - 1) / threads;
        return Math.max(64, (per + 63) / 64 * 64);
    }

    /**
     * Rows of B streamed per pass of a row-streaming tile: all of them for one row of A (B is read
     * once, straight through); for 2 or 3 rows, enough that the chunk ({@code chunk x w} f32, at
     * most 512 KiB) stays in L2 for the next row.
     */
    static int streamChunk(int rows, int w, int k) {
        if (rows == 1) {
            return Math.max(1, k);
        }
        return Math.max(4, (1 << 17) / Math.max(1, w) / 4 * 4);
    }

    /** Whether the Vector API module is in the boot layer (the JVM ran with --add-modules jdk.incubator.vector). */
    static final boolean VECTOR = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
            && !Boolean.getBoolean("stagecheck.interp.noVector");

    /** Which inner loop runs: "vector (N lanes)" or "scalar"; the values are the same either way. */
    public static String implementation() {
        return VECTOR ? "vector (" + VectorMatMul.lanes() + " f32 lanes)" : "scalar";
    }

    /** The packed-panel size a tile of {@code w} columns needs for a product of depth {@code k}. */
    static int panelSize(int k, int w) {
        return Math.min(KC, k) * w;
    }

    /**
     * Whether a product runs on the calling thread alone through a packed panel (so that a spare
     * array for it saves an allocation): B transposed, bf16 without the vector kernel, another
     * dtype, or four rows and more; {@code vector} as the product is multiplied with.
     */
    static boolean packsAlone(Tensor b, boolean bT, int m, int k, int n, boolean vector) {
        return !streams(b, bT, m, vector && VECTOR) && (long) m * k * n < PARALLEL_MIN_FMAS;
    }

    /**
     * Whether a tile of {@code rows} rows streams B without a packed panel: a row or three read
     * f32 B in place, or widen bf16 B in registers (vector kernel only).
     */
    private static boolean streams(Tensor b, boolean bT, int rows, boolean useVector) {
        return !bT && rows < 4 && (b.dtype() == DType.F32 || useVector && b.dtype() == DType.BF16);
    }

    private static void tile(boolean useVector, float[] a, Tensor b, int bOff, int ldb, boolean bT, float[] acc, int m,
                             int k, int n, int i0, int i1, int j0, int j1, float[] spare) {
        int w = j1 - j0;
        // a row or three read B in place (f32) or widen it in registers (bf16); larger tiles pack a
        // contiguous, widened k-chunk panel that the register-blocked loop reuses for every row
        boolean direct = b.dtype() == DType.F32 && streams(b, bT, i1 - i0, useVector);
        boolean stream16 = b.dtype() == DType.BF16 && streams(b, bT, i1 - i0, useVector);
        int panelSize = panelSize(k, w);
        float[] panel = direct || stream16 ? null : spare != null && spare.length >= panelSize ? spare : new float[panelSize];
        int chunk = direct || stream16 ? streamChunk(i1 - i0, w, k) : KC;
        for (int k0 = 0; k0 < k; k0 += chunk) {
            int kc = Math.min(chunk, k - k0);
            if (stream16) {
                for (int i = i0; i < i1; i++) {
                    VectorMatMul.rowStreamBf16(a, k, k0, kc, b.rawBits16(), bOff + k0 * ldb + j0, ldb, acc, n, i, j0, w);
                }
                continue;
            }
            float[] src;
            int base;
            int ld;
            if (direct) {
                src = b.rawFloats();
                base = bOff + k0 * ldb + j0;
                ld = ldb;
            } else {
                pack(useVector, b, bOff, ldb, bT, k0, kc, j0, w, panel);
                src = panel;
                base = 0;
                ld = w;
            }
            if (useVector) {
                VectorMatMul.block(a, k, k0, kc, src, base, ld, acc, n, i0, i1, j0, w);
                continue;
            }
            for (int i = i0; i < i1; i++) {
                int r0 = i * n + j0;
                int ar = i * k + k0;
                for (int kk = 0; kk < kc; kk++) {
                    float a0 = a[ar + kk];
                    int po = base + kk * ld;
                    for (int j = 0; j < w; j++) {
                        acc[r0 + j] = Math.fma(a0, src[po + j], acc[r0 + j]);
                    }
                }
            }
        }
    }

    /** B[k0..k0+kc, j0..j0+w] widened exactly to f32, row-major {@code kc x w}. */
    private static void pack(boolean useVector, Tensor b, int bOff, int ldb, boolean bT, int k0, int kc, int j0, int w,
                             float[] panel) {
        if (b.dtype() == DType.F32 && !bT) {
            float[] src = b.rawFloats();
            for (int kk = 0; kk < kc; kk++) {
                System.arraycopy(src, bOff + (k0 + kk) * ldb + j0, panel, kk * w, w);
            }
            return;
        }
        if (!bT && b.rawBits16() != null) {
            short[] src = b.rawBits16();
            boolean bf16 = b.dtype() == DType.BF16;
            for (int kk = 0; kk < kc; kk++) {
                int s0 = bOff + (k0 + kk) * ldb + j0;
                int d0 = kk * w;
                if (bf16 && useVector) {
                    VectorMatMul.widenBf16(src, s0, panel, d0, w);
                } else if (bf16) {
                    for (int j = 0; j < w; j++) {
                        panel[d0 + j] = Float.intBitsToFloat((src[s0 + j] & 0xFFFF) << 16);
                    }
                } else {
                    for (int j = 0; j < w; j++) {
                        panel[d0 + j] = F16.toFloat(src[s0 + j]);
                    }
                }
            }
            return;
        }
        if (!bT) {
            // 8-bit floats: widened exactly, one element at a time
            for (int kk = 0; kk < kc; kk++) {
                int s0 = bOff + (k0 + kk) * ldb + j0;
                for (int j = 0; j < w; j++) {
                    panel[kk * w + j] = b.getFloat(s0 + j);
                }
            }
            return;
        }
        // B stored [N, K]: element (k, j) at j*ldb + k
        if (b.dtype() == DType.F32) {
            // the common case (attention's q.K^T): one loop, no per-element dispatch
            float[] src = b.rawFloats();
            for (int j = 0; j < w; j++) {
                int s0 = bOff + (j0 + j) * ldb + k0;
                for (int kk = 0; kk < kc; kk++) {
                    panel[kk * w + j] = src[s0 + kk];
                }
            }
            return;
        }
        for (int j = 0; j < w; j++) {
            int s0 = bOff + (j0 + j) * ldb + k0;
            for (int kk = 0; kk < kc; kk++) {
                panel[kk * w + j] = switch (b.dtype()) {
                    case F32 -> b.rawFloats()[s0 + kk];
                    case BF16 -> Float.intBitsToFloat((b.rawBits16()[s0 + kk] & 0xFFFF) << 16);
                    case F16 -> F16.toFloat(b.rawBits16()[s0 + kk]);
                    case E4M3, E5M2 -> Rounding.widen8(b.dtype(), b.rawBits8()[s0 + kk]);
                    case I32 -> throw new IllegalArgumentException("an i32 B takes the integer matmul");
                };
            }
        }
    }
}
