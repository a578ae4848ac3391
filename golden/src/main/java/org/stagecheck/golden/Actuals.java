package org.stagecheck.golden;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.stagecheck.backend.Backend;
import org.stagecheck.tensor.Tensor;

/** Where the values under test come from. */
public sealed interface Actuals {
    /** Run the case's program on {@code backend} with the case's inputs and parameters. */
    record FromBackend(Backend backend) implements Actuals {}

    /**
     * Read {@code dir/<tensor>.npy} per output (what {@code stagecheck run --out DIR} writes, or
     * any backend that writes numpy files), or else the expected file's own name in {@code dir}.
     */
    record FromDirectory(Path dir) implements Actuals {}

    /** Values already in memory, by tensor name. */
    record FromTensors(Map<String, Tensor> tensors) implements Actuals {
        public FromTensors {
            tensors = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tensors));
        }
    }

    /** A short description for reports. */
    default String describe() {
        return switch (this) {
            case FromBackend b -> b.backend().name();
            case FromDirectory d -> "files " + d.dir();
            case FromTensors t -> "tensors";
        };
    }
}
