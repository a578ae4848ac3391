package org.stagecheck.author;

import java.nio.file.Path;
import java.util.Objects;
import org.stagecheck.spec.ir.DType;

/**
 * Where a checkpoint model's weights are: a Hugging Face model directory (its safetensors files)
 * and the one dtype its weights are stored in (f32, bf16 or f16, used bit for bit).
 */
public record CheckpointSource(Path dir, DType dtype) {
    public CheckpointSource {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(dtype, "dtype");
        if (dtype != DType.F32 && dtype != DType.BF16 && dtype != DType.F16) {
            throw new IllegalArgumentException("checkpoint weights are f32, bf16 or f16, not " + dtype);
        }
        dir = dir.toAbsolutePath().normalize();
    }
}
