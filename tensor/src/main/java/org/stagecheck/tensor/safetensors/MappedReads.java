package org.stagecheck.tensor.safetensors;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * Copies a tensor out of a mapped region ({@code data}, the tensor's first byte at {@code at}): one bulk little-endian copy into a new array, or,
 * transposed, row strips copied in bulk into a small buffer and scattered in cache-sized blocks;
 * or only a block of a matrix's rows and columns, either way.
 */
final class MappedReads {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort B16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** Rows per strip and columns per block of the transpose: a 64x64 tile of shorts is 8 KiB. */
    private static final int TILE = 64;

    private MappedReads() {
    }

    static Tensor copy(String file, MemorySegment data, long at, SafetensorsEntry e, Shape shape) throws TensorFileException {
        int n = (int) e.elementCount();
        DType dtype = e.dtype();
        try {
            return switch (dtype) {
                case F32 -> {
                    float[] v = new float[n];
                    MemorySegment.copy(data, F32, at, v, 0, n);
                    yield Tensor.wrapFloats(shape, v);
                }
                case BF16, F16 -> {
                    short[] v = new short[n];
                    MemorySegment.copy(data, B16, at, v, 0, n);
                    yield Tensor.wrapBits16(dtype, shape, v);
                }
                case I32, E4M3, E5M2 -> throw new IllegalStateException("safetensors dtype " + e.dtypeName() + " is not read as " + dtype);
            };
        } catch (InternalError fault) {
            throw faulted(file, e, fault);
        }
    }

    static Tensor copyTransposed(String file, MemorySegment data, long at, SafetensorsEntry e, Shape stored) throws TensorFileException {
        return copyBlock(file, data, at, e, stored, 0, stored.dim(0), 0, stored.dim(1), true);
    }

    /**
     * Rows {@code [r0, r1)} and columns {@code [c0, c1)} of the rank-2 tensor stored {@code stored},
     * as {@code [r1 - r0, c1 - c0]}, or transposed as {@code [c1 - c0, r1 - r0]}: only those elements
     * are read. Each stored row's part is one bulk copy; transposed, strips of {@link #TILE} rows are
     * copied into a small buffer and scattered in blocks of {@link #TILE} columns.
     */
    static Tensor copyBlock(String file, MemorySegment data, long at, SafetensorsEntry e, Shape stored, int r0, int r1, int c0, int c1,
                            boolean transposed) throws TensorFileException {
        int cols = stored.dim(1);
        int h = r1 - r0;
        int w = c1 - c0;
        Shape shape = transposed ? Shape.of(w, h) : Shape.of(h, w);
        int n = h * w;
        DType dtype = e.dtype();
        try {
            return switch (dtype) {
                case F32 -> {
                    float[] out = new float[n];
                    if (!transposed) {
                        for (int r = r0; r < r1; r++) {
                            MemorySegment.copy(data, F32, at + 4L * ((long) r * cols + c0), out, (r - r0) * w, w);
                        }
                    } else {
                        float[] strip = new float[Math.min(TILE, h) * w];
                        for (int s0 = 0; s0 < h; s0 += TILE) {
                            int sh = Math.min(TILE, h - s0);
                            for (int i = 0; i < sh; i++) {
                                MemorySegment.copy(data, F32, at + 4L * ((long) (r0 + s0 + i) * cols + c0), strip, i * w, w);
                            }
                            for (int b0 = 0; b0 < w; b0 += TILE) {
                                int bEnd = Math.min(w, b0 + TILE);
                                for (int c = b0; c < bEnd; c++) {
                                    int to = c * h + s0;
                                    for (int i = 0; i < sh; i++) {
                                        out[to + i] = strip[i * w + c];
                                    }
                                }
                            }
                        }
                    }
                    yield Tensor.wrapFloats(shape, out);
                }
                case BF16, F16 -> {
                    short[] out = new short[n];
                    if (!transposed) {
                        for (int r = r0; r < r1; r++) {
                            MemorySegment.copy(data, B16, at + 2L * ((long) r * cols + c0), out, (r - r0) * w, w);
                        }
                    } else {
                        short[] strip = new short[Math.min(TILE, h) * w];
                        for (int s0 = 0; s0 < h; s0 += TILE) {
                            int sh = Math.min(TILE, h - s0);
                            for (int i = 0; i < sh; i++) {
                                MemorySegment.copy(data, B16, at + 2L * ((long) (r0 + s0 + i) * cols + c0), strip, i * w, w);
                            }
                            for (int b0 = 0; b0 < w; b0 += TILE) {
                                int bEnd = Math.min(w, b0 + TILE);
                                for (int c = b0; c < bEnd; c++) {
                                    int to = c * h + s0;
                                    for (int i = 0; i < sh; i++) {
                                        out[to + i] = strip[i * w + c];
                                    }
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
