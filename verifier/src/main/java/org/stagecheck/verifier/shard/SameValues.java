package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * Which buffers hold bit for bit the same values (docs/verifier.md, "Vocabulary-parallel arg-max").
 * Terms do not model rounding: a buffer rounded to bf16 and widened back holds the term of its
 * source, but not its values. An arg-max and the maximum it is compared with must be taken over
 * the same values, so this follows a value id per buffer: every write makes a new one, except an
 * exact copy (a {@code Generic} {@code in0} into a buffer of the same shape whose dtype holds
 * every value of its input's dtype), which keeps its input's. It also records what a max reduce, and a max all-reduce, took
 * the maximum of, when its output dtype holds that maximum exactly (a maximum is one of its
 * operands, so it is exact whenever the output can hold every operand).
 *
 * <p>One map update per buffer written: O(1) per stage.
 */
final class SameValues {
    /** No value known (a buffer read before any write): equal to nothing. */
    static final int UNKNOWN = -1;

    /** A max all-reduce's operands (value ids, in port order) at stage {@code stageIndex}. */
    record AllMax(int stageIndex, List<Integer> operands, List<String> buffers) {}

    private final Map<String, Integer> ids = new HashMap<>();
    /** By the value id of a max reduce's output: the value id of its input. */
    private final Map<Integer, Integer> maxOf = new HashMap<>();
    /** By the value id of a max all-reduce's output: its operands. */
    private final Map<Integer, AllMax> allMax = new HashMap<>();
    private final Map<String, DType> dtypes = new HashMap<>();
    private final Map<String, Shape> shapes = new HashMap<>();
    private int next;

    SameValues(List<BufferDecl> buffers) {
        for (BufferDecl b : buffers) {
            dtypes.put(b.name(), b.dtype());
            shapes.put(b.name(), b.shape());
        }
    }

    /** The value id buffer {@code b} holds now. */
    int id(String b) {
        Integer id = b == null ? null : ids.get(b);
        return id == null ? UNKNOWN : id;
    }

    /** The value id whose maximum (a max reduce, exact in its dtype) {@code id} is, or {@link #UNKNOWN}. */
    int maxOf(int id) {
        Integer of = maxOf.get(id);
        return of == null ? UNKNOWN : of;
    }

    /** The max all-reduce (exact in its output's dtype) whose output {@code id} is, or null. */
    AllMax allMax(int id) {
        return allMax.get(id);
    }

    /** Records what stage {@code s} (at {@code stageIndex}) wrote. */
    void written(Stage s, int stageIndex) {
        if (s.outs().isEmpty()) {
            return;
        }
        String in = s.ins().isEmpty() ? null : s.ins().getFirst();
        if (s.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Generic g && g.expr() instanceof Expr.In i && i.index() == 0
                && s.ins().size() == 1 && s.outs().size() == 1 && holds(s.outs().getFirst(), in) && id(in) != UNKNOWN
                && Objects.equals(shapes.get(in), shapes.get(s.outs().getFirst()))) {
            ids.put(s.outs().getFirst(), id(in)); // an exact copy: the same values
            return;
        }
        AllMax combined = null;
        if (s.kind() instanceof StageKind.AllReduce a && a.pool() == ReducePool.MAX) {
            boolean exact = true;
            List<Integer> operands = new ArrayList<>(s.ins().size());
            for (String b : s.ins()) {
                operands.add(id(b));
                for (String o : s.outs()) {
                    exact &= holds(o, b);
                }
            }
            combined = exact ? new AllMax(stageIndex, List.copyOf(operands), List.copyOf(s.ins())) : null;
        }
        boolean max = s.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Reduce r && r.fn() == ReduceFn.MAX
                && s.outs().size() == 1 && holds(s.outs().getFirst(), in) && id(in) != UNKNOWN;
        for (String o : s.outs()) {
            int id = next++;
            ids.put(o, id);
            if (max) {
                maxOf.put(id, id(in));
            }
            if (combined != null) {
                allMax.put(id, combined);
            }
        }
    }

    /**
     * Whether buffer {@code out}'s dtype holds every value of buffer {@code in}'s exactly: the same
     * dtype, or floats where {@code in}'s format loses at least what {@code out}'s does in bits,
     * range and subnormals ({@link Precision#covers}), which is its values being among the other's.
     */
    private boolean holds(String out, String in) {
        DType o = dtypes.get(out);
        DType i = in == null ? null : dtypes.get(in);
        if (o == null || i == null) {
            return false;
        }
        return o == i || o.isFloating() && i.isFloating() && Precision.covers(i, o);
    }
}
