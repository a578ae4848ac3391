package org.stagecheck.spec.cert;

import java.util.Objects;

/**
 * A claim that weight tensor {@code tensor} holds elements {@code [start, end)} along axis
 * {@code axis} (its contraction axis) of logical tensor {@code logical}, whose full extent on that
 * axis is {@code extent}: e.g. chip 1 holds rows [512,1024) of {@code w_o}. The checker derives
 * Full/Partial facts from these claims and checks that every reduce covers the axis exactly.
 *
 * <p>On an input or weight tensor the declaration says what a Load of it holds (a shard). On a
 * scratch or output tensor it declares that tensor partial: it may receive exactly the partial of
 * {@code logical} over slice {@code [start, end)}, which any other Store of a partial may not.
 */
public record ShardDecl(String tensor, String logical, int axis, long start, long end, long extent) {
    public ShardDecl {
        Objects.requireNonNull(tensor, "tensor");
        Objects.requireNonNull(logical, "logical");
        if (axis < 0) {
            throw new IllegalArgumentException("a shard axis cannot be negative");
        }
        if (start < 0 || end <= start || end > extent) {
            throw new IllegalArgumentException("a shard is a non-empty slice [start, end) within [0, extent), not [" + start + ", " + end + ") of " + extent);
        }
    }
}
