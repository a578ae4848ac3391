package org.stagecheck.author.synth;

/** Which transformers wrote the config.json: readers must accept both. */
public enum ConfigStyle {
    /** transformers 4, what most published checkpoints carry: {@code rope_theta}, {@code rope_scaling}, {@code torch_dtype}. */
    HUB,
    /** transformers 5: {@code rope_parameters} (theta, type and scaling together), {@code dtype}, {@code layer_types}. */
    V5
}
