package org.stagecheck.spec.gen;

import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * The kinds of stage a generator can be restricted to (brief, "Stages"): the six stage kinds, with
 * {@code Compute} split into its seven ops, since a pass under test usually cares about one op (a
 * fusion of {@code Generic} stages, a layout pass over transposes), not about "compute" as a whole.
 */
public enum KindName {
    LOAD, STORE, RECV, ALL_REDUCE, SCALAR,
    GENERIC, MAT_MUL, REDUCE, RESHAPE, TRANSPOSE, SLICE, CONCAT;

    /** The name of a stage's kind, with a Compute's op. */
    public static KindName of(Stage stage) {
        return of(stage.kind());
    }

    /** The name of {@code kind}, with a Compute's op. */
    public static KindName of(StageKind kind) {
        return switch (kind) {
            case StageKind.Load l -> LOAD;
            case StageKind.Store s -> STORE;
            case StageKind.Recv r -> RECV;
            case StageKind.AllReduce a -> ALL_REDUCE;
            case StageKind.Scalar s -> SCALAR;
            case StageKind.Compute c -> switch (c.op()) {
                case ComputeOp.Generic g -> GENERIC;
                case ComputeOp.MatMul m -> MAT_MUL;
                case ComputeOp.Reduce r -> REDUCE;
                case ComputeOp.Reshape r -> RESHAPE;
                case ComputeOp.Transpose t -> TRANSPOSE;
                case ComputeOp.Slice s -> SLICE;
                case ComputeOp.Concat c2 -> CONCAT;
            };
        };
    }
}
