package org.stagecheck.author.model;

/**
 * Where a bound tensor of an authored program comes from: logical tensor {@code logical}
 * (a model weight or an unsplit input/state), whole when {@code axis < 0}, else its slice
 * {@code [start, end)} along {@code axis}. On one chip every binding is whole; split over chips,
 * replicated tensors are whole copies and sharded ones are slices.
 */
public record Binding(String logical, int axis, int start, int end) {
    public static Binding whole(String logical) {
        return new Binding(logical, -1, 0, 0);
    }

    public boolean isWhole() {
        return axis < 0;
    }
}
