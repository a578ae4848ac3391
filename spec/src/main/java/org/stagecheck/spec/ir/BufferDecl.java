package org.stagecheck.spec.ir;

import java.util.Objects;

/** A buffer in the local memory of one core; stages read and write buffers. */
public record BufferDecl(String name, DType dtype, Shape shape, Site site) {
    public BufferDecl {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(site, "site");
    }

    public BufferDecl withName(String newName) {
        return new BufferDecl(newName, dtype, shape, site);
    }
}
