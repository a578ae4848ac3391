package org.stagecheck.author.hf;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.stagecheck.author.Architecture;
import org.stagecheck.author.CheckpointSource;
import org.stagecheck.author.Family;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;

/**
 * A Hugging Face model directory's {@code config.json} as a {@link ModelSpec} (docs/author.md,
 * "Checkpoints"). The family is {@code architectures[0]} (one of {@link #SUPPORTED});
 * {@code model_type}, when present, must agree. Every key is either understood, known to be inert
 * ({@link ConfigKeys}), or refused by name with its position: stagecheck never ignores a key it
 * does not understand. A size the config leaves out is refused rather than taken from the
 * family's class default, whose values surprise (Mistral 8 KV heads, Qwen 32, Qwen3 head_dim 128);
 * the exceptions are those transformers itself derives: {@code head_dim} (hidden / heads), Llama's
 * {@code num_key_value_heads} (= heads), {@code rms_norm_eps} (1e-6 in every family),
 * {@code hidden_act} (silu) and Mistral's {@code sliding_window} (4096).
 *
 * <p>Every message is {@code FILE:LINE:COLUMN: message} (the position of the offending value), or
 * {@code FILE: message} for what the whole file gets wrong.
 */
public final class HfConfig {
    /** The {@code architectures[0]} values read, one per family. */
    public static final List<String> SUPPORTED = Arrays.stream(Family.values())
            .filter(f -> f.architecture() != null).map(Family::architecture).toList();
    /** The RMSNorm epsilon of every family's configuration class, used when the config names none. */
    static final double DEFAULT_NORM_EPS = 1e-6;

    private HfConfig() {
    }

    /**
     * Reads {@code modelDir/config.json}. The model is named after the directory ({@link ModelName}),
     * its seed is 0 (unused: the weights are the checkpoint's), and its checkpoint is
     * {@code new CheckpointSource(modelDir, weightDType)}: the dtype comes from the caller, who
     * reads it from the safetensors headers (config.json's {@code torch_dtype} is informational).
     *
     * @throws ModelSpecException when the file cannot be read, is not JSON, names another
     *         architecture, holds a key stagecheck does not understand, or describes a model
     *         {@link ModelSpec} refuses
     */
    public static ModelSpec read(Path modelDir, DType weightDType) throws ModelSpecException {
        Path file = modelDir.resolve("config.json");
        JNode root;
        try {
            root = new JsonReader().read(file);
        } catch (JsonFormatException e) {
            throw new ModelSpecException(e.messageIn(file) + (e.pos().known() ? "" : " (cannot read the model's config.json)"));
        }
        if (!(root instanceof JNode.JObject o)) {
            throw new ModelSpecException(file + ":" + root.pos() + ": config.json is a JSON object, not " + root.typeName());
        }
        ConfigJson config = new ConfigJson(file, o, "");
        Family family = family(config);
        ConfigKeys.check(config, family);

        int vocab = config.requiredSize("vocab_size");
        int hidden = config.requiredSize("hidden_size");
        int layers = config.requiredSize("num_hidden_layers");
        int heads = config.requiredSize("num_attention_heads");
        int kvHeads = kvHeads(config, family, heads);
        int headDim = headDim(config, family, hidden, heads);
        int ffn = config.requiredSize("intermediate_size");
        double eps = config.has("rms_norm_eps") ? config.number("rms_norm_eps") : DEFAULT_NORM_EPS;
        String act = config.string("hidden_act", "silu");
        if (!act.equals("silu")) {
            throw config.at(config.get("hidden_act"), "\"hidden_act\" is \"" + act + "\"; stagecheck implements only"
                    + " \"silu\", the gated MLP of these families");
        }
        refuseAtTheKey(config, vocab, hidden, layers, heads, kvHeads, headDim, ffn, eps);
        RopeConfig rope = RopeConfig.read(config, family);
        int window = WindowConfig.read(config, family, layers);
        boolean tied = config.bool("tie_word_embeddings", false);
        Architecture arch = architecture(config, family, window, rope, tied);
        try {
            return new ModelSpec(ModelName.of(modelDir), vocab, hidden, layers, heads, kvHeads, headDim, ffn,
                    rope.theta(), eps, 0L, arch, new CheckpointSource(modelDir, weightDType));
        } catch (IllegalArgumentException e) {
            throw new ModelSpecException(file + ": " + e.getMessage());
        }
    }

    /**
     * The checks of {@link ModelSpec} that one config.json key decides, made here so that a
     * refusal names that key and its line:column rather than the spec's field (normEps, kvHeads)
     * without a place; the spec still checks everything, the rest included.
     */
    private static void refuseAtTheKey(ConfigJson config, int vocab, int hidden, int layers, int heads, int kvHeads,
                                       int headDim, int ffn, double eps) throws ModelSpecException {
        if (layers > ModelSpec.MAX_LAYERS) {
            throw config.at(config.get("num_hidden_layers"), "\"num_hidden_layers\" is " + layers + "; at most "
                    + ModelSpec.MAX_LAYERS + " are authored");
        }
        if (vocab > ModelSpec.MAX_VOCAB) {
            throw config.at(config.get("vocab_size"), "\"vocab_size\" is " + vocab + "; at most " + ModelSpec.MAX_VOCAB
                    + " is authored");
        }
        for (String key : List.of("hidden_size", "intermediate_size")) {
            int width = key.equals("hidden_size") ? hidden : ffn;
            if (width > ModelSpec.MAX_WIDTH) {
                throw config.at(config.get(key), "\"" + key + "\" is " + width + "; at most " + ModelSpec.MAX_WIDTH + " is authored");
            }
        }
        if (headDim % 2 != 0) {
            throw config.absentOrNull("head_dim")
                    ? config.at(config.object(), "the head dimension \"hidden_size\" / \"num_attention_heads\" = " + headDim
                            + " is odd; the rotary embedding rotates pairs")
                    : config.at(config.get("head_dim"), "\"head_dim\" is " + headDim + ", odd; the rotary embedding rotates pairs");
        }
        if (heads % kvHeads != 0) {
            throw config.at(config.get("num_key_value_heads"), "\"num_attention_heads\" " + heads
                    + " is not a multiple of \"num_key_value_heads\" " + kvHeads);
        }
        if (!(eps > 0.0)) {
            throw config.at(config.get("rms_norm_eps"), "\"rms_norm_eps\" must be above 0, not " + eps);
        }
    }

    /** The family named by {@code architectures}, checked against {@code model_type}. */
    private static Family family(ConfigJson config) throws ModelSpecException {
        if (!config.has("architectures")) {
            throw config.at(config.object(), "config.json has no \"architectures\"; expected a one-element array"
                    + " naming one of " + SUPPORTED);
        }
        List<JNode> names = config.array("architectures");
        if (names.size() != 1 || !(names.getFirst() instanceof JNode.JString name)) {
            throw config.at(config.get("architectures"), "\"architectures\" must be a one-element array of a string naming"
                    + " one of " + SUPPORTED + ", not " + (names.size() == 1 ? "an array holding " + names.getFirst().typeName()
                    : "an array of " + names.size() + " elements"));
        }
        Family family = Family.ofArchitecture(name.value());
        if (family == null) {
            throw config.at(name, "architecture \"" + name.value() + "\" is not supported; stagecheck reads "
                    + String.join(", ", SUPPORTED));
        }
        String modelType = config.string("model_type", null);
        if (modelType != null && !modelType.equals(family.jsonName())) {
            throw config.at(config.get("model_type"), "\"model_type\" is \"" + modelType + "\" but the architecture "
                    + family.architecture() + " is model type \"" + family.jsonName() + "\"");
        }
        return family;
    }

    /**
     * {@code num_key_value_heads}; null means one per query head in every family. Absent, only
     * Llama's class default is that (None); Mistral's is 8 and Qwen's 32, so it is refused there.
     */
    private static int kvHeads(ConfigJson config, Family family, int heads) throws ModelSpecException {
        String key = "num_key_value_heads";
        if (config.get(key) instanceof JNode.JNull || !config.has(key) && family == Family.LLAMA) {
            return heads;
        }
        if (!config.has(key)) {
            throw config.at(config.object(), "config.json has no \"" + key + "\"; " + family.architecture()
                    + "'s class default is not one KV head per query head, and stagecheck refuses to guess");
        }
        return config.size(key);
    }

    /**
     * {@code head_dim}; absent or null, hidden / heads (refused when that does not divide).
     * Qwen3's class default is 128, not hidden / heads, so there it must be given.
     */
    private static int headDim(ConfigJson config, Family family, int hidden, int heads) throws ModelSpecException {
        if (!config.absentOrNull("head_dim")) {
            return config.size("head_dim");
        }
        // Qwen3's class default is 128; Qwen3-MoE's class has no head_dim and its attention takes hidden / heads
        if (family == Family.QWEN3) {
            throw config.at(config.has("head_dim") ? config.get("head_dim").pos() : config.object().pos(),
                    "config.json has no \"head_dim\"; Qwen3's class default is 128, not hidden_size / num_attention_heads,"
                            + " and stagecheck refuses to guess");
        }
        if (hidden % heads != 0) {
            throw config.at(config.has("head_dim") ? config.get("head_dim").pos() : config.object().pos(),
                    "config.json has no \"head_dim\" and \"hidden_size\" " + hidden + " is not a multiple of"
                            + " \"num_attention_heads\" " + heads);
        }
        return hidden / heads;
    }

    private static Architecture architecture(ConfigJson config, Family family, int window, RopeConfig rope, boolean tied)
            throws ModelSpecException {
        try {
            return switch (family) {
                case LLAMA -> {
                    boolean attentionBias = config.bool("attention_bias", false);
                    yield new Architecture(family, attentionBias, attentionBias, config.bool("mlp_bias", false), false,
                            window, rope.scaling(), tied);
                }
                case MISTRAL -> new Architecture(family, false, false, false, false, window, rope.scaling(), tied);
                // q/k/v biases are hard-coded in Qwen2's attention, o_proj has none
                case QWEN2 -> new Architecture(family, true, false, false, false, window, rope.scaling(), tied);
                case QWEN3 -> {
                    boolean attentionBias = config.bool("attention_bias", false);
                    yield new Architecture(family, attentionBias, attentionBias, false, true, window, rope.scaling(), tied);
                }
                case QWEN3_MOE -> {
                    boolean attentionBias = config.bool("attention_bias", false);
                    yield new Architecture(family, attentionBias, attentionBias, false, true, window, rope.scaling(), tied,
                            MoeConfig.qwen(config, family, 0));
                }
                // Qwen2-MoE's q/k/v biases: hard-coded in hub files, the v5 qkv_bias switch (true) otherwise
                case QWEN2_MOE -> new Architecture(family, config.bool("qkv_bias", true), false, false, false, window,
                        rope.scaling(), tied, MoeConfig.qwen(config, family, config.requiredSize("shared_expert_intermediate_size")));
                case MIXTRAL -> new Architecture(family, false, false, false, false, window, rope.scaling(), tied,
                        MoeConfig.mixtral(config));
                case STAGECHECK -> throw new IllegalStateException("stagecheck's own model has no config.json");
            };
        } catch (IllegalArgumentException e) {
            throw new ModelSpecException(config.file() + ": " + e.getMessage());
        }
    }
}
