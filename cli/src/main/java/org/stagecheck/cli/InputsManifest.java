package org.stagecheck.cli;

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
record InputsManifest(Map<String, Path> tensors, Map<String, Long> params) {
    static final String FILE_NAME = org.stagecheck.spec.json.InputsManifest.FILE_NAME;

    /** The manifest in {@code dir}, or an empty one when the directory has none. */
    static InputsManifest readOrEmpty(Path dir) throws BadInputException {
        return readOrEmpty(new InputsDir("--inputs", dir), FILE_NAME);
    }

    /** The manifest {@code dir/fileName}, or an empty one when there is none; it must not lead out of {@code dir}. */
    static InputsManifest readOrEmpty(InputsDir inputs, String fileName) throws BadInputException {
        Path dir = inputs.dir();
        Path file = dir.resolve(fileName);
        if (!Files.exists(file, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return new InputsManifest(Map.of(), Map.of());
        }
        inputs.inside(file);
        org.stagecheck.spec.json.InputsManifest m;
        try {
            m = new InputsManifestCodec().read(file);
        } catch (JsonFormatException e) {
            throw BadInputException.of(file, e);
        }
        Map<String, Path> tensors = new LinkedHashMap<>();
        Path base = dir.toAbsolutePath().normalize();
        for (Map.Entry<String, String> e : m.tensors().entrySet()) {
            Path p = base.resolve(e.getValue()).normalize();
            if (!p.startsWith(base)) {
                throw new BadInputException(file + ": path \"" + e.getValue() + "\" for tensor \"" + e.getKey() + "\" leaves the inputs directory");
            }
            tensors.put(e.getKey(), p);
        }
        Map<String, Long> params = m.params();
        return new InputsManifest(tensors, params);
    }
}
