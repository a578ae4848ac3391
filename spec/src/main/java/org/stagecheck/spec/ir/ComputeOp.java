package org.stagecheck.spec.ir;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/** The operation of a {@code Compute} stage (brief, "Stages"). */
public sealed interface ComputeOp {

    /** An N-ary elementwise expression over the inputs, broadcast numpy-style to the output. */
    record Generic(Expr expr) implements ComputeOp {
        public Generic {
            Objects.requireNonNull(expr, "expr");
        }
    }

    /**
     * {@code out = op(A) x op(B) (+ bias)}, with {@code A = ins[0]}, {@code B = ins[1]} and op the
     * optional transpose. {@code bias} (nullable) names a buffer broadcast to the output and
     * added once after the accumulation. {@code spill} (nullable) names the f32 accumulator
     * buffer of the output's shape: when present the accumulation starts from its value, the sum
     * is written back to it, and the output is that sum plus the bias, so a contraction streamed
     * over several stages accumulates in f32 whatever the output dtype.
     */
    record MatMul(boolean transposeA, boolean transposeB, String bias, String spill) implements ComputeOp {
        public static MatMul plain() {
            return new MatMul(false, false, null, null);
        }
    }

    /** {@code fn} along {@code axis}; the output keeps the axis with extent 1. */
    record Reduce(ReduceFn fn, int axis) implements ComputeOp {
        public Reduce {
            Objects.requireNonNull(fn, "fn");
        }
    }

    /** The input's elements in row-major order, in the output buffer's shape. */
    record Reshape() implements ComputeOp {}

    /** Output axis {@code i} is input axis {@code perm[i]}. */
    record Transpose(List<Integer> perm) implements ComputeOp {
        public Transpose {
            perm = List.copyOf(perm);
        }
    }

    /** The window of the input starting at {@code starts}, in the output buffer's shape. */
    record Slice(List<Integer> starts) implements ComputeOp {
        public Slice {
            starts = List.copyOf(starts);
        }
    }

    /** The inputs laid end to end along {@code axis}, in port order. */
    record Concat(int axis) implements ComputeOp {}

    /** Buffers the op names beyond the stage's ports, with the field that names each. */
    default List<InternalRef> internalRefs() {
        if (!(this instanceof MatMul m) || m.bias() == null && m.spill() == null) {
            return List.of(); // the usual case, asked per stage by every check: no list made
        }
        List<InternalRef> out = new ArrayList<>();
        if (m.bias() != null) {
            out.add(new InternalRef(InternalRef.Role.BIAS, "bias", m.bias()));
        }
        if (m.spill() != null) {
            out.add(new InternalRef(InternalRef.Role.SPILL, "spill", m.spill()));
        }
        return out;
    }

    default ComputeOp remapBuffers(UnaryOperator<String> map) {
        return switch (this) {
            case MatMul m -> new MatMul(m.transposeA(), m.transposeB(),
                    m.bias() == null ? null : map.apply(m.bias()),
                    m.spill() == null ? null : map.apply(m.spill()));
            case Generic g -> g;
            case Reduce r -> r;
            case Reshape r -> r;
            case Transpose t -> t;
            case Slice s -> s;
            case Concat c -> c;
        };
    }
}
