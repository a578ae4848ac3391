package org.stagecheck.cuda.runtime;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/** Tensors to and from the little-endian element bytes that device memory holds. */
final class TensorBytes {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort B16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private TensorBytes() {
    }

    static MemorySegment of(Tensor t) {
        return MemorySegment.ofArray(t.littleEndianBytes());
    }

    /** The tensor of {@code dtype} and {@code shape} whose elements {@code bytes} holds. */
    static Tensor from(DType dtype, Shape shape, MemorySegment bytes) {
        int n = (int) shape.elementCount();
        return switch (dtype) {
            case F32 -> {
                float[] v = new float[n];
                MemorySegment.copy(bytes, F32, 0, v, 0, n);
                yield Tensor.wrapFloats(shape, v);
            }
            case BF16, F16 -> {
                short[] v = new short[n];
                MemorySegment.copy(bytes, B16, 0, v, 0, n);
                yield Tensor.wrapBits16(dtype, shape, v);
            }
            case E4M3, E5M2 -> {
                byte[] v = new byte[n];
                MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, 0, v, 0, n);
                yield Tensor.wrapBits8(dtype, shape, v);
            }
            case I32 -> {
                int[] v = new int[n];
                MemorySegment.copy(bytes, I32, 0, v, 0, n);
                yield Tensor.wrapInts(shape, v);
            }
        };
    }
}
