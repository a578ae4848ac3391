package org.stagecheck.spec.ir;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/** What a stage does (brief, "Stages"). Every evaluator, checker and lowering switches over it. */
public sealed interface StageKind {

    /**
     * Read {@code numBlocks} blocks of {@code tensor} chosen by {@code pattern} into output port 0.
     * With a {@code multicast} group (nullable) the stage runs on the group's sender and the same
     * data is also delivered to every receiver of the group, each of which takes it with a
     * {@link Recv}.
     */
    record Load(String tensor, AccessPattern pattern, int numBlocks, String multicast) implements StageKind {
        public Load {
            Objects.requireNonNull(tensor, "tensor");
            Objects.requireNonNull(pattern, "pattern");
            if (numBlocks < 1) {
                throw new IllegalArgumentException("a Load reads at least one block, not " + numBlocks);
            }
        }
    }

    /**
     * Write input port 0 into the region of {@code tensor} chosen by {@code pattern}, as
     * {@code subRows x subCols} sub-blocks of the last two axes, which must tile each block
     * exactly. Sub-blocks are written in row-major order of their positions.
     */
    record Store(String tensor, AccessPattern pattern, int subRows, int subCols) implements StageKind {
        public Store {
            Objects.requireNonNull(tensor, "tensor");
            Objects.requireNonNull(pattern, "pattern");
            if (subRows < 1 || subCols < 1) {
                throw new IllegalArgumentException("sub-blocks are at least 1x1");
            }
        }
    }

    /** The receiver side of multicast {@code group}: output port 0 is filled by its sender. */
    record Recv(String group) implements StageKind {
        public Recv {
            Objects.requireNonNull(group, "group");
        }
    }

    /**
     * Cross-chip reduction: every input is a partial of logical tensor {@code tensor} held on a
     * different chip; {@code combine} is the N-ary elementwise fold of {@code pool} over them
     * (a {@code Generic} op); every output receives the combined value. The member chips are
     * derived from the input buffers' sites, never stored.
     */
    record AllReduce(ReducePool pool, String tensor, ComputeOp.Generic combine) implements StageKind {
        public AllReduce {
            Objects.requireNonNull(pool, "pool");
            Objects.requireNonNull(tensor, "tensor");
            Objects.requireNonNull(combine, "combine");
        }

        /** The all-reduce of {@code operands} partials with its canonical combine. */
        public static AllReduce of(ReducePool pool, String tensor, int operands) {
            return new AllReduce(pool, tensor, new ComputeOp.Generic(pool.fold(operands)));
        }
    }

    /** An operation on buffers already on the core. */
    record Compute(ComputeOp op) implements StageKind {
        public Compute {
            Objects.requireNonNull(op, "op");
        }
    }

    /** A small scalar program on the core's scalar unit. */
    record Scalar(ScalarBody body) implements StageKind {
        public Scalar {
            Objects.requireNonNull(body, "body");
        }
    }

    /** The stage's role on its site, derived from the kind. */
    default Role role() {
        return switch (this) {
            case Load l -> Role.READ_IN;
            case Recv r -> Role.READ_IN;
            case Store s -> Role.WRITE_OUT;
            case AllReduce a -> Role.LINK;
            case Compute c -> Role.COMPUTE;
            case Scalar s -> Role.COMPUTE;
        };
    }

    /** The JSON tag of the kind. */
    default String tag() {
        return switch (this) {
            case Load l -> "Load";
            case Store s -> "Store";
            case Recv r -> "Recv";
            case AllReduce a -> "AllReduce";
            case Compute c -> "Compute";
            case Scalar s -> "Scalar";
        };
    }

    /** Buffers the kind names beyond the ports, with the field that names each. */
    default List<InternalRef> internalRefs() {
        return switch (this) {
            case Load l -> patternRefs(l.pattern());
            case Store s -> patternRefs(s.pattern());
            case Compute c -> {
                List<InternalRef> refs = c.op().internalRefs();
                // most ops name no buffer beyond their ports: no stream for those (this runs per stage, per check)
                yield refs.isEmpty() ? List.of() : refs.stream().map(r -> new InternalRef(r.role(), "op/" + r.field(), r.buffer())).toList();
            }
            case Recv r -> List.of();
            case AllReduce a -> List.of();
            case Scalar s -> List.of();
        };
    }

    private static List<InternalRef> patternRefs(AccessPattern p) {
        if (!(p instanceof AccessPattern.Indirect) && constantOrigin(p)) {
            return List.of(); // the usual case, asked per stage by every check: no list made
        }
        List<InternalRef> out = new ArrayList<>();
        if (p instanceof AccessPattern.Indirect ind) {
            out.add(new InternalRef(InternalRef.Role.INDEX_BUFFER, "pattern/indexBuffer", ind.indexBuffer()));
        }
        List<Offset> origin = p.originOffsets();
        for (int i = 0; i < origin.size(); i++) {
            for (String b : origin.get(i).buffers()) {
                out.add(new InternalRef(InternalRef.Role.OFFSET_TERM, "pattern/origin/" + i, b));
            }
        }
        return out;
    }

    private static boolean constantOrigin(AccessPattern p) {
        for (Offset o : p.originOffsets()) {
            if (!o.buffers().isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** The same kind with every kind-internal buffer reference renamed by {@code map}. */
    default StageKind remapBuffers(UnaryOperator<String> map) {
        return switch (this) {
            case Load l -> new Load(l.tensor(), l.pattern().remapBuffers(map), l.numBlocks(), l.multicast());
            case Store s -> new Store(s.tensor(), s.pattern().remapBuffers(map), s.subRows(), s.subCols());
            case Compute c -> new Compute(c.op().remapBuffers(map));
            case Recv r -> r;
            case AllReduce a -> a;
            case Scalar s -> s;
        };
    }
}
