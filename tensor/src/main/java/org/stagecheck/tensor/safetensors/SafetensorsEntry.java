package org.stagecheck.tensor.safetensors;

import java.util.List;

import org.stagecheck.spec.ir.DType;

/**
 * One tensor of a safetensors header: its name, dtype name as written ({@code "BF16"}), shape as
 * stored (torch's {@code [out, in]} for a linear weight) and byte range {@code [begin, end)}
 * relative to the start of the data region. The header was checked when the file opened: the
 * dtype name is one the format defines, {@code end - begin} is the element count times the
 * element size, and the range lies inside the data region.
 */
public record SafetensorsEntry(String name, String dtypeName, List<Long> shape, long begin, long end) {
    public SafetensorsEntry {
        shape = List.copyOf(shape);
    }

    /** The stagecheck dtype {@link SafetensorsFile#read} gives (F32, BF16 or F16), or null when it refuses this tensor's dtype. */
    public DType dtype() {
        return SafetensorsDTypes.readable(dtypeName);
    }

    public int rank() {
        return shape.size();
    }

    /** The product of the dimensions (1 for a scalar); checked not to overflow when the header was read. */
    public long elementCount() {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    public long byteLength() {
        return end - begin;
    }

    /** The shape as a {@code long[]} (a copy). */
    public long[] dims() {
        long[] d = new long[shape.size()];
        for (int i = 0; i < d.length; i++) {
            d[i] = shape.get(i);
        }
        return d;
    }
}
