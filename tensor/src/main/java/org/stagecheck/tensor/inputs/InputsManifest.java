package org.stagecheck.tensor.inputs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.InputsManifestCodec;

/**
 * {@code inputs.json} (docs/format.md, "Inputs manifest") resolved against its directory: which
 * file binds each tensor, and the parameter values of a run (read by the format package's
 * {@link InputsManifestCodec}). Every path is relative to the manifest's directory and must stay
 * inside it. A run's output directory has the same format as its index, {@code tensors.json}.
 */
public record InputsManifest(Map<String, Path> tensors, Map<String, Long> params,
                             org.stagecheck.spec.json.CheckpointRefs checkpoint) {
    public static final String FILE_NAME = org.stagecheck.spec.json.InputsManifest.FILE_NAME;

    public InputsManifest {
        tensors = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(tensors));
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /** Tensors from files only. */
    public InputsManifest(Map<String, Path> tensors, Map<String, Long> params) {
        this(tensors, params, null);
    }

    /** A manifest that names no file and no parameter: every tensor from its {@code <file name>.npy}. */
    public static InputsManifest empty() {
        return new InputsManifest(Map.of(), Map.of());
    }

    /** The manifest {@code inputs.json} of {@code inputs}, or an empty one when there is none. */
    public static InputsManifest readOrEmpty(InputsDir inputs) throws InputsException {
        return readOrEmpty(inputs, FILE_NAME);
    }

    /** The manifest {@code dir/fileName}, or an empty one when there is none; it must not lead out of {@code dir}. */
    public static InputsManifest readOrEmpty(InputsDir inputs, String fileName) throws InputsException {
        Path dir = inputs.dir();
        Path file = dir.resolve(fileName);
        if (!Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return empty();
        }
        inputs.inside(file);
        org.stagecheck.spec.json.InputsManifest m;
        try {
            m = new InputsManifestCodec().read(file);
        } catch (JsonFormatException e) {
            throw new InputsException(file + (e.pos().known() ? ":" : ": ") + e.getMessage());
        }
        Map<String, Path> tensors = new LinkedHashMap<>();
        Path base = dir.toAbsolutePath().normalize();
        for (Map.Entry<String, String> e : m.tensors().entrySet()) {
            Path p = base.resolve(e.getValue()).normalize();
            if (!p.startsWith(base)) {
                throw new InputsException(file + ": path \"" + e.getValue() + "\" for tensor \"" + e.getKey() + "\" leaves the inputs directory");
            }
            tensors.put(e.getKey(), p);
        }
        Map<String, Long> params = m.params();
        return new InputsManifest(tensors, params, m.checkpoint());
    }
}
