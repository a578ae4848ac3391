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
     * When {@code dir} holds a run's index {@value #INDEX} naming the program that was run, a case
     * recorded for another program is {@link CaseResult.Status#PROGRAM_DIFFERS}.
     */
    record FromDirectory(Path dir) implements Actuals {
        /** The index a run writes beside its outputs (an inputs manifest, with the program's hash). */
        public static final String INDEX = "tensors.json";
    }

    /** Values already in memory, by tensor name. */
    record FromTensors(Map<String, Tensor> tensors) implements Actuals {
        public FromTensors {
            tensors = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tensors));
        }
    }

    /** Where the values came from, as reports record it: only a backend can be run again. */
    enum Kind {
        /** A backend ran the case. */
        BACKEND,
        /** Files were read. */
        FILES,
        /** Tensors in memory were given. */
        TENSORS
    }

    /** This source's {@link Kind}. */
    default Kind kind() {
        return switch (this) {
            case FromBackend b -> Kind.BACKEND;
            case FromDirectory d -> Kind.FILES;
            case FromTensors t -> Kind.TENSORS;
        };
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
