package org.stagecheck.tensor.safetensors;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * A tensor a {@link SafetensorsWriter} is to write, declared before its data exists: name, dtype
 * (F32, BF16 or F16) and the shape as stored ({@code [out, in]} for a torch linear weight).
 */
public record TensorSpec(String name, DType dtype, Shape shape) {
    public TensorSpec {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a safetensors tensor needs a non-empty name");
        }
        if (name.equals(HeaderParser.METADATA)) {
            throw new IllegalArgumentException("'" + HeaderParser.METADATA + "' is the header's metadata, not a tensor name");
        }
        SafetensorsDTypes.nameOf(dtype); // refuses the dtypes the format gets no F32/BF16/F16 name for
    }

    /** The bytes of its data. */
    public long byteLength() {
        return Math.multiplyExact(shape.elementCount(), (long) dtype.byteSize());
    }
}
