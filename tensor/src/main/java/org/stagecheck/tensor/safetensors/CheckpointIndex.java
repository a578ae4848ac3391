package org.stagecheck.tensor.safetensors;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;

import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * {@code model.safetensors.index.json}: {@code {"metadata": {...}, "weight_map": {tensor: file}}}.
 * {@code metadata} is optional and not looked into; any other top-level field is refused, as is a
 * file that is not a plain name of the directory.
 */
final class CheckpointIndex {
    private CheckpointIndex() {
    }

    /** The weight map, in the order the index lists it. */
    static SequencedMap<String, String> read(Path index) throws TensorFileException {
        JNode root;
        try {
            root = new JsonReader().read(index);
        } catch (JsonFormatException e) {
            throw new TensorFileException(e.messageIn(index), e);
        }
        if (!(root instanceof JNode.JObject top)) {
            throw fail(index, root, "the index is " + root.typeName() + ", not a JSON object");
        }
        JNode map = null;
        for (Map.Entry<String, JNode> f : top.fields().entrySet()) {
            switch (f.getKey()) {
                case "metadata" -> {
                    if (!(f.getValue() instanceof JNode.JObject)) {
                        throw fail(index, f.getValue(), "metadata is " + f.getValue().typeName() + ", not an object");
                    }
                }
                case "weight_map" -> map = f.getValue();
                default -> throw fail(index, f.getValue(), "unknown field '" + f.getKey() + "'; an index has only metadata and weight_map");
            }
        }
        if (map == null) {
            throw fail(index, top, "the index has no weight_map");
        }
        if (!(map instanceof JNode.JObject weights)) {
            throw fail(index, map, "weight_map is " + map.typeName() + ", not an object of tensor names to file names");
        }
        if (weights.fields().isEmpty()) {
            throw fail(index, map, "weight_map lists no tensors");
        }
        SequencedMap<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JNode> w : weights.fields().entrySet()) {
            if (!(w.getValue() instanceof JNode.JString file)) {
                throw fail(index, w.getValue(), "weight_map: tensor '" + w.getKey() + "' maps to " + w.getValue().typeName() + ", not a file name");
            }
            if (!Confinement.plainName(file.value())) {
                throw fail(index, file, "weight_map: tensor '" + w.getKey() + "' maps to '" + file.value()
                        + "', which is not a plain file name inside the model directory");
            }
            out.put(w.getKey(), file.value());
        }
        return out;
    }

    private static TensorFileException fail(Path index, JNode at, String what) {
        return new TensorFileException(index + (at.pos().known() ? ":" + at.pos() : "") + ": " + what);
    }
}
