package org.stagecheck.spec.ir;

import java.util.Objects;

/**
 * A runtime parameter of a program: an i32 scalar such as the decode position, bound per run,
 * with the closed range {@code [min, max]} that every run promises to stay in. The validator
 * proves that blocks chosen by parameter-dependent offsets fit their tensors for every value in
 * that range.
 */
public record Param(String name, long min, long max) {
    public Param {
        Objects.requireNonNull(name, "name");
        if (min > max) {
            throw new IllegalArgumentException("parameter " + name + " has min " + min + " above max " + max);
        }
        if (min < Integer.MIN_VALUE || max > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("parameter " + name + " is an i32; its range must fit in 32 bits");
        }
    }
}
