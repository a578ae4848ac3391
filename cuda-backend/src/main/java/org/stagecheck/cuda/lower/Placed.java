package org.stagecheck.cuda.lower;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * One region of a chip's device allocation: a DRAM tensor, a core buffer, a multicast delivery
 * slot or a staging area, at byte {@code offset} of chip {@code chip}'s allocation.
 *
 * @param what a short description for comments in the generated source, e.g. {@code buffer 'x'}
 */
public record Placed(String what, int chip, long offset, DType dtype, Shape shape) {
    public long elements() {
        return shape.elementCount();
    }

    public long bytes() {
        return elements() * dtype.byteSize();
    }

    /** The C element type of the region's storage. */
    public String cType() {
        return CText.cType(dtype);
    }

    /** A C expression for a typed pointer to the region. */
    public String pointer(boolean writable) {
        String t = cType();
        return "(" + (writable ? "" : "const ") + t + "*)(chip" + chip + " + " + offset + ")";
    }

    /** {@code what dtype shape (chip c)} for comments. */
    public String describe() {
        return what + " " + dtype + " " + shape + " (chip " + chip + ")";
    }
}
