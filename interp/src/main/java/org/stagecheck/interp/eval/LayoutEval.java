package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Stage;

/**
 * The layout ops of {@code Compute} (brief, "Stages"): reshape, transpose, slice, concat. They
 * move elements without arithmetic. Their shapes and dtypes are the language's rules
 * ({@link org.stagecheck.spec.rules.OpRules}), held before the stage runs (RunState.holdToRules), so
 * nothing here re-checks them; the dtype is kept, and a value whose storage differs from the
 * output's (float64 mode) is converted element by element by the storage rule.
 */
final class LayoutEval {
    private LayoutEval() {
    }

    static void reshape(Stage st, RunState s) throws Fault {
        Tensor x = s.read(Ports.in(st, 0));
        BufferDecl bd = outDecl(st, s);
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
        int[] outDims = new int[rank];
        for (int i = 0; i < rank; i++) {
            outDims[i] = x.shape().dim(perm.get(i));
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
        Region r = s.plannedRegion();
        if (r == null) {
            long[] origin = new long[rank];
            for (int a = 0; a < rank; a++) {
                origin[a] = sl.starts().get(a);
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
        List<Tensor> ins = new ArrayList<>();
        for (String in : st.ins()) {
            ins.add(s.read(in));
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

    private static BufferDecl outDecl(Stage st, RunState s) throws Fault {
        return s.bufferDecl(Ports.out(st, 0));
    }
}
