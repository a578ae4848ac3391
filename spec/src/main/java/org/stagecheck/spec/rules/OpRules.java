package org.stagecheck.spec.rules;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.ValueType;

/**
 * The shape and dtype rules of the {@code Compute} ops (brief, "Stages"; docs/semantics.md): what
 * each op's output must be, given its ports' declarations, and each broken rule as a
 * {@link Violation} under its one {@link Rule}. The validator reports these; the evaluator, the
 * CUDA lowering and the author's program builder derive their shapes from the same functions, so
 * the language has one definition. Port counts, unknown names and placement are the caller's
 * (every declaration passed here is non-null). The checks are per declaration, never per element.
 */
public final class OpRules {
    private OpRules() {
    }

    /**
     * The port counts of a Compute stage of {@code op} ({@link Rule#PORT_COUNT}): one output; two
     * inputs for a MatMul, one for a Reduce, reshape, transpose or slice, at least one for a concat,
     * any number for a Generic. {@link #check} needs ports that pass this.
     */
    public static List<Violation> ports(ComputeOp op, int ins, int outs) {
        String what = switch (op) {
            case ComputeOp.Generic g -> "a generic op";
            case ComputeOp.MatMul m -> "a MatMul";
            case ComputeOp.Reduce r -> "a Reduce";
            case ComputeOp.Reshape r -> "a reshape";
            case ComputeOp.Transpose t -> "a transpose";
            case ComputeOp.Slice sl -> "a slice";
            case ComputeOp.Concat c -> "a concat";
        };
        int nIns = switch (op) {
            case ComputeOp.Generic g -> -1;
            case ComputeOp.MatMul m -> 2;
            case ComputeOp.Reduce r -> 1;
            case ComputeOp.Reshape r -> 1;
            case ComputeOp.Transpose t -> 1;
            case ComputeOp.Slice sl -> 1;
            case ComputeOp.Concat c -> -1;
        };
        List<Violation> v = new ArrayList<>();
        if (nIns >= 0 && ins != nIns) {
            v.add(new Violation(Rule.PORT_COUNT, "ins", null, what + " takes " + nIns + " input(s), not " + ins));
        }
        if (outs != 1) {
            v.add(new Violation(Rule.PORT_COUNT, "outs", null, what + " writes 1 output(s), not " + outs));
        }
        if (op instanceof ComputeOp.Concat && ins == 0) {
            v.add(new Violation(Rule.PORT_COUNT, "ins", null, "a concat needs at least one input"));
        }
        return v;
    }

    /**
     * Every shape and dtype rule of {@code op} on its ports: {@code ins} and {@code out} are the
     * declarations of the stage's inputs and (first) output, {@code named} those of the buffers the
     * op names beyond its ports (a MatMul's bias and spill), looked up by name. The expression of a
     * Generic is typed by the validator (ExprTyper), not here.
     */
    public static List<Violation> check(ComputeOp op, List<BufferDecl> ins, BufferDecl out, java.util.function.Function<String, BufferDecl> named) {
        return switch (op) {
            case ComputeOp.Generic g -> generic(ins, out);
            case ComputeOp.MatMul m -> matmul(m, ins.get(0), ins.get(1), out,
                    m.bias() == null ? null : named.apply(m.bias()), m.spill() == null ? null : named.apply(m.spill()));
            case ComputeOp.Reduce r -> reduce(r, ins.getFirst(), out);
            case ComputeOp.Reshape r -> reshape(ins.getFirst(), out);
            case ComputeOp.Transpose t -> transpose(t, ins.getFirst(), out);
            case ComputeOp.Slice sl -> slice(sl, ins.getFirst(), out);
            case ComputeOp.Concat c -> concat(c, ins, out);
        };
    }

    // ------------------------------------------------------------------ Generic

    /** numpy broadcasting: align trailing axes; each input extent equals the output's or is 1. */
    public static boolean broadcasts(Shape in, Shape out) {
        if (in.rank() > out.rank()) {
            return false;
        }
        int shift = out.rank() - in.rank();
        for (int k = 0; k < in.rank(); k++) {
            int a = in.dim(k);
            if (a != 1 && a != out.dim(k + shift)) {
                return false;
            }
        }
        return true;
    }

    /** Each input of a Generic broadcasts to the output ({@link Rule#BROADCAST}). */
    public static List<Violation> generic(List<BufferDecl> ins, BufferDecl out) {
        List<Violation> v = new ArrayList<>();
        for (int k = 0; k < ins.size(); k++) {
            BufferDecl in = ins.get(k);
            if (!broadcasts(in.shape(), out.shape())) {
                v.add(new Violation(Rule.BROADCAST, "ins/" + k, in.name(), "input '" + in.name() + "' of shape " + in.shape() + " does not broadcast to the output shape " + out.shape()));
            }
        }
        return v;
    }

    // ------------------------------------------------------------------ MatMul

    /** The extents of {@code op(A) [M, K] x op(B) [K, N]}. */
    public record Product(int m, int k, int n) {
        /** The output shape {@code [M, N]}. */
        public Shape shape() {
            return Shape.of(m, n);
        }
    }

    /**
     * The product of rank-2 operands of shapes {@code a} and {@code b} under the transposes, or
     * null when an operand is not rank 2 or the contraction extents differ ({@link Rule#MATMUL_SHAPE}).
     */
    public static Product product(Shape a, Shape b, boolean transposeA, boolean transposeB) {
        if (a.rank() != 2 || b.rank() != 2) {
            return null;
        }
        int am = transposeA ? a.dim(1) : a.dim(0);
        int ak = transposeA ? a.dim(0) : a.dim(1);
        int bk = transposeB ? b.dim(1) : b.dim(0);
        int bn = transposeB ? b.dim(0) : b.dim(1);
        return ak == bk ? new Product(am, ak, bn) : null;
    }

    /**
     * The operands' and output's shape and dtype ({@link Rule#MATMUL_SHAPE}, {@link Rule#DTYPE_MISMATCH}):
     * rank-2 floating operands with equal contraction extents, a floating output of the product's
     * shape. A batched or i32 MatMul is not in the language.
     */
    public static List<Violation> matmul(ComputeOp.MatMul m, BufferDecl a, BufferDecl b, BufferDecl out) {
        List<Violation> v = new ArrayList<>();
        if (a.shape().rank() != 2 || b.shape().rank() != 2 || out.shape().rank() != 2) {
            v.add(new Violation(Rule.MATMUL_SHAPE, "ins", null, "a MatMul multiplies rank-2 buffers; found " + a.shape() + " x " + b.shape() + " -> " + out.shape()));
        } else {
            int am = m.transposeA() ? a.shape().dim(1) : a.shape().dim(0);
            int ak = m.transposeA() ? a.shape().dim(0) : a.shape().dim(1);
            int bk = m.transposeB() ? b.shape().dim(1) : b.shape().dim(0);
            int bn = m.transposeB() ? b.shape().dim(0) : b.shape().dim(1);
            if (ak != bk) {
                v.add(new Violation(Rule.MATMUL_SHAPE, "ins/1", b.name(), "contraction extents differ: '" + a.name() + "' gives K=" + ak + " but '" + b.name() + "' gives K=" + bk));
            } else if (out.shape().dim(0) != am || out.shape().dim(1) != bn) {
                v.add(new Violation(Rule.MATMUL_SHAPE, "outs/0", out.name(), "the product is [" + am + ", " + bn + "] but output '" + out.name() + "' has shape " + out.shape()));
            }
        }
        List<BufferDecl> ins = List.of(a, b);
        for (int k = 0; k < 2; k++) {
            if (!ins.get(k).dtype().isFloating()) {
                v.add(new Violation(Rule.DTYPE_MISMATCH, "ins/" + k, ins.get(k).name(), "a MatMul multiplies floating buffers; '" + ins.get(k).name() + "' is " + ins.get(k).dtype()));
            }
        }
        if (!out.dtype().isFloating()) {
            v.add(new Violation(Rule.DTYPE_MISMATCH, "outs/0", out.name(), "a MatMul writes a floating buffer; '" + out.name() + "' is " + out.dtype()));
        }
        return v;
    }

    /** The bias is floating and broadcasts to the output ({@link Rule#MATMUL_BIAS}). */
    public static List<Violation> matmulBias(BufferDecl bias, BufferDecl out) {
        if (!broadcasts(bias.shape(), out.shape()) || !bias.dtype().isFloating()) {
            return List.of(new Violation(Rule.MATMUL_BIAS, "kind/op/bias", bias.name(), "bias '" + bias.name() + "' (" + bias.dtype() + bias.shape() + ") must be floating and broadcast to the output shape " + out.shape()));
        }
        return List.of();
    }

    /** The spill is the f32 accumulator of the output's shape ({@link Rule#MATMUL_SPILL}). */
    public static List<Violation> matmulSpill(BufferDecl spill, BufferDecl out) {
        if (spill.dtype() != DType.F32 || !spill.shape().equals(out.shape())) {
            return List.of(new Violation(Rule.MATMUL_SPILL, "kind/op/spill", spill.name(), "spill '" + spill.name() + "' is the f32 accumulator and must be f32" + out.shape() + ", not " + spill.dtype() + spill.shape()));
        }
        return List.of();
    }

    /** Every MatMul rule at once, {@code bias} and {@code spill} null where the op names none. */
    public static List<Violation> matmul(ComputeOp.MatMul m, BufferDecl a, BufferDecl b, BufferDecl out, BufferDecl bias, BufferDecl spill) {
        List<Violation> v = new ArrayList<>(matmul(m, a, b, out));
        if (bias != null) {
            v.addAll(matmulBias(bias, out));
        }
        if (spill != null) {
            v.addAll(matmulSpill(spill, out));
        }
        return v;
    }

    // ------------------------------------------------------------------ Reduce

    /** {@code in} with {@code axis} kept at extent 1, the shape a Reduce writes; the axis must be {@code in}'s. */
    public static Shape reduceShape(Shape in, int axis) {
        return in.withDim(axis, 1);
    }

    /** The dtype a Reduce of {@code fn} over {@code in} writes: i32 indices for argmax, else the input's. */
    public static DType reduceDtype(ReduceFn fn, DType in) {
        return fn == ReduceFn.ARGMAX ? DType.I32 : in;
    }

    /** The axis, the output shape and dtype of a Reduce ({@link Rule#REDUCE_AXIS}, {@link Rule#REDUCE_SHAPE}, {@link Rule#EMPTY_REDUCE}, {@link Rule#DTYPE_MISMATCH}). */
    public static List<Violation> reduce(ComputeOp.Reduce r, BufferDecl in, BufferDecl out) {
        if (r.axis() < 0 || r.axis() >= in.shape().rank()) {
            return List.of(new Violation(Rule.REDUCE_AXIS, "kind/op/axis", null, "reduces axis " + r.axis() + " of a rank-" + in.shape().rank() + " input"));
        }
        List<Violation> v = new ArrayList<>();
        Shape expected = reduceShape(in.shape(), r.axis());
        if (!expected.equals(out.shape())) {
            v.add(new Violation(Rule.REDUCE_SHAPE, "outs/0", out.name(), "reducing axis " + r.axis() + " of " + in.shape() + " gives " + expected + " (the axis is kept with extent 1), not " + out.shape()));
        }
        if (r.fn() == ReduceFn.ARGMAX) {
            if (in.shape().dim(r.axis()) == 0) {
                // sum/max/min of nothing have identities (0, -inf, +inf); an index of the maximum of nothing does not
                v.add(new Violation(Rule.EMPTY_REDUCE, "kind/op/axis", null, "argmax over axis " + r.axis() + " of " + in.shape() + ", which is empty, has no answer"));
            }
            if (out.dtype() != DType.I32) {
                v.add(new Violation(Rule.DTYPE_MISMATCH, "outs/0", out.name(), "argmax writes i32 indices; '" + out.name() + "' is " + out.dtype()));
            }
        } else if (ValueType.of(out.dtype()) != ValueType.of(in.dtype())) {
            v.add(new Violation(Rule.DTYPE_MISMATCH, "outs/0", out.name(), r.fn().jsonName() + " of " + in.dtype() + " cannot be written to " + out.dtype()));
        }
        return v;
    }

    // ------------------------------------------------------------------ layout ops

    /** A reshape keeps the element count and the dtype ({@link Rule#LAYOUT_SHAPE}, {@link Rule#DTYPE_MISMATCH}). */
    public static List<Violation> reshape(BufferDecl in, BufferDecl out) {
        List<Violation> v = new ArrayList<>();
        if (in.shape().elementCount() != out.shape().elementCount()) {
            v.add(new Violation(Rule.LAYOUT_SHAPE, "outs/0", out.name(), "reshape keeps the element count, but " + in.shape() + " has " + in.shape().elementCount() + " and " + out.shape() + " has " + out.shape().elementCount()));
        }
        sameDtype(v, in, out);
        return v;
    }

    /** The shape of {@code in} transposed by {@code perm}, or null when {@code perm} is not a permutation of its axes. */
    public static Shape transposeShape(Shape in, List<Integer> perm) {
        int rank = in.rank();
        Set<Integer> seen = new HashSet<>(perm);
        boolean isPerm = perm.size() == rank && seen.size() == rank && perm.stream().allMatch(a -> a >= 0 && a < rank);
        if (!isPerm) {
            return null;
        }
        List<Integer> dims = new ArrayList<>();
        for (int a : perm) {
            dims.add(in.dim(a));
        }
        return new Shape(dims);
    }

    /** A transpose permutes the axes into the output's shape and keeps the dtype. */
    public static List<Violation> transpose(ComputeOp.Transpose t, BufferDecl in, BufferDecl out) {
        Shape expected = transposeShape(in.shape(), t.perm());
        if (expected == null) {
            return List.of(new Violation(Rule.LAYOUT_SHAPE, "kind/op/perm", null, t.perm() + " is not a permutation of the " + in.shape().rank() + " axes of " + in.shape()));
        }
        List<Violation> v = new ArrayList<>();
        if (!expected.equals(out.shape())) {
            v.add(new Violation(Rule.LAYOUT_SHAPE, "outs/0", out.name(), "transposing " + in.shape() + " by " + t.perm() + " gives " + expected.dims() + ", not " + out.shape()));
        }
        sameDtype(v, in, out);
        return v;
    }

    /** A slice's window (starts, the output's shape) lies inside the input, and the dtype is kept. */
    public static List<Violation> slice(ComputeOp.Slice sl, BufferDecl in, BufferDecl out) {
        if (sl.starts().size() != in.shape().rank() || out.shape().rank() != in.shape().rank()) {
            return List.of(new Violation(Rule.LAYOUT_SHAPE, "kind/op/starts", null, "a slice of " + in.shape() + " needs " + in.shape().rank() + " starts and an output of that rank"));
        }
        List<Violation> v = new ArrayList<>();
        for (int k = 0; k < sl.starts().size(); k++) {
            long start = sl.starts().get(k);
            if (start < 0 || start + out.shape().dim(k) > in.shape().dim(k)) {
                v.add(new Violation(Rule.LAYOUT_SHAPE, "kind/op/starts/" + k, null, "the window [" + start + ", " + (start + out.shape().dim(k)) + ") leaves axis " + k + " of extent " + in.shape().dim(k)));
            }
        }
        sameDtype(v, in, out);
        return v;
    }

    /**
     * The shape of {@code ins} laid end to end along {@code axis}, or null when they are empty, the
     * axis is not theirs, or they differ off the axis.
     */
    public static Shape concatShape(List<Shape> ins, int axis) {
        if (ins.isEmpty() || axis < 0 || axis >= ins.getFirst().rank()) {
            return null;
        }
        Shape first = ins.getFirst();
        long total = 0;
        for (Shape s : ins) {
            if (s.rank() != first.rank()) {
                return null;
            }
            for (int a = 0; a < first.rank(); a++) {
                if (a != axis && s.dim(a) != first.dim(a)) {
                    return null;
                }
            }
            total += s.dim(axis);
        }
        return total > Integer.MAX_VALUE ? null : first.withDim(axis, (int) total);
    }

    /** A concat's inputs match the output off its axis and add up along it; the dtype is kept. At least one input. */
    public static List<Violation> concat(ComputeOp.Concat c, List<BufferDecl> ins, BufferDecl out) {
        int rank = out.shape().rank();
        if (c.axis() < 0 || c.axis() >= rank) {
            return List.of(new Violation(Rule.LAYOUT_SHAPE, "kind/op/axis", null, "concatenates along axis " + c.axis() + " of a rank-" + rank + " output"));
        }
        List<Violation> v = new ArrayList<>();
        long total = 0;
        for (int k = 0; k < ins.size(); k++) {
            BufferDecl in = ins.get(k);
            boolean ok = in.shape().rank() == rank;
            for (int a = 0; ok && a < rank; a++) {
                ok = a == c.axis() || in.shape().dim(a) == out.shape().dim(a);
            }
            if (!ok) {
                v.add(new Violation(Rule.LAYOUT_SHAPE, "ins/" + k, in.name(), "input '" + in.name() + "' of shape " + in.shape() + " does not match output " + out.shape() + " off axis " + c.axis()));
                return v;
            }
            total += in.shape().dim(c.axis());
            sameDtype(v, in, out);
        }
        if (total != out.shape().dim(c.axis())) {
            v.add(new Violation(Rule.LAYOUT_SHAPE, "outs/0", out.name(), "the inputs add up to " + total + " along axis " + c.axis() + " but output '" + out.name() + "' has " + out.shape().dim(c.axis())));
        }
        return v;
    }

    private static void sameDtype(List<Violation> v, BufferDecl in, BufferDecl out) {
        if (in.dtype() != out.dtype()) {
            v.add(new Violation(Rule.DTYPE_MISMATCH, "outs/0", out.name(), "layout ops keep the dtype: '" + in.name() + "' is " + in.dtype() + " but '" + out.name() + "' is " + out.dtype()));
        }
    }
}
