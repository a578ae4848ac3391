package org.stagecheck.author.synth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.safetensors.SafetensorsCheckpoint;
import org.stagecheck.tensor.safetensors.SafetensorsEntry;
import org.stagecheck.tensor.safetensors.TensorSpec;

/** Synthetic checkpoints read back with the safetensors reader: the families' names, shapes, dtypes and config keys. */
class SyntheticCheckpointTest {
    @TempDir
    Path dir;

    /** The tensor names and torch shapes of one layer, written out per family from FAMILIES.md. */
    private static Map<String, List<Long>> layerZero(SyntheticModel m) {
        long d = m.hidden();
        long q = (long) m.heads() * m.headDim();
        long kv = (long) m.kvHeads() * m.headDim();
        long f = m.ffn();
        String p = "model.layers.0.";
        var out = new java.util.LinkedHashMap<String, List<Long>>();
        out.put(p + "input_layernorm.weight", List.of(d));
        out.put(p + "post_attention_layernorm.weight", List.of(d));
        out.put(p + "self_attn.q_proj.weight", List.of(q, d));
        out.put(p + "self_attn.k_proj.weight", List.of(kv, d));
        out.put(p + "self_attn.v_proj.weight", List.of(kv, d));
        out.put(p + "self_attn.o_proj.weight", List.of(d, q));
        out.put(p + "mlp.gate_proj.weight", List.of(f, d));
        out.put(p + "mlp.up_proj.weight", List.of(f, d));
        out.put(p + "mlp.down_proj.weight", List.of(d, f));
        if (m.family() == SynthFamily.QWEN2 || m.attentionBias()) {
            out.put(p + "self_attn.q_proj.bias", List.of(q));
            out.put(p + "self_attn.k_proj.bias", List.of(kv));
            out.put(p + "self_attn.v_proj.bias", List.of(kv));
        }
        if (m.attentionBias()) {
            out.put(p + "self_attn.o_proj.bias", List.of(d));
        }
        if (m.mlpBias()) {
            out.put(p + "mlp.gate_proj.bias", List.of(f));
            out.put(p + "mlp.up_proj.bias", List.of(f));
            out.put(p + "mlp.down_proj.bias", List.of(d));
        }
        if (m.family() == SynthFamily.QWEN3) {
            out.put(p + "self_attn.q_norm.weight", List.of((long) m.headDim()));
            out.put(p + "self_attn.k_norm.weight", List.of((long) m.headDim()));
        }
        return out;
    }

    private static JNode.JObject config(Path dir) throws Exception {
        return (JNode.JObject) new JsonReader().read(dir.resolve("config.json"));
    }

    private static String text(JNode n) {
        return switch (n) {
            case JNode.JString s -> s.value();
            case JNode.JNumber x -> x.text();
            case JNode.JBool b -> Boolean.toString(b.value());
            case JNode.JNull x -> "null";
            case JNode.JArray a -> a.items().stream().map(SyntheticCheckpointTest::text).toList().toString();
            case JNode.JObject o -> o.fields().keySet().toString();
        };
    }

    private static void checkReadBack(Path dir, SyntheticModel m) throws Exception {
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            Map<String, SafetensorsEntry> e = ck.entries();
            int perLayer = layerZero(m).size();
            assertThat(e).hasSize(1 + m.layers() * perLayer + 1 + (m.tieWordEmbeddings() ? 0 : 1));
            assertThat(e.get("model.embed_tokens.weight").shape()).containsExactly((long) m.vocab(), (long) m.hidden());
            assertThat(e.get("model.norm.weight").shape()).containsExactly((long) m.hidden());
            if (m.tieWordEmbeddings()) {
                assertThat(e).doesNotContainKey("lm_head.weight");
            } else {
                assertThat(e.get("lm_head.weight").shape()).containsExactly((long) m.vocab(), (long) m.hidden());
            }
            for (var want : layerZero(m).entrySet()) {
                assertThat(e).as(want.getKey()).containsKey(want.getKey());
                assertThat(e.get(want.getKey()).shape()).as(want.getKey()).isEqualTo(want.getValue());
                String last = want.getKey().replace("layers.0.", "layers." + (m.layers() - 1) + ".");
                assertThat(e.get(last).shape()).as(last).isEqualTo(want.getValue());
            }
            for (SafetensorsEntry x : e.values()) {
                assertThat(x.dtype()).as(x.name()).isEqualTo(m.dtype());
            }
            for (String name : List.of("model.embed_tokens.weight", "model.layers.0.self_attn.k_proj.weight")) {
                assertThat(ck.read(name).bitEquals(SyntheticCheckpoint.values(m, name))).as(name).isTrue();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = SynthFamily.class, names = {"LLAMA", "MISTRAL", "QWEN2", "QWEN3"})
    void eachFamilyReadsBackWithItsNamesShapesAndConfig(SynthFamily family) throws Exception {
        SyntheticModel m = SyntheticModel.builder(family).dtype(DType.BF16).seed(3).build();
        SyntheticCheckpoint.write(dir, m);
        checkReadBack(dir, m);
        JNode.JObject c = config(dir);
        Map<String, JNode> f = c.fields();
        assertThat(text(f.get("architectures"))).isEqualTo("[" + family.architecture() + "]");
        assertThat(text(f.get("model_type"))).isEqualTo(family.modelType());
        assertThat(f).containsKeys("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
                "num_key_value_heads", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling", "torch_dtype");
        assertThat(text(f.get("hidden_act"))).isEqualTo("silu");
        assertThat(text(f.get("num_key_value_heads"))).isEqualTo("2");
        assertThat(text(f.get("torch_dtype"))).isEqualTo("bfloat16");
        assertThat(text(f.get("tie_word_embeddings"))).isEqualTo(Boolean.toString(m.tieWordEmbeddings()));
        assertThat(text(f.get("rope_scaling"))).isEqualTo("null");
        assertThat(f).doesNotContainKeys("rope_parameters", "dtype");
        switch (family) {
            case LLAMA -> {
                assertThat(f).doesNotContainKey("head_dim"); // 4 heads x 8 = hidden 32
                assertThat(text(f.get("attention_bias"))).isEqualTo("false");
                assertThat(text(f.get("mlp_bias"))).isEqualTo("false");
            }
            case MISTRAL -> assertThat(text(f.get("sliding_window"))).isEqualTo("null");
            case QWEN2 -> {
                assertThat(text(f.get("use_sliding_window"))).isEqualTo("false");
                assertThat(f).doesNotContainKey("head_dim");
            }
            case QWEN3 -> {
                assertThat(text(f.get("head_dim"))).isEqualTo("16");
                assertThat(text(f.get("use_sliding_window"))).isEqualTo("false");
            }
            case QWEN3_MOE, QWEN2_MOE, MIXTRAL -> throw new AssertionError(family + " is checked by SyntheticMoeCheckpointTest");
        }
    }

    @Test
    void llamaBiasesScalingAndTheV5ConfigStyle() throws Exception {
        SyntheticModel m = SyntheticModel.builder(SynthFamily.LLAMA).attentionBias(true).mlpBias(true).headDim(16)
                .ropeScaling(new Llama3RopeScaling(8, 1, 4, 64)).configStyle(ConfigStyle.V5).dtype(DType.F16).build();
        SyntheticCheckpoint.write(dir, m);
        checkReadBack(dir, m);
        Map<String, JNode> f = config(dir).fields();
        assertThat(text(f.get("head_dim"))).isEqualTo("16"); // 4 x 16 != 32
        assertThat(text(f.get("dtype"))).isEqualTo("float16");
        assertThat(f).doesNotContainKeys("rope_theta", "rope_scaling", "torch_dtype");
        Map<String, JNode> rope = ((JNode.JObject) f.get("rope_parameters")).fields();
        assertThat(text(rope.get("rope_type"))).isEqualTo("llama3");
        assertThat(Double.parseDouble(text(rope.get("rope_theta")))).isEqualTo(10000.0);
        assertThat(Double.parseDouble(text(rope.get("factor")))).isEqualTo(8.0);
        assertThat(Double.parseDouble(text(rope.get("high_freq_factor")))).isEqualTo(4.0);
        assertThat(text(rope.get("original_max_position_embeddings"))).isEqualTo("64");
        assertThat(text(f.get("attention_bias"))).isEqualTo("true");
    }

    @Test
    void mistralWindowAndQwenV5Keys() throws Exception {
        SyntheticModel mistral = SyntheticModel.builder(SynthFamily.MISTRAL).slidingWindow(4).build();
        SyntheticCheckpoint.write(dir.resolve("m"), mistral);
        assertThat(text(config(dir.resolve("m")).fields().get("sliding_window"))).isEqualTo("4");
        SyntheticModel qwen = SyntheticModel.builder(SynthFamily.QWEN2).layers(3).configStyle(ConfigStyle.V5).build();
        SyntheticCheckpoint.write(dir.resolve("q"), qwen);
        Map<String, JNode> f = config(dir.resolve("q")).fields();
        assertThat(text(f.get("layer_types"))).isEqualTo("[full_attention, full_attention, full_attention]");
        assertThat(text(f.get("sliding_window"))).isEqualTo("null");
        assertThat(text(((JNode.JObject) f.get("rope_parameters")).fields().get("rope_type"))).isEqualTo("default");
        checkReadBack(dir.resolve("q"), qwen);
    }

    @Test
    void shardedAndSingleFileHoldTheSameTensors() throws Exception {
        SyntheticModel one = SyntheticModel.builder(SynthFamily.QWEN3).seed(11).build();
        SyntheticModel sharded = one.toBuilder().maxShardBytes(4096).build();
        SyntheticCheckpoint.write(dir.resolve("one"), one);
        SyntheticCheckpoint.write(dir.resolve("sh"), sharded);
        assertThat(dir.resolve("sh/model.safetensors.index.json")).exists();
        assertThat(dir.resolve("sh/model.safetensors")).doesNotExist();
        checkReadBack(dir.resolve("sh"), sharded);
        try (SafetensorsCheckpoint a = SafetensorsCheckpoint.open(dir.resolve("one"));
                SafetensorsCheckpoint b = SafetensorsCheckpoint.open(dir.resolve("sh"))) {
            assertThat(b.files().size()).isGreaterThan(2);
            assertThat(b.entries().keySet()).containsExactlyElementsOf(a.entries().keySet());
            for (String name : a.entries().keySet()) {
                assertThat(b.read(name).bitEquals(a.read(name))).as(name).isTrue();
            }
        }
        // written again as one file, the directory is one checkpoint again
        SyntheticCheckpoint.write(dir.resolve("sh"), one);
        assertThat(dir.resolve("sh/model.safetensors.index.json")).doesNotExist();
        checkReadBack(dir.resolve("sh"), one);
    }

    @Test
    void valuesDependOnSeedAndNameAndLieInTheirRanges() throws Exception {
        SyntheticModel m = SyntheticModel.builder(SynthFamily.QWEN2).hidden(64).ffn(128).build();
        Tensor q = SyntheticCheckpoint.values(m, "model.layers.0.self_attn.q_proj.weight");
        Tensor k = SyntheticCheckpoint.values(m, "model.layers.0.self_attn.k_proj.weight");
        assertThat(q.bitEquals(SyntheticCheckpoint.values(m, "model.layers.0.self_attn.q_proj.weight"))).isTrue();
        assertThat(q.getFloat(0)).isNotEqualTo(k.getFloat(0));
        Tensor otherSeed = SyntheticCheckpoint.values(m.toBuilder().seed(1).build(), "model.layers.0.self_attn.q_proj.weight");
        assertThat(otherSeed.bitEquals(q)).isFalse();
        assertRange(q, -1 / Math.sqrt(64), 1 / Math.sqrt(64), 0);
        assertRange(SyntheticCheckpoint.values(m, "model.layers.0.mlp.down_proj.weight"), -1 / Math.sqrt(128), 1 / Math.sqrt(128), 0);
        assertRange(SyntheticCheckpoint.values(m, "model.embed_tokens.weight"), -1, 1, 0);
        assertRange(SyntheticCheckpoint.values(m, "model.norm.weight"), 0.5, 1.5, 0);
        assertRange(SyntheticCheckpoint.values(m, "model.layers.1.self_attn.v_proj.bias"), -0.5, 0.5, 0.1);
        Tensor q16 = SyntheticCheckpoint.values(m.toBuilder().dtype(DType.BF16).build(), "model.layers.0.self_attn.q_proj.weight");
        for (int i = 0; i < 50; i++) {
            // the same draw, rounded once to bf16
            assertThat(Math.abs(q16.getFloat(i) - q.getFloat(i))).isLessThanOrEqualTo(Math.abs(q.getFloat(i)) / 256);
        }
    }

    /** Every value in [lo, hi] with magnitude at least {@code minAbs}; both signs (or the spread) present. */
    private static void assertRange(Tensor t, double lo, double hi, double minAbs) {
        float[] v = t.toFloats();
        double min = Double.MAX_VALUE;
        double max = -Double.MAX_VALUE;
        for (float x : v) {
            assertThat((double) x).isBetween(lo, hi);
            assertThat(Math.abs((double) x)).isGreaterThanOrEqualTo(minAbs);
            min = Math.min(min, x);
            max = Math.max(max, x);
        }
        // spread over most of the range, not a constant
        assertThat(max - min).isGreaterThan(0.5 * (hi - lo) - 2 * minAbs);
    }

    @Test
    void theOneBillionClassShape() {
        SyntheticModel m = SyntheticCheckpoint.oneBillionClass(0);
        List<TensorSpec> specs = SyntheticCheckpoint.tensors(m);
        assertThat(specs).hasSize(1 + 16 * 9 + 1);
        assertThat(specs.getFirst().shape().toArray()).containsExactly(128256, 2048);
        assertThat(specs.stream().map(TensorSpec::name)).doesNotContain("lm_head.weight");
        long params = specs.stream().mapToLong(s -> s.shape().elementCount()).sum();
        assertThat(params).isBetween(1_230_000_000L, 1_240_000_000L);
        assertThat(specs.stream().allMatch(s -> s.dtype() == DType.BF16)).isTrue();
        String config = SyntheticCheckpoint.configJson(m);
        assertThat(config).contains("\"rope_type\" : \"llama3\"", "\"tie_word_embeddings\" : true", "\"torch_dtype\" : \"bfloat16\"");
        assertThat(config).doesNotContain("head_dim"); // 32 x 64 = 2048
    }

    @Test
    void settingsAFamilyDoesNotHaveAreRefused() {
        List<Runnable> bad = new ArrayList<>();
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN2).attentionBias(true).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN3).mlpBias(true).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.LLAMA).slidingWindow(4).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.LLAMA).kvHeads(3).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.LLAMA).headDim(7).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.LLAMA).dtype(DType.I32).build());
        for (Runnable r : bad) {
            assertThatThrownBy(r::run).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(Files.exists(dir.resolve("config.json"))).isFalse();
    }
}
