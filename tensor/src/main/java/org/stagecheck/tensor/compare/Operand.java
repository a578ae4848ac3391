package org.stagecheck.tensor.compare;

import java.nio.file.Path;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.NpyHeader;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * One side of a comparison (expected, actual or tolerance) and where its elements come from: a
 * tensor in memory, a .npy file that {@link Comparator#compare(Operand, Operand, Policy, Operand, int)}
 * reads range by range (never whole), or zeros. A comparison of files therefore needs memory for
 * its read buffers only, whatever the size of the tensors.
 */
public sealed interface Operand {
    DType dtype();

    Shape shape();

    /** Whether the elements are float64-mode values (kept as doubles whatever the nominal dtype). */
    boolean float64();

    default long size() {
        return shape().elementCount();
    }

    /** {@code t}, in memory. */
    static Operand of(Tensor t) {
        return new InMemory(t);
    }

    /** A tensor in memory: read where it lies, without a copy. */
    record InMemory(Tensor tensor) implements Operand {
        @Override
        public DType dtype() {
            return tensor.dtype();
        }

        @Override
        public Shape shape() {
            return tensor.shape();
        }

        @Override
        public boolean float64() {
            return tensor.isFloat64();
        }
    }

    /**
     * A .npy file whose header said {@code header} when it was opened; {@code declared} (or null)
     * tells its 8-bit float codes apart, as in {@link Npy#read(Path, DType)}. The header is
     * checked again when the comparison opens the file.
     */
    record NpyFile(Path path, DType declared, NpyHeader header) implements Operand {
        /** Reads and checks the header of {@code path}, not its data. */
        public static NpyFile open(Path path, DType declared) throws TensorFileException {
            return new NpyFile(path, declared, Npy.readHeader(path, declared));
        }

        @Override
        public DType dtype() {
            return header.dtype();
        }

        @Override
        public Shape shape() {
            return header.shape();
        }

        @Override
        public boolean float64() {
            return header.float64();
        }
    }

    /**
     * Zeros of {@code shape}, float64-mode of nominal dtype f32 (as
     * {@link Tensor#zerosFloat64}), without their storage: the derived tolerance of an integer
     * output, which is exact.
     */
    record Zeros(Shape shape) implements Operand {
        @Override
        public DType dtype() {
            return DType.F32;
        }

        @Override
        public boolean float64() {
            return true;
        }
    }
}
