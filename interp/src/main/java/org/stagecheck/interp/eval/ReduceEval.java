package org.stagecheck.interp.eval;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;

/**
 * {@code Compute(Reduce)} (brief, "Stages"; docs/semantics.md, "Reduce"): along {@code axis},
 * sequentially in index order, the output keeping the axis with extent 1. SUM: {@code acc = x0},
 * then {@code acc = acc + x_i} in f32 (float64 mode: double; i32: wrapping). MAX/MIN: Math.max /
 * Math.min, so NaN propagates. ARGMAX: the first index of the maximum, a NaN counting as the
 * maximum (numpy's rule), as i32. An empty axis gives 0 (SUM), -inf (MAX), +inf (MIN); an argmax
 * over one is refused by the rules (EMPTY_REDUCE).
 */
final class ReduceEval {
    private ReduceEval() {
    }

    static void run(Stage st, ComputeOp.Reduce r, RunState s) throws Fault {
        Tensor x = s.read(Ports.in(st, 0));
        Shape in = x.shape();
        // the axis, the output's shape and dtype and a non-empty argmax axis are the language's rules,
        // held before the stage runs (RunState.holdToRules)
        int axis = r.axis();
        String outName = Ports.out(st, 0);
        BufferDecl bd = s.bufferDecl(outName);
        int len = in.dim(axis);
        int inner = 1;
        for (int a = axis + 1; a < in.rank(); a++) {
            inner *= in.dim(a);
        }
        int outer = 1;
        for (int a = 0; a < axis; a++) {
            outer *= in.dim(a);
        }
        int m = outer * inner;
        if (r.fn() == ReduceFn.ARGMAX) {
            int[] idx = new int[m];
            if (x.dtype() == DType.I32) {
                argmaxInt(x.rawInts(), outer, len, inner, idx);
            } else if (s.f64()) {
                argmaxDouble(Values.doubles(x), outer, len, inner, idx);
            } else {
                argmaxFloat(Values.floats(x), outer, len, inner, idx);
            }
            s.write(outName, Values.ofInts(bd.dtype(), bd.shape(), idx, s.f64()));
            return;
        }
        if (x.dtype() == DType.I32) {
            int[] out = new int[m];
            foldInts(r.fn(), x.rawInts(), outer, len, inner, out);
            s.write(outName, Values.ofInts(bd.dtype(), bd.shape(), out, s.f64()));
        } else if (s.f64()) {
            double[] out = new double[m];
            foldDoubles(r.fn(), Values.doubles(x), outer, len, inner, out);
            s.write(outName, Values.ofDoubles(bd.dtype(), bd.shape(), out));
        } else {
            float[] out = new float[m];
            foldFloats(r.fn(), Values.floats(x), outer, len, inner, out);
            s.write(outName, Values.ofFloats(bd.dtype(), bd.shape(), out));
        }
    }

    /**
     * SUM, MAX or MIN of every {@code [o, :, j]} line in f32, in index order: {@code acc = x0},
     * then {@code acc = op(acc, x_a)}. The function is chosen once per stage; with {@code inner}
     * 1 (the last axis) each line is contiguous.
     */
    private static void foldFloats(ReduceFn fn, float[] v, int outer, int len, int inner, float[] out) {
        for (int o = 0; o < outer; o++) {
            for (int j = 0; j < inner; j++) {
                int base = o * len * inner + j;
                float acc = len == 0 ? (float) empty(fn) : v[base];
                int end = base + len * inner;
                switch (fn) {
                    case SUM -> { for (int p = base + inner; p < end; p += inner) acc = acc + v[p]; }
                    case MAX -> { for (int p = base + inner; p < end; p += inner) acc = Math.max(acc, v[p]); }
                    case MIN -> { for (int p = base + inner; p < end; p += inner) acc = Math.min(acc, v[p]); }
                    case ARGMAX -> throw new IllegalStateException("argmax is not a fold");
                }
                out[o * inner + j] = acc;
            }
        }
    }

    /** {@link #foldFloats} in double (float64 mode). */
    private static void foldDoubles(ReduceFn fn, double[] v, int outer, int len, int inner, double[] out) {
        for (int o = 0; o < outer; o++) {
            for (int j = 0; j < inner; j++) {
                int base = o * len * inner + j;
                double acc = len == 0 ? empty(fn) : v[base];
                int end = base + len * inner;
                switch (fn) {
                    case SUM -> { for (int p = base + inner; p < end; p += inner) acc = acc + v[p]; }
                    case MAX -> { for (int p = base + inner; p < end; p += inner) acc = Math.max(acc, v[p]); }
                    case MIN -> { for (int p = base + inner; p < end; p += inner) acc = Math.min(acc, v[p]); }
                    case ARGMAX -> throw new IllegalStateException("argmax is not a fold");
                }
                out[o * inner + j] = acc;
            }
        }
    }

    /** i32 SUM (from 0, wrapping), MAX (from MIN_VALUE), MIN (from MAX_VALUE), in index order. */
    private static void foldInts(ReduceFn fn, int[] v, int outer, int len, int inner, int[] out) {
        for (int o = 0; o < outer; o++) {
            for (int j = 0; j < inner; j++) {
                int base = o * len * inner + j;
                int end = base + len * inner;
                int acc = switch (fn) {
                    case SUM -> 0;
                    case MAX -> Integer.MIN_VALUE;
                    case MIN -> Integer.MAX_VALUE;
                    case ARGMAX -> throw new IllegalStateException("argmax is not a fold");
                };
                switch (fn) {
                    case SUM -> { for (int p = base; p < end; p += inner) acc = acc + v[p]; }
                    case MAX -> { for (int p = base; p < end; p += inner) acc = Math.max(acc, v[p]); }
                    case MIN -> { for (int p = base; p < end; p += inner) acc = Math.min(acc, v[p]); }
                    case ARGMAX -> throw new IllegalStateException("argmax is not a fold");
                }
                out[o * inner + j] = acc;
            }
        }
    }

    private static double empty(ReduceFn fn) {
        return switch (fn) {
            case SUM -> 0.0;
            case MAX -> Double.NEGATIVE_INFINITY;
            case MIN -> Double.POSITIVE_INFINITY;
            case ARGMAX -> throw new IllegalStateException("argmax of an empty axis is a fault");
        };
    }

    /**
     * {@link #argmaxDouble} on f32 values: comparing the floats is comparing their exact double
     * widenings, so the answer is the same without widening the input.
     */
    private static void argmaxFloat(float[] v, int outer, int len, int inner, int[] out) {
        for (int o = 0; o < outer; o++) {
            for (int j = 0; j < inner; j++) {
                int base = o * len * inner + j;
                int best = 0;
                float bv = v[base];
                for (int a = 1; a < len && !Float.isNaN(bv); a++) {
                    float e = v[base + a * inner];
                    if (Float.isNaN(e) || e > bv) {
                        best = a;
                        bv = e;
                    }
                }
                out[o * inner + j] = best;
            }
        }
    }

    private static void argmaxDouble(double[] v, int outer, int len, int inner, int[] out) {
        for (int o = 0; o < outer; o++) {
            for (int j = 0; j < inner; j++) {
                int base = o * len * inner + j;
                int best = 0;
                double bv = v[base];
                for (int a = 1; a < len && !Double.isNaN(bv); a++) {
                    double e = v[base + a * inner];
                    if (Double.isNaN(e) || e > bv) {
                        best = a;
                        bv = e;
                    }
                }
                out[o * inner + j] = best;
            }
        }
    }

    private static void argmaxInt(int[] v, int outer, int len, int inner, int[] out) {
        for (int o = 0; o < outer; o++) {
            for (int j = 0; j < inner; j++) {
                int base = o * len * inner + j;
                int best = 0;
                int bv = v[base];
                for (int a = 1; a < len; a++) {
                    if (v[base + a * inner] > bv) {
                        best = a;
                        bv = v[base + a * inner];
                    }
                }
                out[o * inner + j] = best;
            }
        }
    }

    /** Whether {@code out} is {@code in} with axis {@code axis} reduced to extent 1 (compared without making that shape). */
}
