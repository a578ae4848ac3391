package org.stagecheck.tensor.safetensors;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * Copies a tensor out of a mapped data region: one bulk little-endian copy into a new array, or,
 * transposed, row strips copied in bulk into a small buffer and scattered in cache-sized blocks.
 */
final class MappedReads {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort B16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Rows per strip and columns per block of the transpose: a 64x64 tile of shorts is 8 KiB. */
    private static final int TILE = 64;

    private MappedReads() {
    }

    static Tensor copy(String file, MemorySegment data, SafetensorsEntry e, Shape shape) throws TensorFileException {
        int n = (int) e.elementCount();
        DType dtype = e.dtype();
        try {
            return switch (dtype) {
                case F32 -> {
                    float[] v = new float[n];
                    MemorySegment.copy(data, F32, e.begin(), v, 0, n);
                    yield Tensor.wrapFloats(shape, v);
                }
                case BF16, F16 -> {
                    short[] v = new short[n];
                    MemorySegment.copy(data, B16, e.begin(), v, 0, n);
                    yield Tensor.wrapBits16(dtype, shape, v);
                }
                case I32, E4M3, E5M2 -> throw new IllegalStateException("safetensors dtype " + e.dtypeName() + " is not read as " + dtype);
            };
        } catch (InternalError fault) {
            throw faulted(file, e, fault);
        }
    }

    static Tensor copyTransposed(String file, MemorySegment data, SafetensorsEntry e, Shape stored) throws TensorFileException {
        int rows = stored.dim(0);
        int cols = stored.dim(1);
        Shape shape = Shape.of(cols, rows);
        int n = (int) e.elementCount();
        DType dtype = e.dtype();
        try {
            return switch (dtype) {
                case F32 -> {
                    float[] out = new float[n];
                    float[] strip = new float[Math.min(TILE, rows) * cols];
                    for (int r0 = 0; r0 < rows; r0 += TILE) {
                        int h = Math.min(TILE, rows - r0);
                        MemorySegment.copy(data, F32, e.begin() + 4L * r0 * cols, strip, 0, h * cols);
                        for (int c0 = 0; c0 < cols; c0 += TILE) {
                            int cEnd = Math.min(cols, c0 + TILE);
                            for (int c = c0; c < cEnd; c++) {
                                int to = c * rows + r0;
                                for (int i = 0; i < h; i++) {
                                    out[to + i] = strip[i * cols + c];
                                }
                            }
                        }
                    }
                    yield Tensor.wrapFloats(shape, out);
                }
                case BF16, F16 -> {
                    short[] out = new short[n];
                    short[] strip = new short[Math.min(TILE, rows) * cols];
                    for (int r0 = 0; r0 < rows; r0 += TILE) {
                        int h = Math.min(TILE, rows - r0);
                        MemorySegment.copy(data, B16, e.begin() + 2L * r0 * cols, strip, 0, h * cols);
                        for (int c0 = 0; c0 < cols; c0 += TILE) {
                            int cEnd = Math.min(cols, c0 + TILE);
                            for (int c = c0; c < cEnd; c++) {
                                int to = c * rows + r0;
                                for (int i = 0; i < h; i++) {
                                    out[to + i] = strip[i * cols + c];
                                }
                            }
                        }
                    }
                    yield Tensor.wrapBits16(dtype, shape, out);
                }
                case I32, E4M3, E5M2 -> throw new IllegalStateException("safetensors dtype " + e.dtypeName() + " is not read as " + dtype);
            };
        } catch (InternalError fault) {
            throw faulted(file, e, fault);
        }
    }

    /** The JVM reports a page of a mapping that is gone (the file shrank under it) as an InternalError. */
    private static TensorFileException faulted(String file, SafetensorsEntry e, InternalError fault) {
        return new TensorFileException(file + ": tensor '" + e.name() + "' could not be read from the mapped file (did the file change while it was read?): "
                + fault.getMessage(), fault);
    }
}
