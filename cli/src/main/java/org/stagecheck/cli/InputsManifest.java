package org.stagecheck.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;

/**
 * {@code inputs.json} (docs/format.md, "Inputs manifest"): which file binds each tensor, and the
 * parameter values of a run. Every path is relative to the manifest's directory and must stay
 * inside it. A run's output directory has the same format as its index, {@code tensors.json}.
 */
record InputsManifest(Map<String, Path> tensors, Map<String, Long> params) {
    static final String FILE_NAME = "inputs.json";
    static final String FORMAT = "stagecheck-inputs";

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
        JNode root;
        try {
            root = new JsonReader().read(file);
        } catch (JsonFormatException e) {
            throw BadInputException.of(file, e);
        }
        if (!(root instanceof JNode.JObject o)) {
            throw new BadInputException(file + ": expected a JSON object");
        }
        for (String key : o.fields().keySet()) {
            if (!key.equals("format") && !key.equals("version") && !key.equals("tensors") && !key.equals("params")) {
                throw new BadInputException(file + ":" + o.fields().get(key).pos() + ": unknown field \"" + key + "\"; expected format, version, tensors, params");
            }
        }
        if (!(o.fields().get("format") instanceof JNode.JString f) || !f.value().equals(FORMAT)) {
            throw new BadInputException(file + ": expected \"format\": \"" + FORMAT + "\"");
        }
        if (!(o.fields().get("version") instanceof JNode.JNumber v) || !v.text().equals("1")) {
            throw new BadInputException(file + ": expected \"version\": 1");
        }
        Map<String, Path> tensors = new LinkedHashMap<>();
        Path base = dir.toAbsolutePath().normalize();
        if (o.fields().get("tensors") instanceof JNode.JObject t) {
            for (var e : t.fields().entrySet()) {
                if (!(e.getValue() instanceof JNode.JString s)) {
                    throw new BadInputException(file + ":" + e.getValue().pos() + ": tensor \"" + e.getKey() + "\" must map to a relative file path");
                }
                Path p = base.resolve(s.value()).normalize();
                if (!p.startsWith(base) || Path.of(s.value()).isAbsolute()) {
                    throw new BadInputException(file + ":" + e.getValue().pos() + ": path \"" + s.value() + "\" for tensor \"" + e.getKey() + "\" leaves the inputs directory");
                }
                tensors.put(e.getKey(), p);
            }
        } else if (o.fields().containsKey("tensors")) {
            throw new BadInputException(file + ": \"tensors\" must be an object of tensor name to file");
        }
        Map<String, Long> params = new LinkedHashMap<>();
        if (o.fields().get("params") instanceof JNode.JObject ps) {
            for (var e : ps.fields().entrySet()) {
                if (!(e.getValue() instanceof JNode.JNumber n) || !n.integral()) {
                    throw new BadInputException(file + ":" + e.getValue().pos() + ": parameter \"" + e.getKey() + "\" must be an integer");
                }
                try {
                    params.put(e.getKey(), Long.parseLong(n.text()));
                } catch (NumberFormatException ex) {
                    throw new BadInputException(file + ":" + e.getValue().pos() + ": parameter \"" + e.getKey() + "\" is out of range");
                }
            }
        } else if (o.fields().containsKey("params")) {
            throw new BadInputException(file + ": \"params\" must be an object of parameter name to integer");
        }
        return new InputsManifest(tensors, params);
    }
}
