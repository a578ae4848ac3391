package org.stagecheck.spec.ir;

import java.util.Objects;

/** A tensor in the DRAM of one chip (brief, "The machine model"). */
public record TensorDecl(String name, DType dtype, Shape shape, int chip, TensorRole role) {
    public TensorDecl {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(role, "role");
    }
}
