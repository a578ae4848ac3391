package org.stagecheck.cuda.lower;

import java.util.List;

import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.rules.OpRules;

/**
 * {@code MatMul}, {@code Reduce} and the layout ops (docs/semantics.md, "Compute(MatMul)",
 * "Compute(Reduce)", "Layout ops"): one thread per output element, each accumulation one
 * sequential chain in the reference's order (fast kernels split some: {@link SplitLowering}). MatMul: {@code acc = fma(a[i,k], b[k,j], acc)} for
 * k ascending from the spill (or +0), written back to the spill, then the bias added once in f32
 * and the sum rounded once. Reduce: index order from element 0. Layout ops move elements and
 * convert dtypes by the reference's rule.
 */
final class ComputeLowering {
    private ComputeLowering() {
    }

    /**
     * The MatMul's kernel: one chain per output element, or with {@code split} (fast kernels) the
     * partial and combine kernels of {@link SplitLowering} over the scratch region {@code partials}.
     */
    static void matmul(Emit x, ComputeOp.MatMul mm, boolean spillWritten, Split split, Placed partials) {
        // the language's rules (rank-2 floating operands, the product's shape, the bias and spill), as the validator checks them
        List<String> ins = x.stage.ins();
        BufferDecl od = x.decl(x.stage.outs().getFirst());
        LoweringException.throwFirst(OpRules.matmul(mm, x.decl(ins.get(0)), x.decl(ins.get(1)), od,
                mm.bias() == null ? null : x.decl(mm.bias()), mm.spill() == null ? null : x.decl(mm.spill())));
        Placed a = x.in(ins.get(0));
        Placed b = x.in(ins.get(1));
        OpRules.Product product = OpRules.product(a.shape(), b.shape(), mm.transposeA(), mm.transposeB());
        if (split != null) {
            SplitLowering.matmul(x, mm, product, spillWritten, split, partials);
            return;
        }
        int m = product.m();
        int k = product.k();
        int n = product.n();
        long total = (long) m * n;
        x.begin("", total, describe(mm, product), spillComment(mm, spillWritten));
        x.pointer("A", a, false);
        x.pointer("B", b, false);
        matmulOutputs(x, mm);
        x.open("SC_FOR_EACH(e, n) {");
        x.line("long long p = e / " + ((long) m * n) + ", i = e / " + n + " % " + m + ", j = e % " + n + "; // batch, row, column");
        x.line("long long aOff = p * " + ((long) m * k) + ", bOff = 0;");
        x.line("float acc = " + (mm.spill() != null && spillWritten ? "spill[e]" : "0.0f") + ";");
        x.open("for (long long kk = 0; kk < " + k + "; kk++) { // k ascending: one chain");
        x.line("acc = sc_fma(" + CText.read(a.dtype(), "A", "aOff + " + aIndex(mm, product, "kk")) + ", "
                + CText.read(b.dtype(), "B", "bOff + " + bIndex(mm, product, "kk")) + ", acc);");
        x.close();
        finishMatMul(x, mm, product);
        x.close();
        x.end();
    }

    /** The kernel's heading: {@code out = A x B^T + bias 'b', M=.. K=.. N=..}. */
    static String describe(ComputeOp.MatMul mm, OpRules.Product product) {
        return "out = " + (mm.transposeA() ? "A^T" : "A") + " x " + (mm.transposeB() ? "B^T" : "B")
                + (mm.bias() == null ? "" : " + bias '" + mm.bias() + "'") + ", M=" + product.m() + " K=" + product.k() + " N=" + product.n();
    }

    static String spillComment(ComputeOp.MatMul mm, boolean spillWritten) {
        return mm.spill() == null ? "" : "spill '" + mm.spill() + "': the f32 accumulator, "
                + (spillWritten ? "continued from its value" : "not written before in this run, so it starts at +0");
    }

    /** The index of {@code A[i, kk]} (row {@code i}) under the transpose. */
    static String aIndex(ComputeOp.MatMul mm, OpRules.Product p, String kk) {
        return mm.transposeA() ? kk + " * " + p.m() + " + i" : "i * " + p.k() + " + " + kk;
    }

    /** The index of {@code B[kk, j]} (column {@code j}) under the transpose. */
    static String bIndex(ComputeOp.MatMul mm, OpRules.Product p, String kk) {
        return mm.transposeB() ? "j * " + p.k() + " + " + kk : kk + " * " + p.n() + " + j";
    }

    /**
     * Declares the output, bias and spill pointers before the loop over elements {@code e}; called
     * by the kernel that writes them.
     */
    static void matmulOutputs(Emit x, ComputeOp.MatMul mm) {
        x.pointer("out", x.out(x.stage.outs().getFirst()), true);
        if (mm.bias() != null) {
            x.pointer("bias", x.in(mm.bias()), false);
        }
        if (mm.spill() != null) {
            x.pointer("spill", x.out(mm.spill()), true);
        }
    }

    /**
     * The end of element {@code e} of a MatMul whose sum is in {@code acc}: the spill written back,
     * the bias added once in f32, the output rounded once.
     */
    static void finishMatMul(Emit x, ComputeOp.MatMul mm, OpRules.Product product) {
        Placed out = x.out(x.stage.outs().getFirst());
        int[] outDims = {product.m(), product.n()};
        if (mm.spill() != null) {
            x.line("spill[e] = acc;");
        }
        if (mm.bias() != null) {
            Placed bias = x.in(mm.bias());
            String bix = ExprLowering.broadcastIndex(bias.shape(), outDims);
            if (!bix.equals("e")) {
                x.coordinates("e", "i", outDims);
            }
            String bv = CText.read(bias.dtype(), "bias", bix);
            x.line("acc = sc_fadd(acc, " + bv + "); // the bias, added once");
        }
        x.line("out[e] = " + CText.fromFloat(out.dtype(), "acc") + ";");
    }

    /**
     * The Reduce's kernel: one fold per output element in index order, or with {@code split}
     * (fast kernels) the partial and combine kernels of {@link SplitLowering} over the scratch
     * regions {@code partials} and (arg-max) {@code indices}.
     */
    static void reduce(Emit x, ComputeOp.Reduce r, Split split, Placed partials, Placed indices) {
        Placed in = x.in(x.stage.ins().getFirst());
        Placed out = x.out(x.stage.outs().getFirst());
        LoweringException.throwFirst(OpRules.reduce(r, x.decl(x.stage.ins().getFirst()), x.decl(x.stage.outs().getFirst())));
        int axis = r.axis();
        int[] dims = in.shape().toArray();
        int len = dims[axis];
        long inner = 1;
        for (int a = axis + 1; a < dims.length; a++) {
            inner *= dims[a];
        }
        long outer = 1;
        for (int a = 0; a < axis; a++) {
            outer *= dims[a];
        }
        if (split != null) {
            SplitLowering.reduce(x, r, outer, len, inner, split, partials, indices);
            return;
        }
        boolean ints = CText.computesAsInt(in.dtype());
        x.begin("", outer * inner, r.fn().jsonName() + " along axis " + axis + " (" + len + " elements), in index order");
        x.pointer("in", in, false);
        x.pointer("out", out, true);
        x.open("SC_FOR_EACH(e, n) {");
        x.line("long long base = e / " + inner + " * " + ((long) len * inner) + " + e % " + inner + ";");
        String elem = CText.read(in.dtype(), "in", "base + a * " + inner);
        if (r.fn() == ReduceFn.ARGMAX) {
            x.line("int best = 0;");
            x.line((ints ? "int" : "float") + " bv = " + CText.read(in.dtype(), "in", "base") + ";");
            x.open("for (long long a = 1; a < " + len + (ints ? "" : " && !sc_isnan(bv)") + "; a++) { // the first maximum; a NaN is the maximum");
            x.line((ints ? "int" : "float") + " v = " + elem + ";");
            x.line("if (" + (ints ? "" : "sc_isnan(v) || ") + "v > bv) { best = (int)a; bv = v; }");
            x.close();
            x.line("out[e] = " + CText.fromInt(out.dtype(), "best") + ";");
        } else if (ints) {
            String init = switch (r.fn()) {
                case SUM -> "0";
                case MAX -> "(-2147483647 - 1)";
                case MIN -> "2147483647";
                case ARGMAX -> throw new IllegalStateException("handled above");
            };
            String op = switch (r.fn()) {
                case SUM -> "sc_iadd";
                case MAX -> "sc_imax";
                case MIN -> "sc_imin";
                case ARGMAX -> throw new IllegalStateException("handled above");
            };
            x.line("int acc = " + init + ";");
            x.line("for (long long a = 0; a < " + len + "; a++) acc = " + op + "(acc, " + elem + ");");
            x.line("out[e] = " + CText.fromInt(out.dtype(), "acc") + ";");
        } else {
            String empty = switch (r.fn()) {
                case SUM -> "0.0f";
                case MAX -> CText.floatLiteral(Double.NEGATIVE_INFINITY);
                case MIN -> CText.floatLiteral(Double.POSITIVE_INFINITY);
                case ARGMAX -> throw new IllegalStateException("handled above");
            };
            String op = switch (r.fn()) {
                case SUM -> "sc_fadd";
                case MAX -> "sc_fmax";
                case MIN -> "sc_fmin";
                case ARGMAX -> throw new IllegalStateException("handled above");
            };
            x.line("float acc = " + (len == 0 ? empty : CText.read(in.dtype(), "in", "base")) + ";");
            x.line("for (long long a = 1; a < " + len + "; a++) acc = " + op + "(acc, " + elem + ");");
            x.line("out[e] = " + CText.fromFloat(out.dtype(), "acc") + ";");
        }
        x.close();
        x.end();
    }

    static void reshape(Emit x) {
        Placed in = x.in(x.stage.ins().getFirst());
        Placed out = x.out(x.stage.outs().getFirst());
        LoweringException.throwFirst(OpRules.reshape(x.decl(x.stage.ins().getFirst()), x.decl(x.stage.outs().getFirst())));
        x.begin("", out.elements(), "reshape " + in.shape() + " -> " + out.shape() + ": row-major order kept");
        x.pointer("in", in, false);
        x.pointer("out", out, true);
        x.open("SC_FOR_EACH(e, n) {");
        x.line("out[e] = " + CText.convert(in.dtype(), out.dtype(), "in", "e") + ";");
        x.close();
        x.end();
    }

    static void transpose(Emit x, ComputeOp.Transpose t) {
        Placed in = x.in(x.stage.ins().getFirst());
        Placed out = x.out(x.stage.outs().getFirst());
        List<Integer> perm = t.perm();
        LoweringException.throwFirst(OpRules.transpose(t, x.decl(x.stage.ins().getFirst()), x.decl(x.stage.outs().getFirst())));
        int rank = in.shape().rank();
        long[] inStrides = in.shape().strides();
        String[] idx = new String[rank];
        long[] step = new long[rank];
        for (int a = 0; a < rank; a++) {
            idx[a] = "i" + a;
            step[a] = inStrides[perm.get(a)];
        }
        x.begin("", out.elements(), "transpose " + in.shape() + " by " + perm + ": output axis a is input axis perm[a]");
        x.pointer("in", in, false);
        x.pointer("out", out, true);
        x.open("SC_FOR_EACH(e, n) {");
        x.coordinates("e", "i", out.shape().toArray());
        x.line("out[e] = " + CText.convert(in.dtype(), out.dtype(), "in", Emit.linear(idx, step)) + ";");
        x.close();
        x.end();
    }

    static void slice(Emit x, ComputeOp.Slice s) {
        Placed in = x.in(x.stage.ins().getFirst());
        Placed out = x.out(x.stage.outs().getFirst());
        LoweringException.throwFirst(OpRules.slice(s, x.decl(x.stage.ins().getFirst()), x.decl(x.stage.outs().getFirst())));
        int rank = in.shape().rank();
        String[] idx = new String[rank];
        for (int a = 0; a < rank; a++) {
            idx[a] = s.starts().get(a) == 0 ? "i" + a : "(i" + a + " + " + s.starts().get(a) + ")";
        }
        x.begin("", out.elements(), "slice of " + in.shape() + " at " + s.starts() + ", shape " + out.shape());
        x.pointer("in", in, false);
        x.pointer("out", out, true);
        x.open("SC_FOR_EACH(e, n) {");
        x.coordinates("e", "i", out.shape().toArray());
        x.line("out[e] = " + CText.convert(in.dtype(), out.dtype(), "in", Emit.linear(idx, in.shape().strides())) + ";");
        x.close();
        x.end();
    }

    static void concat(Emit x, ComputeOp.Concat c) {
        Placed out = x.out(x.stage.outs().getFirst());
        int rank = out.shape().rank();
        LoweringException.throwFirst(OpRules.concat(c, x.stage.ins().stream().map(x::decl).toList(), x.decl(x.stage.outs().getFirst())));
        int axis = c.axis();
        x.begin("", out.elements(), "concat of " + x.stage.ins().size() + " inputs along axis " + axis + ", in port order");
        for (int i = 0; i < x.stage.ins().size(); i++) {
            x.pointer("in" + i, x.in(x.stage.ins().get(i)), false);
        }
        x.pointer("out", out, true);
        x.open("SC_FOR_EACH(e, n) {");
        x.coordinates("e", "i", out.shape().toArray());
        long at = 0;
        for (int i = 0; i < x.stage.ins().size(); i++) {
            Placed in = x.in(x.stage.ins().get(i));
            int extent = in.shape().dim(axis);
            String[] idx = new String[rank];
            for (int a = 0; a < rank; a++) {
                idx[a] = a == axis && at != 0 ? "(i" + a + " - " + at + ")" : "i" + a;
            }
            String cond = "i" + axis + " < " + (at + extent);
            String move = "out[e] = " + CText.convert(in.dtype(), out.dtype(), "in" + i, Emit.linear(idx, in.shape().strides())) + ";";
            x.line((i == 0 ? "if (" : "else if (") + cond + ") " + move);
            at += extent;
        }
        x.close();
        x.end();
    }
}
