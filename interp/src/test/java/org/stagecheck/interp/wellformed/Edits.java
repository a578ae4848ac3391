package org.stagecheck.interp.wellformed;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;

/** Small immutable edits of programs, shapes and patterns that the mutation operators share. */
final class Edits {
    private Edits() {
    }

    static <T> T pick(List<T> list, SplittableRandom r) {
        return list.isEmpty() ? null : list.get(r.nextInt(list.size()));
    }

    static <T> List<T> set(List<T> list, int i, T value) {
        List<T> out = new ArrayList<>(list);
        out.set(i, value);
        return out;
    }

    static Program withStage(Program p, int i, Stage s) {
        return p.withStages(set(p.stages(), i, s));
    }

    static Stage withKind(Stage s, StageKind k) {
        return new Stage(s.id(), s.site(), s.ins(), s.outs(), k);
    }

    static Program withTensors(Program p, List<TensorDecl> ts) {
        return new Program(p.name(), p.machine(), p.params(), ts, p.buffers(), p.groups(), p.stages());
    }

    static Program withParams(Program p, List<Param> ps) {
        return new Program(p.name(), p.machine(), ps, p.tensors(), p.buffers(), p.groups(), p.stages());
    }

    static Program withGroups(Program p, List<Group> gs) {
        return new Program(p.name(), p.machine(), p.params(), p.tensors(), p.buffers(), gs, p.stages());
    }

    static BufferDecl withShape(BufferDecl b, Shape s) {
        return new BufferDecl(b.name(), b.dtype(), s, b.site());
    }

    static BufferDecl withDtype(BufferDecl b, DType d) {
        return new BufferDecl(b.name(), d, b.shape(), b.site());
    }

    /** Another dtype than {@code d}. */
    static DType otherDtype(DType d, SplittableRandom r) {
        DType[] all = DType.values();
        return all[(d.ordinal() + 1 + r.nextInt(all.length - 1)) % all.length];
    }

    /** One axis of {@code s} changed: one more or less, zero, one, or doubled; a rank-0 shape gains an axis. */
    static Shape changeDim(Shape s, SplittableRandom r) {
        if (s.rank() == 0) {
            return Shape.of(1 + r.nextInt(3));
        }
        int axis = r.nextInt(s.rank());
        int d = s.dim(axis);
        int[] choices = {d + 1, Math.max(0, d - 1), 0, 1, 2 * d + 1};
        int nd = choices[r.nextInt(choices.length)];
        return nd == d ? s.withDim(axis, d + 1) : s.withDim(axis, nd);
    }

    /** {@code s} with an extent-1 axis inserted, or one axis dropped. */
    static Shape changeRank(Shape s, SplittableRandom r) {
        List<Integer> dims = new ArrayList<>(s.dims());
        if (dims.isEmpty() || (r.nextBoolean() && dims.size() < Shape.MAX_RANK)) {
            dims.add(r.nextInt(dims.size() + 1), 1);
        } else {
            dims.remove(r.nextInt(dims.size()));
        }
        return new Shape(dims);
    }

    static Shape blockOf(AccessPattern p) {
        return switch (p) {
            case AccessPattern.Block b -> b.block();
            case AccessPattern.Streamed s -> s.block();
            case AccessPattern.Indirect i -> i.block();
        };
    }

    static AccessPattern withBlock(AccessPattern p, Shape block) {
        return switch (p) {
            case AccessPattern.Block b -> new AccessPattern.Block(b.origin(), block);
            case AccessPattern.Streamed s -> new AccessPattern.Streamed(s.origin(), block, s.axis(), s.stride());
            case AccessPattern.Indirect i -> new AccessPattern.Indirect(i.indexBuffer(), i.origin(), block);
        };
    }

    static AccessPattern withOrigin(AccessPattern p, List<Offset> origin) {
        return switch (p) {
            case AccessPattern.Block b -> new AccessPattern.Block(origin, b.block());
            case AccessPattern.Streamed s -> new AccessPattern.Streamed(origin, s.block(), s.axis(), s.stride());
            case AccessPattern.Indirect i -> new AccessPattern.Indirect(i.indexBuffer(), origin, i.block());
        };
    }

    /** The pattern of a Load or Store, else null. */
    static AccessPattern patternOf(StageKind k) {
        return switch (k) {
            case StageKind.Load l -> l.pattern();
            case StageKind.Store s -> s.pattern();
            case StageKind.Recv rv -> null;
            case StageKind.AllReduce a -> null;
            case StageKind.Compute c -> null;
            case StageKind.Scalar sc -> null;
        };
    }

    /** A Load or Store with its pattern replaced (any other kind unchanged). */
    static StageKind withPattern(StageKind k, AccessPattern p) {
        return switch (k) {
            case StageKind.Load l -> new StageKind.Load(l.tensor(), p, l.numBlocks(), l.multicast());
            case StageKind.Store s -> new StageKind.Store(s.tensor(), p, s.subRows(), s.subCols());
            case StageKind.Recv rv -> rv;
            case StageKind.AllReduce a -> a;
            case StageKind.Compute c -> c;
            case StageKind.Scalar sc -> sc;
        };
    }

    /** Indices of the stages satisfying {@code test}. */
    static List<Integer> stagesWhere(Program p, java.util.function.Predicate<Stage> test) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < p.stages().size(); i++) {
            if (test.test(p.stages().get(i))) {
                out.add(i);
            }
        }
        return out;
    }
}
