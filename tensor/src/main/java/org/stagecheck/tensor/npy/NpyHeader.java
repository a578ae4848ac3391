package org.stagecheck.tensor.npy;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * What a .npy file's header says, read without its data: enough to compare the file with the
 * tensor a program declares before reading gigabytes ({@link Npy#readHeader}).
 *
 * @param dtype     the stagecheck dtype the descr maps to (f32 for {@code <f8})
 * @param float64   true for {@code <f8}: float64-mode values, bound only in a float64 run
 * @param shape     the array's shape
 * @param dataBytes the size of the data that follows the header
 */
public record NpyHeader(DType dtype, boolean float64, Shape shape, long dataBytes) {
    /** E.g. {@code f32[2, 3]} or {@code float64[2, 3]}. */
    public String describe() {
        return (float64 ? "float64" : dtype.toString()) + shape;
    }
}
