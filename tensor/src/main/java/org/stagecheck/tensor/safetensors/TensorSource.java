package org.stagecheck.tensor.safetensors;

import java.io.IOException;

import org.stagecheck.tensor.Tensor;

/**
 * Gives a {@link SafetensorsWriter} each tensor's values when it is about to be written, so that
 * a checkpoint larger than memory is written holding one tensor at a time.
 */
@FunctionalInterface
public interface TensorSource {
    /** The values of {@code spec}: a tensor of exactly its dtype and shape (not float64-mode). */
    Tensor tensor(TensorSpec spec) throws IOException;
}
