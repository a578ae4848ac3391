package org.stagecheck.reduce;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * Shrinking an extent: every dimension of extent {@code from}, in every tensor, buffer and access
 * pattern's block, becomes {@code to}; a bound tensor keeps its leading sub-block. Extents that
 * stand for the same axis change together, so an elementwise chain or a matmul stays consistent;
 * where they do not (a stride, a slice start, a reshape), the validator rejects the candidate.
 */
final class ShrinkMove {
    private ShrinkMove() {}

    /** Every extent above 1 that a tensor or buffer has, largest first. */
    static List<Integer> extents(Program p) {
        TreeSet<Integer> out = new TreeSet<>(java.util.Comparator.reverseOrder());
        p.tensors().forEach(t -> t.shape().dims().forEach(out::add));
        p.buffers().forEach(b -> b.shape().dims().forEach(out::add));
        out.removeIf(d -> d <= 1);
        return new ArrayList<>(out);
    }

    static Candidate extent(Candidate c, int from, int to) {
        Program p = c.program();
        List<TensorDecl> tensors = p.tensors().stream()
                .map(t -> new TensorDecl(t.name(), t.dtype(), shrink(t.shape(), from, to), t.chip(), t.role())).toList();
        List<BufferDecl> buffers = p.buffers().stream()
                .map(b -> new BufferDecl(b.name(), b.dtype(), shrink(b.shape(), from, to), b.site())).toList();
        List<Stage> stages = p.stages().stream()
                .map(s -> new Stage(s.id(), s.site(), s.ins(), s.outs(), shrink(s.kind(), from, to))).toList();
        Map<String, Tensor> bound = new LinkedHashMap<>();
        c.bound().forEach((name, t) -> bound.put(name, leading(t, shrink(t.shape(), from, to))));
        return new Candidate(new Program(p.name(), p.machine(), p.params(), tensors, buffers, p.groups(), stages), bound, c.params());
    }

    private static Shape shrink(Shape s, int from, int to) {
        return Shape.of(s.dims().stream().mapToInt(d -> d == from ? to : d).toArray());
    }

    private static StageKind shrink(StageKind k, int from, int to) {
        return switch (k) {
            case StageKind.Load l -> new StageKind.Load(l.tensor(), shrink(l.pattern(), from, to), l.numBlocks(), l.multicast());
            case StageKind.Store s -> new StageKind.Store(s.tensor(), shrink(s.pattern(), from, to),
                    s.subRows() == from ? to : s.subRows(), s.subCols() == from ? to : s.subCols());
            case StageKind.Recv r -> r;
            case StageKind.AllReduce a -> a;
            case StageKind.Compute comp -> comp;
            case StageKind.Scalar sc -> sc;
        };
    }

    private static AccessPattern shrink(AccessPattern p, int from, int to) {
        return switch (p) {
            case AccessPattern.Block b -> new AccessPattern.Block(b.origin(), shrink(b.block(), from, to));
            case AccessPattern.Streamed s -> new AccessPattern.Streamed(s.origin(), shrink(s.block(), from, to), s.axis(),
                    s.stride() == from ? to : s.stride());
            case AccessPattern.Indirect i -> new AccessPattern.Indirect(i.indexBuffer(), i.origin(), shrink(i.block(), from, to));
        };
    }

    /** The leading {@code shape} sub-block of {@code t} (same rank, no larger along any axis). */
    static Tensor leading(Tensor t, Shape shape) {
        if (shape.equals(t.shape())) {
            return t;
        }
        int[] dims = shape.toArray();
        int[] old = t.shape().toArray();
        int n = (int) shape.elementCount();
        int[] idx = new int[dims.length];
        float[] f = t.dtype() == DType.I32 ? null : new float[n];
        int[] ints = t.dtype() == DType.I32 ? new int[n] : null;
        for (int e = 0; e < n; e++) {
            long src = 0;
            for (int a = 0; a < dims.length; a++) {
                src = src * old[a] + idx[a];
            }
            if (ints != null) {
                ints[e] = t.getInt(src);
            } else {
                f[e] = t.getFloat(src);
            }
            for (int a = dims.length - 1; a >= 0; a--) {
                if (++idx[a] < dims[a]) {
                    break;
                }
                idx[a] = 0;
            }
        }
        return ints != null ? Tensor.fromInts(shape, ints) : Tensor.fromFloats(t.dtype(), shape, f);
    }
}
