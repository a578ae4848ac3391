package org.stagecheck.spec.json;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An inputs manifest (docs/format.md, "Inputs manifest"): which file binds each tensor, by a path
 * relative to the manifest's directory, and the parameter values of a run. {@code author} writes
 * one as {@code inputs.json}; {@code run} writes the same format as the index {@code tensors.json}
 * of its output directory, and reads either. {@link InputsManifestCodec} is its one reader and
 * writer.
 *
 * @param tensors    tensor name to a relative path (forward slashes), in file order
 * @param params     parameter name to value, in file order
 * @param checkpoint the tensors bound from a checkpoint's safetensors files, or null (version 2)
 * @param programHash the canonical hash ({@code ProgramCodec.hash}) of the program whose run wrote
 *                    this manifest as its output index, or null (version 2); binding ignores it,
 *                    {@code golden check --actual} compares it with a case's
 */
public record InputsManifest(Map<String, String> tensors, Map<String, Long> params, CheckpointRefs checkpoint, String programHash) {
    /** The value of the {@code format} field. */
    public static final String FORMAT = "stagecheck-inputs";
    /** The file name {@code author} writes and {@code run --inputs DIR} reads. */
    public static final String FILE_NAME = "inputs.json";

    public InputsManifest {
        tensors = Collections.unmodifiableMap(new LinkedHashMap<>(tensors));
        params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        if (checkpoint != null) {
            for (String name : checkpoint.tensors().keySet()) {
                if (tensors.containsKey(name)) {
                    throw new IllegalArgumentException("tensor \"" + name + "\" is bound both from a file and from the checkpoint");
                }
            }
        }
    }

    /** Without a program hash. */
    public InputsManifest(Map<String, String> tensors, Map<String, Long> params, CheckpointRefs checkpoint) {
        this(tensors, params, checkpoint, null);
    }

    /** Tensors from files only (version 1). */
    public InputsManifest(Map<String, String> tensors, Map<String, Long> params) {
        this(tensors, params, null, null);
    }

    /** A manifest binding nothing. */
    public static InputsManifest empty() {
        return new InputsManifest(Map.of(), Map.of());
    }
}
