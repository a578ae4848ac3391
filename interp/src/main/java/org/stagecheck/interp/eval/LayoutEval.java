package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;

/**
 * The layout ops of {@code Compute} (brief, "Stages"): reshape, transpose, slice, concat. They
 * move elements without arithmetic; with equal dtypes the result is a bit copy, otherwise each
 * element is converted by the storage rounding rule.
 */
final class LayoutEval {
    private LayoutEval() {
    }

    static void reshape(Stage st, RunState s) throws Fault {
        Tensor x = s.read(Ports.in(st, 0));
        BufferDecl bd = outDecl(st, s);
        if (x.size() != bd.shape().elementCount()) {
            throw shape(st, "reshape of " + x.shape() + " cannot give " + bd.shape() + ": the element counts differ.");
        }
        if (x.dtype() == bd.dtype() && x.isFloat64() == (s.f64() && bd.dtype().isFloating())) {
            // same storage: the value is the same elements in the same order, and values are never changed once written
            s.write(bd.name(), x.reshaped(bd.shape()));
            return;
        }
        Tensor out = s.output(bd.dtype(), bd.shape());
        Copy.copy(x, 0, out, 0, (int) x.size());
        s.write(bd.name(), out);
    }

    static void transpose(Stage st, ComputeOp.Transpose t, RunState s) throws Fault {
        Tensor x = s.read(Ports.in(st, 0));
        BufferDecl bd = outDecl(st, s);
        List<Integer> perm = t.perm();
        int rank = x.shape().rank();
        boolean[] seen = new boolean[rank];
        boolean valid = perm.size() == rank;
        for (int p : perm) {
            valid &= p >= 0 && p < rank && !seen[p];
            if (p >= 0 && p < rank) {
                seen[p] = true;
            }
        }
        if (!valid) {
            throw new Fault(FaultCode.TRANSPOSE_PERM, "kind/op/perm", null, perm + " is not a permutation of the input's " + rank + " axes.");
        }
        int[] outDims = new int[rank];
        for (int i = 0; i < rank; i++) {
            outDims[i] = x.shape().dim(perm.get(i));
        }
        if (!bd.shape().equals(Shape.of(outDims))) {
            throw shape(st, "transposing " + x.shape() + " by " + perm + " gives " + Shape.of(outDims) + ", not " + bd.shape() + ".");
        }
        long[] inStrides = x.shape().strides();
        long[] step = new long[rank];
        for (int i = 0; i < rank; i++) {
            step[i] = inStrides[perm.get(i)];
        }
        Tensor out = s.output(bd.dtype(), bd.shape());
        int n = (int) out.size();
        int[] idx = new int[rank];
        long pos = 0;
        for (int e = 0; e < n; e++) {
            Copy.copy(x, (int) pos, out, e, 1);
            for (int a = rank - 1; a >= 0; a--) {
                idx[a]++;
                pos += step[a];
                if (idx[a] < outDims[a]) {
                    break;
                }
                pos -= step[a] * idx[a];
                idx[a] = 0;
            }
        }
        s.write(bd.name(), out);
    }

    static void slice(Stage st, ComputeOp.Slice sl, RunState s) throws Fault {
        Tensor x = s.read(Ports.in(st, 0));
        BufferDecl bd = outDecl(st, s);
        int rank = x.shape().rank();
        if (sl.starts().size() != rank || bd.shape().rank() != rank) {
            throw shape(st, "a slice of " + x.shape() + " needs " + rank + " starts and an output of that rank; it has "
                    + sl.starts() + " and " + bd.shape() + ".");
        }
        Region r = s.plannedRegion();
        if (r == null) {
            long[] origin = new long[rank];
            for (int a = 0; a < rank; a++) {
                origin[a] = sl.starts().get(a);
                if (origin[a] < 0 || origin[a] + bd.shape().dim(a) > x.shape().dim(a)) {
                    throw new Fault(FaultCode.SLICE_BOUNDS, "kind/op/starts/" + a, null, "the window " + sl.starts() + " + " + bd.shape()
                            + " leaves the input " + x.shape() + " on axis " + a + ".");
                }
            }
            // the starts are constants and the input has its declared shape: the same window every run
            r = new Region(bd.shape().toArray(), bd.shape().toArray(), List.of(new Region.Piece(origin, new int[rank])));
            s.planRegion(r);
        }
        BlockView view = x.dtype() == bd.dtype() ? r.asView(x, bd.shape()) : null;
        if (view != null) {
            // one block of the input in its own dtype and storage: its place, copied only if a reader
            // needs a copy (a matmul multiplies a window of a KV cache where it lies)
            s.writeView(bd.name(), view);
            return;
        }
        Tensor out = s.output(bd.dtype(), bd.shape());
        r.gather(x, out);
        s.write(bd.name(), out);
    }

    static void concat(Stage st, ComputeOp.Concat c, RunState s) throws Fault {
        BufferDecl bd = outDecl(st, s);
        int rank = bd.shape().rank();
        int axis = c.axis();
        if (axis < 0 || axis >= rank) {
            throw new Fault(FaultCode.CONCAT_AXIS, "kind/op/axis", null, "axis " + axis + " is outside the output's rank " + rank + ".");
        }
        List<Tensor> ins = new ArrayList<>();
        int total = 0;
        for (String in : st.ins()) {
            Tensor t = s.read(in);
            if (!sameOffAxis(t.shape(), bd.shape(), axis)) {
                throw shape(st, "input '" + in + "' " + t.shape() + " does not match output " + bd.shape() + " off axis " + axis + ".");
            }
            total += t.shape().dim(axis);
            ins.add(t);
        }
        if (total != bd.shape().dim(axis)) {
            throw shape(st, "the inputs add up to " + total + " along axis " + axis + " but the output has " + bd.shape().dim(axis) + ".");
        }
        Tensor out = s.output(bd.dtype(), bd.shape());
        List<Region> regions = s.plannedRegions();
        if (regions == null) {
            // the inputs have their declared shapes: the same placement every run
            regions = new ArrayList<>(ins.size());
            int at = 0;
            for (Tensor t : ins) {
                int[] bo = new int[rank];
                bo[axis] = at;
                // the input is the "tensor" side of a region whose buffer is the output
                regions.add(new Region(t.shape().toArray(), bd.shape().toArray(), List.of(new Region.Piece(new long[rank], bo))));
                at += t.shape().dim(axis);
            }
            s.planRegions(regions);
        }
        for (int i = 0; i < ins.size(); i++) {
            regions.get(i).gather(ins.get(i), out);
        }
        s.write(bd.name(), out);
    }

    /** Whether {@code a} and {@code b} have the same rank and the same extent on every axis but {@code axis}. */
    private static boolean sameOffAxis(Shape a, Shape b, int axis) {
        if (a.rank() != b.rank()) {
            return false;
        }
        for (int i = 0; i < a.rank(); i++) {
            if (i != axis && a.dim(i) != b.dim(i)) {
                return false;
            }
        }
        return true;
    }

    private static BufferDecl outDecl(Stage st, RunState s) throws Fault {
        return s.bufferDecl(Ports.out(st, 0));
    }

    private static Fault shape(Stage st, String message) {
        return new Fault(FaultCode.LAYOUT_SHAPE, "kind/op", null, message);
    }
}
