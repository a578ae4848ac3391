package org.stagecheck.spec.rules;

import java.util.ArrayList;
import java.util.List;

import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * The shape and dtype rules of the data moves (brief, "Stages": {@code Load}, {@code Store},
 * {@code Recv}; docs/semantics.md): a move copies bits, so its buffer has the dtype of what it
 * moves and the shape its pattern selects. The validator reports these on the declarations; the
 * evaluator holds each move to the same rules, so the language has one definition. The caller
 * derives the selected shape from the pattern (the validator from the declarations, the evaluator
 * from the resolved region; both give the pattern's buffer shape).
 */
public final class MoveRules {
    private MoveRules() {
    }

    /**
     * A Load of {@code numBlocks} block(s) of {@code tensor}, selecting a buffer of shape
     * {@code selected} (null when the pattern is too malformed to say), into {@code out}
     * ({@link Rule#LOAD_SHAPE}, {@link Rule#DTYPE_MISMATCH}).
     */
    public static List<Violation> load(TensorDecl tensor, int numBlocks, Shape selected, BufferDecl out) {
        List<Violation> v = new ArrayList<>(0);
        if (selected != null && !selected.equals(out.shape())) {
            v.add(new Violation(Rule.LOAD_SHAPE, "outs/0", out.name(), "loads " + numBlocks + " block(s) of shape " + selected
                    + " but buffer '" + out.name() + "' has shape " + out.shape()));
        }
        if (tensor.dtype() != out.dtype()) {
            v.add(new Violation(Rule.DTYPE_MISMATCH, "outs/0", out.name(), "loads " + tensor.dtype() + " tensor '" + tensor.name()
                    + "' into " + out.dtype() + " buffer '" + out.name() + "'"));
        }
        return v;
    }

    /**
     * A Store of {@code in} into a region of {@code tensor} of shape {@code region} (null when the
     * pattern is too malformed to say) ({@link Rule#STORE_SHAPE}, {@link Rule#DTYPE_MISMATCH}).
     */
    public static List<Violation> store(BufferDecl in, Shape region, TensorDecl tensor) {
        List<Violation> v = new ArrayList<>(0);
        if (region != null && !region.equals(in.shape())) {
            v.add(new Violation(Rule.STORE_SHAPE, "ins/0", in.name(), "stores buffer '" + in.name() + "' of shape " + in.shape()
                    + " into a region of shape " + region));
        }
        if (tensor.dtype() != in.dtype()) {
            v.add(new Violation(Rule.DTYPE_MISMATCH, "ins/0", in.name(), "stores " + in.dtype() + " buffer '" + in.name()
                    + "' into " + tensor.dtype() + " tensor '" + tensor.name() + "'"));
        }
        return v;
    }

    /**
     * A Recv from {@code group}, whose sender last multicast a {@code sentDtype}{@code sentShape}
     * value, into {@code out} ({@link Rule#RECV_SHAPE}).
     */
    public static List<Violation> recv(String group, DType sentDtype, Shape sentShape, BufferDecl out) {
        if (sentShape.equals(out.shape()) && sentDtype == out.dtype()) {
            return List.of();
        }
        return List.of(new Violation(Rule.RECV_SHAPE, "outs/0", out.name(), "receives " + sentDtype + sentShape + " from group '"
                + group + "' into " + out.dtype() + out.shape() + " buffer '" + out.name() + "'"));
    }
}
