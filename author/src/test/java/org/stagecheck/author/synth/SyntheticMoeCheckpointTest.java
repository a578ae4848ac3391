package org.stagecheck.author.synth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.safetensors.SafetensorsCheckpoint;
import org.stagecheck.tensor.safetensors.SafetensorsEntry;

/** Synthetic MoE checkpoints read back: every tensor name and torch shape of FAMILIES.md, and the expert keys in both config styles. */
class SyntheticMoeCheckpointTest {
    @TempDir
    Path dir;

    static Stream<Arguments> familiesAndStyles() {
        List<Arguments> out = new ArrayList<>();
        for (SynthFamily f : List.of(SynthFamily.QWEN3_MOE, SynthFamily.QWEN2_MOE, SynthFamily.MIXTRAL)) {
            for (ConfigStyle s : ConfigStyle.values()) {
                out.add(Arguments.of(f, s));
            }
        }
        return out.stream();
    }

    /**
     * Every tensor the checkpoint must hold, written out from FAMILIES.md's name list: dense layers
     * keep {@code mlp.{gate,up,down}_proj} of {@code intermediate_size}, sparse ones have the router
     * and per-expert weights (Mixtral: {@code block_sparse_moe}, w1/w3/w2), Qwen2-MoE a shared expert.
     */
    private static Map<String, List<Long>> expected(SyntheticModel m, List<Integer> sparseLayers) {
        long d = m.hidden();
        long q = (long) m.heads() * m.headDim();
        long kv = (long) m.kvHeads() * m.headDim();
        long f = m.ffn();
        long e = m.moe().numExperts();
        long fm = m.family() == SynthFamily.MIXTRAL ? f : m.moe().moeIntermediate();
        Map<String, List<Long>> out = new LinkedHashMap<>();
        out.put("model.embed_tokens.weight", List.of((long) m.vocab(), d));
        out.put("model.norm.weight", List.of(d));
        if (!m.tieWordEmbeddings()) {
            out.put("lm_head.weight", List.of((long) m.vocab(), d));
        }
        for (int l = 0; l < m.layers(); l++) {
            String p = "model.layers." + l + ".";
            out.put(p + "input_layernorm.weight", List.of(d));
            out.put(p + "post_attention_layernorm.weight", List.of(d));
            out.put(p + "self_attn.q_proj.weight", List.of(q, d));
            out.put(p + "self_attn.k_proj.weight", List.of(kv, d));
            out.put(p + "self_attn.v_proj.weight", List.of(kv, d));
            out.put(p + "self_attn.o_proj.weight", List.of(d, q));
            switch (m.family()) {
                case QWEN3_MOE -> {
                    out.put(p + "self_attn.q_norm.weight", List.of((long) m.headDim()));
                    out.put(p + "self_attn.k_norm.weight", List.of((long) m.headDim()));
                }
                case QWEN2_MOE -> {
                    out.put(p + "self_attn.q_proj.bias", List.of(q));
                    out.put(p + "self_attn.k_proj.bias", List.of(kv));
                    out.put(p + "self_attn.v_proj.bias", List.of(kv));
                }
                case MIXTRAL -> { }
                case LLAMA, MISTRAL, QWEN2, QWEN3 -> throw new AssertionError(m.family() + " is dense");
            }
            if (!sparseLayers.contains(l)) {
                out.put(p + "mlp.gate_proj.weight", List.of(f, d));
                out.put(p + "mlp.up_proj.weight", List.of(f, d));
                out.put(p + "mlp.down_proj.weight", List.of(d, f));
            } else if (m.family() == SynthFamily.MIXTRAL) {
                out.put(p + "block_sparse_moe.gate.weight", List.of(e, d));
                for (int x = 0; x < e; x++) {
                    out.put(p + "block_sparse_moe.experts." + x + ".w1.weight", List.of(fm, d));
                    out.put(p + "block_sparse_moe.experts." + x + ".w3.weight", List.of(fm, d));
                    out.put(p + "block_sparse_moe.experts." + x + ".w2.weight", List.of(d, fm));
                }
            } else {
                out.put(p + "mlp.gate.weight", List.of(e, d));
                for (int x = 0; x < e; x++) {
                    out.put(p + "mlp.experts." + x + ".gate_proj.weight", List.of(fm, d));
                    out.put(p + "mlp.experts." + x + ".up_proj.weight", List.of(fm, d));
                    out.put(p + "mlp.experts." + x + ".down_proj.weight", List.of(d, fm));
                }
                if (m.family() == SynthFamily.QWEN2_MOE) {
                    long fs = m.moe().sharedExpertIntermediate();
                    out.put(p + "mlp.shared_expert.gate_proj.weight", List.of(fs, d));
                    out.put(p + "mlp.shared_expert.up_proj.weight", List.of(fs, d));
                    out.put(p + "mlp.shared_expert.down_proj.weight", List.of(d, fs));
                    out.put(p + "mlp.shared_expert_gate.weight", List.of(1L, d));
                }
            }
        }
        return out;
    }

    private static void checkReadBack(Path dir, SyntheticModel m, List<Integer> sparseLayers) throws Exception {
        Map<String, List<Long>> want = expected(m, sparseLayers);
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            Map<String, SafetensorsEntry> e = ck.entries();
            assertThat(e.keySet()).containsExactlyInAnyOrderElementsOf(want.keySet());
            for (var w : want.entrySet()) {
                assertThat(e.get(w.getKey()).shape()).as(w.getKey()).isEqualTo(w.getValue());
                assertThat(e.get(w.getKey()).dtype()).as(w.getKey()).isEqualTo(m.dtype());
            }
            for (String name : List.of("model.embed_tokens.weight", "model.layers." + sparseLayers.getFirst() + "."
                    + (m.family() == SynthFamily.MIXTRAL ? "block_sparse_moe.experts.1.w2.weight" : "mlp.experts.1.down_proj.weight"))) {
                assertThat(ck.read(name).bitEquals(SyntheticCheckpoint.values(m, name))).as(name).isTrue();
            }
        }
    }

    private static Map<String, JNode> config(Path dir) throws Exception {
        return ((JNode.JObject) new JsonReader().read(dir.resolve("config.json"))).fields();
    }

    private static String text(JNode n) {
        return switch (n) {
            case JNode.JString s -> s.value();
            case JNode.JNumber x -> x.text();
            case JNode.JBool b -> Boolean.toString(b.value());
            case JNode.JNull x -> "null";
            case JNode.JArray a -> a.items().stream().map(SyntheticMoeCheckpointTest::text).toList().toString();
            case JNode.JObject o -> o.fields().keySet().toString();
        };
    }

    @ParameterizedTest
    @MethodSource("familiesAndStyles")
    void eachMoeFamilyReadsBackWithItsNamesShapesAndExpertKeys(SynthFamily family, ConfigStyle style) throws Exception {
        SyntheticModel m = SyntheticModel.builder(family).configStyle(style).dtype(DType.BF16).seed(9).build();
        SyntheticCheckpoint.write(dir, m);
        checkReadBack(dir, m, List.of(0, 1));
        Map<String, JNode> f = config(dir);
        boolean v5 = style == ConfigStyle.V5;
        assertThat(text(f.get("architectures"))).isEqualTo("[" + family.architecture() + "]");
        assertThat(text(f.get("model_type"))).isEqualTo(family.modelType());
        assertThat(text(f.get("num_experts_per_tok"))).isEqualTo("2");
        assertThat(text(f.get("intermediate_size"))).isEqualTo("64");
        assertThat(f).containsKey(v5 ? "rope_parameters" : "rope_theta");
        switch (family) {
            case QWEN3_MOE -> {
                // hub num_experts, v5 num_local_experts (Qwen3MoeConfig's attribute_map)
                assertThat(text(f.get(v5 ? "num_local_experts" : "num_experts"))).isEqualTo("4");
                assertThat(f).doesNotContainKey(v5 ? "num_experts" : "num_local_experts");
                assertThat(text(f.get("moe_intermediate_size"))).isEqualTo("24");
                assertThat(text(f.get("norm_topk_prob"))).isEqualTo("true");
                assertThat(text(f.get("decoder_sparse_step"))).isEqualTo("1");
                assertThat(text(f.get("mlp_only_layers"))).isEqualTo("[]");
                assertThat(text(f.get("head_dim"))).isEqualTo("16");
                assertThat(text(f.get("use_sliding_window"))).isEqualTo("false");
                assertThat(text(f.get("attention_bias"))).isEqualTo("false");
                assertThat(f).doesNotContainKeys("shared_expert_intermediate_size", "qkv_bias");
            }
            case QWEN2_MOE -> {
                assertThat(text(f.get("num_experts"))).isEqualTo("4");
                assertThat(text(f.get("shared_expert_intermediate_size"))).isEqualTo("40");
                assertThat(text(f.get("norm_topk_prob"))).isEqualTo("false"); // Qwen1.5-MoE's choice
                assertThat(text(f.get("use_sliding_window"))).isEqualTo("false");
                if (v5) {
                    assertThat(text(f.get("qkv_bias"))).isEqualTo("true");
                    assertThat(text(f.get("sliding_window"))).isEqualTo("0");
                    assertThat(text(f.get("layer_types"))).isEqualTo("[full_attention, full_attention]");
                } else {
                    assertThat(f).doesNotContainKeys("qkv_bias", "layer_types");
                }
            }
            case MIXTRAL -> {
                assertThat(text(f.get("num_local_experts"))).isEqualTo("4");
                assertThat(f).doesNotContainKeys("num_experts", "norm_topk_prob", "moe_intermediate_size", "decoder_sparse_step");
                assertThat(text(f.get("sliding_window"))).isEqualTo("null");
                if (v5) {
                    assertThat(text(f.get("head_dim"))).isEqualTo("null"); // 4 x 8 = hidden 32
                } else {
                    assertThat(f).doesNotContainKey("head_dim");
                }
            }
            case LLAMA, MISTRAL, QWEN2, QWEN3 -> throw new AssertionError(family + " is dense");
        }
    }

    /** (l + 1) % step == 0 and not listed: with step 2 and layer 3 kept dense, only layer 1 of 0..4 is sparse (l % step would pick 0, 2, 4). */
    @Test
    void sparseStepAndMlpOnlyLayersLeaveDenseLayersWithTheDenseMlp() throws Exception {
        SyntheticModel m = SyntheticModel.builder(SynthFamily.QWEN2_MOE).layers(5).decoderSparseStep(2).mlpOnlyLayers(List.of(3)).numExperts(3)
                .expertsPerToken(1).moeIntermediate(8).sharedExpertIntermediate(12).maxShardBytes(4096).build();
        assertThat(List.of(0, 1, 2, 3, 4).stream().filter(m::isSparseLayer).toList()).containsExactly(1);
        SyntheticCheckpoint.write(dir, m);
        checkReadBack(dir, m, List.of(1));
        Map<String, JNode> f = config(dir);
        assertThat(text(f.get("decoder_sparse_step"))).isEqualTo("2");
        assertThat(text(f.get("mlp_only_layers"))).isEqualTo("[3]");
        // and toBuilder keeps the settings
        assertThat(m.toBuilder().build()).isEqualTo(m);
    }

    @Test
    void mixtralExpertsAreIntermediateSizeWideWithAWindowWhenAsked() throws Exception {
        SyntheticModel m = SyntheticModel.builder(SynthFamily.MIXTRAL).ffn(20).slidingWindow(3).numExperts(3).expertsPerToken(2).build();
        assertThat(m.moe().moeIntermediate()).isEqualTo(20);
        assertThat(m.toBuilder().ffn(28).build().moe().moeIntermediate()).isEqualTo(28);
        SyntheticCheckpoint.write(dir, m);
        checkReadBack(dir, m, List.of(0, 1));
        assertThat(text(config(dir).get("sliding_window"))).isEqualTo("3");
        assertThat(Double.parseDouble(text(config(dir).get("rope_theta")))).isEqualTo(1e6);
    }

    /** The router draws from four times a linear weight's range; the experts keep the linear range. */
    @Test
    void routerWeightsAreWiderThanTheExperts() {
        SyntheticModel m = SyntheticModel.builder(SynthFamily.QWEN3_MOE).hidden(64).numExperts(16).build();
        float[] router = SyntheticCheckpoint.values(m, "model.layers.0.mlp.gate.weight").toFloats();
        float[] expert = SyntheticCheckpoint.values(m, "model.layers.0.mlp.experts.3.gate_proj.weight").toFloats();
        assertThat(maxAbs(router)).isLessThanOrEqualTo(4 / 8.0).isGreaterThan(3.5 / 8);
        assertThat(maxAbs(expert)).isLessThanOrEqualTo(1 / 8.0).isGreaterThan(0.9 / 8);
        Tensor other = SyntheticCheckpoint.values(m, "model.layers.1.mlp.gate.weight");
        assertThat(other.bitEquals(SyntheticCheckpoint.values(m, "model.layers.0.mlp.gate.weight"))).isFalse();
    }

    private static double maxAbs(float[] v) {
        double m = 0;
        for (float x : v) {
            m = Math.max(m, Math.abs(x));
        }
        return m;
    }

    @Test
    void settingsAMoeFamilyCannotExpressAreRefused() {
        List<Runnable> bad = new ArrayList<>();
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN3).numExperts(4).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.LLAMA).mlpOnlyLayers(List.of()).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN3_MOE).expertsPerToken(5).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN3_MOE).sharedExpertIntermediate(8).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN2_MOE).sharedExpertIntermediate(0).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN2_MOE).attentionBias(true).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN3_MOE).slidingWindow(4).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN3_MOE).mlpOnlyLayers(List.of(2)).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN3_MOE).mlpOnlyLayers(List.of(1, 1)).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.QWEN3_MOE).decoderSparseStep(0).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.MIXTRAL).normTopkProb(false).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.MIXTRAL).moeIntermediate(16).build());
        bad.add(() -> SyntheticModel.builder(SynthFamily.MIXTRAL).decoderSparseStep(2).build());
        for (Runnable r : bad) {
            assertThatThrownBy(r::run).isInstanceOf(IllegalArgumentException.class);
        }
        assertThat(SyntheticModel.builder(SynthFamily.QWEN3_MOE).attentionBias(true).build().attentionBias()).isTrue();
    }
}
