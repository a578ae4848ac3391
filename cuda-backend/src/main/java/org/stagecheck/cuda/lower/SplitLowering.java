package org.stagecheck.cuda.lower;

import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.rules.OpRules;

/**
 * The fast kernels of a split accumulation (docs/cuda.md, "Fast kernels"; the rule is
 * {@link Split}'s): a first kernel with one thread per (output element, chunk) writes each
 * chunk's partial result to a scratch region, {@code partials[s * outputs + o]}; a second kernel
 * with one thread per output element combines the partials in chunk order and finishes the
 * element as the exact kernel does. Two launches instead of shared memory, barriers or atomics,
 * so host emulation runs them unchanged, and every element is computed by the same operations in
 * the same order on every run.
 *
 * <p>Threads of the first kernel that read neighbouring addresses are neighbours: when the
 * accumulated axis is contiguous in memory (a transposed B, a reduce along the last axis) the
 * chunk index varies fastest ({@code s = e % chunks}), else the output index does.
 */
final class SplitLowering {
    private SplitLowering() {
    }

    /**
     * {@code acc_s = sum over kk = s, s + S, ... of A[i, kk] B[kk, j]} (an fma chain from +0) per
     * chunk {@code s}; then {@code acc = spill or +0; acc += acc_0; ...; acc += acc_(S-1)}, the
     * spill written back, the bias added once, the output rounded once.
     */
    static void matmul(Emit x, ComputeOp.MatMul mm, OpRules.Product product, boolean spillWritten, Split split, Placed partials) {
        Placed a = x.in(x.stage.ins().get(0));
        Placed b = x.in(x.stage.ins().get(1));
        int k = product.k();
        int n = product.n();
        int chunks = split.chunks();
        long outputs = (long) product.m() * n;
        x.begin("_partials", outputs * chunks, ComputeLowering.describe(mm, product),
                "fast kernels: K split into " + chunks + " interleaved chunks (chunk s sums kk = s, s + " + chunks
                        + ", ...), one thread per (output, chunk), each chunk an fma chain from +0");
        x.pointer("A", a, false);
        x.pointer("B", b, false);
        x.pointer("part", partials, true);
        x.open("SC_FOR_EACH(e, n) {");
        chunkAndOutput(x, mm.transposeB(), chunks, outputs);
        x.line("long long i = o / " + n + ", j = o % " + n + "; // row, column");
        x.line("float acc = 0.0f;");
        x.open("for (long long kk = s; kk < " + k + "; kk += " + chunks + ") {");
        x.line("acc = sc_fma(" + CText.read(a.dtype(), "A", ComputeLowering.aIndex(mm, product, "kk")) + ", "
                + CText.read(b.dtype(), "B", ComputeLowering.bIndex(mm, product, "kk")) + ", acc);");
        x.close();
        x.line("part[s * " + outputs + " + o] = acc;");
        x.close();
        x.end();

        x.begin("_combine", outputs, ComputeLowering.describe(mm, product),
                "fast kernels: the " + chunks + " partials added in chunk order to " + (mm.spill() != null && spillWritten
                        ? "the spill" : "+0"), ComputeLowering.spillComment(mm, spillWritten));
        x.pointer("part", partials, false);
        ComputeLowering.matmulOutputs(x, mm);
        x.open("SC_FOR_EACH(e, n) {");
        x.line("float acc = " + (mm.spill() != null && spillWritten ? "spill[e]" : "0.0f") + ";");
        x.line("for (long long s = 0; s < " + chunks + "; s++) acc = sc_fadd(acc, part[s * " + outputs + " + e]);");
        ComputeLowering.finishMatMul(x, mm, product);
        x.close();
        x.end();
    }

    /**
     * Per chunk {@code s}, the fold of elements {@code s, s + S, ...} of the axis from the chunk's
     * first element (arg-max: the chunk's first maximum and its index); then per output the
     * partials folded in chunk order (arg-max: the greatest value, a NaN greatest, the smallest
     * index among equals, which is the reference's first maximum).
     *
     * @param indices arg-max only: the scratch region of the chunks' indices (else null)
     */
    static void reduce(Emit x, ComputeOp.Reduce r, long outer, int len, long inner, Split split, Placed partials, Placed indices) {
        Placed in = x.in(x.stage.ins().getFirst());
        Placed out = x.out(x.stage.outs().getFirst());
        boolean ints = CText.computesAsInt(in.dtype());
        String type = ints ? "int" : "float";
        int chunks = split.chunks();
        long outputs = outer * inner;
        boolean argmax = r.fn() == ReduceFn.ARGMAX;
        x.begin("_partials", outputs * chunks, r.fn().jsonName() + " along axis " + r.axis() + " (" + len + " elements)",
                "fast kernels: the axis split into " + chunks + " interleaved chunks (chunk s holds elements s, s + " + chunks
                        + ", ...), one thread per (output, chunk)");
        x.pointer("in", in, false);
        x.pointer("part", partials, true);
        if (argmax) {
            x.pointer("partIndex", indices, true);
        }
        x.open("SC_FOR_EACH(e, n) {");
        chunkAndOutput(x, inner == 1, chunks, outputs);
        x.line("long long base = o / " + inner + " * " + ((long) len * inner) + " + o % " + inner + ";");
        String elem = CText.read(in.dtype(), "in", "base + a * " + inner);
        String first = CText.read(in.dtype(), "in", "base + s * " + inner);
        if (argmax) {
            x.line("int best = (int)s;");
            x.line(type + " bv = " + first + ";");
            x.open("for (long long a = s + " + chunks + "; a < " + len + (ints ? "" : " && !sc_isnan(bv)") + "; a += " + chunks
                    + ") { // the chunk's first maximum; a NaN is the maximum");
            x.line(type + " v = " + elem + ";");
            x.line("if (" + (ints ? "" : "sc_isnan(v) || ") + "v > bv) { best = (int)a; bv = v; }");
            x.close();
            x.line("part[s * " + outputs + " + o] = bv;");
            x.line("partIndex[s * " + outputs + " + o] = best;");
        } else {
            x.line(type + " acc = " + first + ";");
            x.line("for (long long a = s + " + chunks + "; a < " + len + "; a += " + chunks + ") acc = " + fold(r.fn(), ints)
                    + "(acc, " + elem + ");");
            x.line("part[s * " + outputs + " + o] = acc;");
        }
        x.close();
        x.end();

        x.begin("_combine", outputs, r.fn().jsonName() + " along axis " + r.axis() + " (" + len + " elements)",
                "fast kernels: the " + chunks + " partials combined in chunk order");
        x.pointer("part", partials, false);
        if (argmax) {
            x.pointer("partIndex", indices, false);
        }
        x.pointer("out", out, true);
        x.open("SC_FOR_EACH(e, n) {");
        if (argmax) {
            x.line("int best = partIndex[e];");
            x.line(type + " bv = part[e];");
            x.open("for (long long s = 1; s < " + chunks + "; s++) {");
            x.line(type + " v = part[s * " + outputs + " + e];");
            x.line("int ix = partIndex[s * " + outputs + " + e];");
            String better = "v > bv || (v == bv && ix < best)";
            x.line("if (" + (ints ? better : "sc_isnan(bv) ? (sc_isnan(v) && ix < best) : (sc_isnan(v) || " + better + ")")
                    + ") { best = ix; bv = v; }");
            x.close();
            x.line("out[e] = " + CText.fromInt(out.dtype(), "best") + ";");
        } else {
            x.line(type + " acc = part[e];");
            x.line("for (long long s = 1; s < " + chunks + "; s++) acc = " + fold(r.fn(), ints) + "(acc, part[s * " + outputs + " + e]);");
            x.line("out[e] = " + (ints ? CText.fromInt(out.dtype(), "acc") : CText.fromFloat(out.dtype(), "acc")) + ";");
        }
        x.close();
        x.end();
    }

    /** Declares {@code s} (the chunk) and {@code o} (the output element) of thread element {@code e}. */
    private static void chunkAndOutput(Emit x, boolean chunkFastest, int chunks, long outputs) {
        if (chunkFastest) {
            x.line("long long s = e % " + chunks + ", o = e / " + chunks + "; // chunk, output element (the axis is contiguous)");
        } else {
            x.line("long long s = e / " + outputs + ", o = e % " + outputs + "; // chunk, output element");
        }
    }

    /** The sc_rt.h function folding two values of a sum, max or min. */
    private static String fold(ReduceFn fn, boolean ints) {
        return switch (fn) {
            case SUM -> ints ? "sc_iadd" : "sc_fadd";
            case MAX -> ints ? "sc_imax" : "sc_fmax";
            case MIN -> ints ? "sc_imin" : "sc_fmin";
            case ARGMAX -> throw new IllegalStateException("an arg-max keeps indices, not a fold");
        };
    }
}
