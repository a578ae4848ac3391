package org.stagecheck.author.hf;

import java.util.List;
import org.stagecheck.author.Family;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.spec.json.JNode;

/**
 * The sliding attention window of a config.json, 0 for none (docs/author.md, "Checkpoints").
 *
 * <p>Mistral applies its window to every layer: {@code sliding_window} is the window, null is
 * none, and an absent key is the class default 4096 (a surprise, but what transformers loads).
 *
 * <p>Qwen2 and Qwen3 have no window unless {@code use_sliding_window} is true; hub Qwen2.5 files
 * carry {@code sliding_window: 32768} with {@code use_sliding_window: false}, which is no window.
 * When it is true the window covers only the layers from {@code max_window_layers} on (the MoE
 * variants pick other layers), a per-layer choice stagecheck's one window for every layer cannot
 * express, so it is refused. transformers 5 writes the per-layer choice as {@code layer_types},
 * accepted only when every layer is {@code full_attention}.
 */
final class WindowConfig {
    /** Mistral's class default window, used when its config.json has no {@code sliding_window}. */
    static final int MISTRAL_DEFAULT_WINDOW = 4096;

    private WindowConfig() {
    }

    static int read(ConfigJson config, Family family, int layers) throws ModelSpecException {
        return switch (family) {
            case MISTRAL -> mistral(config, MISTRAL_DEFAULT_WINDOW);
            // Mixtral's class default is None: no window
            case MIXTRAL -> mistral(config, 0);
            case QWEN2, QWEN3, QWEN2_MOE, QWEN3_MOE -> {
                qwenNoWindow(config, family, layers);
                yield 0;
            }
            case LLAMA, STAGECHECK -> 0;
        };
    }

    private static int mistral(ConfigJson config, int absent) throws ModelSpecException {
        if (!config.has("sliding_window")) {
            return absent;
        }
        if (config.get("sliding_window") instanceof JNode.JNull) {
            return 0;
        }
        return config.size("sliding_window");
    }

    private static void qwenNoWindow(ConfigJson config, Family family, int layers) throws ModelSpecException {
        if (config.bool("use_sliding_window", false)) {
            throw config.at(config.get("use_sliding_window"), "\"use_sliding_window\": true is not implemented by"
                    + " stagecheck: " + family.architecture() + " then slides the window over the layers from"
                    + " \"max_window_layers\" on and attends fully in the others, and stagecheck has one window for"
                    + " every layer");
        }
        // read only to refuse a wrong type: without use_sliding_window they are not used
        if (!config.absentOrNull("sliding_window")) {
            config.integer("sliding_window");
        }
        if (config.has("max_window_layers")) {
            config.integer("max_window_layers");
        }
        if (config.absentOrNull("layer_types")) {
            return;
        }
        List<JNode> types = config.array("layer_types");
        if (types.size() != layers) {
            throw config.at(config.get("layer_types"), "\"layer_types\" names " + types.size() + " layers but"
                    + " \"num_hidden_layers\" is " + layers);
        }
        for (int i = 0; i < types.size(); i++) {
            JNode t = types.get(i);
            if (!(t instanceof JNode.JString s && s.value().equals("full_attention"))) {
                throw config.at(t, "\"layer_types\"[" + i + "] is " + (t instanceof JNode.JString s ? "\"" + s.value() + "\""
                        : t.typeName()) + "; stagecheck implements only \"full_attention\" layers for "
                        + family.architecture() + " (a sliding window on some layers only is not implemented)");
            }
        }
    }
}
