package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.oracle.TestCheckpointWriter.Dtype;
import org.stagecheck.author.oracle.TestCheckpointWriter.Tensor64;

/**
 * Mixture-of-experts layers small enough to work out by hand. D = 4, one head, the vocabulary as
 * wide as the hidden state, every token embedded as (1,1,1,1); RMSNorms of weight 1 and eps 0, so
 * the post-attention norm gives y = (1,1,1,1); v_proj and o_proj are zero, so attention adds
 * nothing (q_proj = k_proj = I only keep Qwen3's q/k norms off 0/0). lm_head = I: the logits are
 * x'/rms(x') with x' = (1,1,1,1) + mlp(y).
 *
 * <p>The router's row e is (l_e, 0, 0, 0) with l = (1, 0, 2, -1): logits l, softmax
 * p_e = e^{l_e} / Z, Z = e + 1 + e^2 + e^{-1}; top-2 is experts 2 then 0. Expert e has gate
 * (2,0,0,0), up (0.5,0,0,0) and down the unit column e: its output is t * unit_e with
 * t = silu(2) * 0.5 (gate and up swapped would give silu(0.5) * 2). So x' = 1 + t * (w_0, 0, w_2, 0).
 */
class MoeHandComputedTest {
    private static final double TOLERANCE = 1e-14;
    private static final double[] ROUTER_LOGITS = {1, 0, 2, -1};
    private static final double Z = Math.E + 1 + Math.exp(2) + Math.exp(-1);
    private static final double T = silu(2) * 0.5;

    private static double silu(double x) {
        return x / (1 + Math.exp(-x));
    }

    private static double sigmoid(double x) {
        return 1 / (1 + Math.exp(-x));
    }

    @Test
    void theRouterTakesTheTopKOfTheSoftmaxOverAllExpertsAndRenormalisesOnlyWhenAsked() {
        RowRouting64 plain = Router64.route(ROUTER_LOGITS, 2, false);
        assertThat(plain.experts()).containsExactly(2, 0);
        assertThat(plain.weights()[0]).isCloseTo(Math.exp(2) / Z, org.assertj.core.data.Offset.offset(TOLERANCE));
        assertThat(plain.weights()[1]).isCloseTo(Math.E / Z, org.assertj.core.data.Offset.offset(TOLERANCE));
        assertThat(plain.weights()[0] + plain.weights()[1]).isLessThan(0.9); // the full softmax's share, not 1
        assertThat(plain.probabilities()).containsExactly(new double[] {Math.E / Z, 1 / Z, Math.exp(2) / Z, Math.exp(-1) / Z},
                org.assertj.core.data.Offset.offset(TOLERANCE));
        assertThat(plain.probabilityGap()).isCloseTo((Math.E - 1) / Z, org.assertj.core.data.Offset.offset(TOLERANCE));
        assertThat(plain.logitGap()).isEqualTo(1.0);
        assertThat(plain.expertsByIndex()).containsExactly(0, 2);
        assertThat(plain.weightOf(1)).isZero();

        RowRouting64 renormalised = Router64.route(ROUTER_LOGITS, 2, true);
        assertThat(renormalised.experts()).containsExactly(2, 0);
        assertThat(renormalised.weights()[0]).isCloseTo(Math.exp(2) / (Math.exp(2) + Math.E), org.assertj.core.data.Offset.offset(TOLERANCE));
        assertThat(renormalised.weights()[1]).isCloseTo(Math.E / (Math.exp(2) + Math.E), org.assertj.core.data.Offset.offset(TOLERANCE));
        assertThat(renormalised.probabilityGap()).isEqualTo(plain.probabilityGap());
    }

    /** Equal probabilities go to the lower expert index first (a convention: torch.topk leaves their order open); the gap says so. */
    @Test
    void tiesGoToTheLowerExpertIndexAndShowAsAZeroGap() {
        double[] logits = {0.5, 1, 1, 0.5};
        RowRouting64 one = Router64.route(logits, 1, true);
        assertThat(one.experts()).containsExactly(1);
        assertThat(one.weights()).containsExactly(1.0);
        assertThat(one.probabilityGap()).isZero();
        assertThat(Router64.route(logits, 3, false).experts()).containsExactly(1, 2, 0);
        assertThat(Router64.route(logits, 2, false).probabilityGap()).isGreaterThan(0.1);
        RowRouting64 all = Router64.route(logits, 4, false);
        assertThat(all.probabilityGap()).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(all.weights()[0] + all.weights()[1] + all.weights()[2] + all.weights()[3]).isCloseTo(1, org.assertj.core.data.Offset.offset(1e-15));
    }

    /**
     * norm_topk_prob false: w_2 = e^2/Z and w_0 = e/Z, the full softmax's probabilities. A softmax
     * over the two selected logits would give e^2/(e^2+e) and e/(e^2+e), the renormalised weights
     * of the second model.
     */
    @Test
    void qwen3MoeTopTwoWithAndWithoutRenormalisation(@TempDir Path dir) {
        Map<String, Object> config = config("Qwen3MoeForCausalLM", 1);
        config.put("num_experts", 4);
        config.put("norm_topk_prob", false);
        HfForward64 plain = write(dir.resolve("plain"), config, weights(1, "mlp.", List.of(0), false, true));
        double w2 = Math.exp(2) / Z;
        double w0 = Math.E / Z;
        LogitsAssert.close(plain.forwardAll(new int[] {0})[0], normed(1 + T * w0, 1, 1 + T * w2, 1), TOLERANCE, "norm_topk_prob false");
        RowRouting64 r = plain.lastRouting().get(0).getFirst();
        assertThat(r.experts()).containsExactly(2, 0);
        assertThat(r.weights()).containsExactly(new double[] {w2, w0}, org.assertj.core.data.Offset.offset(TOLERANCE));

        config.remove("num_experts");
        config.put("num_local_experts", 4); // v5's spelling
        config.put("norm_topk_prob", true);
        HfForward64 renormalised = write(dir.resolve("renormalised"), config, weights(1, "mlp.", List.of(0), false, true));
        double v2 = Math.exp(2) / (Math.exp(2) + Math.E);
        double v0 = Math.E / (Math.exp(2) + Math.E);
        LogitsAssert.close(renormalised.forwardAll(new int[] {0})[0], normed(1 + T * v0, 1, 1 + T * v2, 1), TOLERANCE, "norm_topk_prob true");
        assertThat(renormalised.lastRouting().get(0).getFirst().weights()).containsExactly(new double[] {v2, v0},
                org.assertj.core.data.Offset.offset(TOLERANCE));
    }

    /**
     * Qwen2-MoE (norm_topk_prob false) adds sigmoid(y . W_sg) * shared(y): W_sg = (0.5,0,0,0) gives
     * sigmoid(0.5); the shared expert has the experts' gate and up and down (0,1,0,1), so
     * x' = 1 + t * (w_0, s, w_2, s) with s = sigmoid(0.5). Without the sigmoid s would be 0.5.
     */
    @Test
    void qwen2MoeAddsTheSigmoidGatedSharedExpert(@TempDir Path dir) {
        Map<String, Object> config = config("Qwen2MoeForCausalLM", 1);
        config.put("num_experts", 4);
        config.put("shared_expert_intermediate_size", 1);
        Map<String, Tensor64> w = weights(1, "mlp.", List.of(0), false, false);
        for (String b : List.of("q_proj", "k_proj", "v_proj")) {
            w.put("model.layers.0.self_attn." + b + ".bias", zeros(4)); // hub files lack qkv_bias: it is true
        }
        w.put("model.layers.0.mlp.shared_expert.gate_proj.weight", t(new int[] {1, 4}, 2, 0, 0, 0));
        w.put("model.layers.0.mlp.shared_expert.up_proj.weight", t(new int[] {1, 4}, 0.5, 0, 0, 0));
        w.put("model.layers.0.mlp.shared_expert.down_proj.weight", t(new int[] {4, 1}, 0, 1, 0, 1));
        w.put("model.layers.0.mlp.shared_expert_gate.weight", t(new int[] {1, 4}, 0.5, 0, 0, 0));
        HfForward64 model = write(dir, config, w);
        double s = sigmoid(0.5);
        double[] expected = normed(1 + T * Math.E / Z, 1 + T * s, 1 + T * Math.exp(2) / Z, 1 + T * s);
        LogitsAssert.close(model.forwardAll(new int[] {0})[0], expected, TOLERANCE, "shared expert");
    }

    /**
     * Mixtral: block_sparse_moe names, w1 the gate, w3 the up and w2 the down projection, experts of
     * intermediate_size, and the top-k always renormalised, whatever a stray norm_topk_prob says.
     */
    @Test
    void mixtralReadsBlockSparseMoeNamesAndAlwaysRenormalises(@TempDir Path dir) {
        Map<String, Object> config = config("MixtralForCausalLM", 1);
        config.put("num_local_experts", 4);
        config.put("norm_topk_prob", false);
        config.remove("head_dim");
        config.put("num_attention_heads", 1);
        HfForward64 model = write(dir, config, weights(1, "block_sparse_moe.", List.of(0), true, false));
        double v2 = Math.exp(2) / (Math.exp(2) + Math.E);
        double v0 = Math.E / (Math.exp(2) + Math.E);
        LogitsAssert.close(model.forwardAll(new int[] {0})[0], normed(1 + T * v0, 1, 1 + T * v2, 1), TOLERANCE, "Mixtral");
        assertThat(model.config().moe().expertIntermediate()).isEqualTo(1);
    }

    /**
     * Four layers, decoder_sparse_step 2, mlp_only_layers [3]: (l + 1) % 2 == 0 picks layers 1 and 3,
     * and 3 is kept dense, so layer 1 alone is sparse (l % 2 would pick 0 and 2). The dense layers'
     * MLPs are zero and only layer 1 carries the router: the logits are the one-layer model's, the
     * routing has layer 1 only, and reading experts in layer 0 instead fails by name.
     */
    @Test
    void onlyLayersWithAStepMultipleAndNotListedAreSparse(@TempDir Path dir) {
        Map<String, Object> config = config("Qwen3MoeForCausalLM", 4);
        config.put("num_experts", 4);
        config.put("decoder_sparse_step", 2);
        config.put("mlp_only_layers", List.of(3));
        HfForward64 model = write(dir.resolve("ok"), config, weights(4, "mlp.", List.of(1), false, true));
        assertThat(model.config().moe().isSparse(1)).isTrue();
        LogitsAssert.close(model.forwardAll(new int[] {0, 0})[1], normed(1 + T * Math.E / Z, 1, 1 + T * Math.exp(2) / Z, 1), TOLERANCE,
                "layer 1 sparse");
        assertThat(model.lastRouting().keySet()).containsExactly(1);
        assertThat(model.lastRouting().get(1)).hasSize(2);

        assertThatThrownBy(() -> write(dir.resolve("wrong"), config, weights(4, "mlp.", List.of(0), false, true)))
                .isInstanceOf(OracleInputException.class).hasMessageContaining("no tensor model.layers.0.mlp.gate_proj.weight");
    }

    @Test
    void fusedExpertTensorsAreRefused(@TempDir Path dir) {
        Map<String, Object> config = config("Qwen3MoeForCausalLM", 1);
        config.put("num_experts", 4);
        Map<String, Tensor64> w = weights(1, "mlp.", List.of(0), false, true);
        w.put("model.layers.0.mlp.experts.gate_up_proj", zeros(4, 2, 4));
        assertThatThrownBy(() -> write(dir, config, w)).isInstanceOf(OracleInputException.class)
                .hasMessageContaining("model.layers.0.mlp.experts.gate_up_proj is a fused expert tensor");
    }

    private static double[] normed(double... x) {
        double ss = 0;
        for (double v : x) {
            ss += v * v;
        }
        double r = Math.sqrt(ss / x.length);
        double[] out = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = x[i] / r;
        }
        return out;
    }

    private static Map<String, Object> config(String architecture, int layers) {
        Map<String, Object> c = new LinkedHashMap<>();
        c.put("architectures", List.of(architecture));
        c.put("vocab_size", 4);
        c.put("hidden_size", 4);
        c.put("intermediate_size", 1);
        c.put("num_hidden_layers", layers);
        c.put("num_attention_heads", 1);
        c.put("num_key_value_heads", 1);
        c.put("head_dim", 4);
        c.put("rms_norm_eps", 0.0);
        c.put("rope_theta", 10000.0);
        c.put("num_experts_per_tok", 2);
        c.put("moe_intermediate_size", 1);
        return c;
    }

    /**
     * Layers as the class comment says; {@code sparse} lists the layers with experts under
     * {@code block} ("mlp." or Mixtral's "block_sparse_moe."), the others get zero dense MLPs of width 1.
     */
    private static Map<String, Tensor64> weights(int layers, String block, List<Integer> sparse, boolean mixtralNames, boolean qkNorms) {
        Map<String, Tensor64> w = new LinkedHashMap<>();
        w.put("model.embed_tokens.weight", t(new int[] {4, 4}, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1));
        for (int l = 0; l < layers; l++) {
            String p = "model.layers." + l + ".";
            w.put(p + "input_layernorm.weight", ones(4));
            w.put(p + "post_attention_layernorm.weight", ones(4));
            w.put(p + "self_attn.q_proj.weight", identity(4));
            w.put(p + "self_attn.k_proj.weight", identity(4));
            w.put(p + "self_attn.v_proj.weight", zeros(4, 4));
            w.put(p + "self_attn.o_proj.weight", zeros(4, 4));
            if (qkNorms) {
                w.put(p + "self_attn.q_norm.weight", ones(4));
                w.put(p + "self_attn.k_norm.weight", ones(4));
            }
            if (!sparse.contains(l)) {
                w.put(p + "mlp.gate_proj.weight", zeros(1, 4));
                w.put(p + "mlp.up_proj.weight", zeros(1, 4));
                w.put(p + "mlp.down_proj.weight", zeros(4, 1));
                continue;
            }
            double[] router = new double[16];
            for (int e = 0; e < 4; e++) {
                router[e * 4] = ROUTER_LOGITS[e];
            }
            w.put(p + block + "gate.weight", new Tensor64(new int[] {4, 4}, router));
            for (int e = 0; e < 4; e++) {
                String x = p + block + "experts." + e + ".";
                double[] down = new double[4];
                down[e] = 1;
                w.put(x + (mixtralNames ? "w1" : "gate_proj") + ".weight", t(new int[] {1, 4}, 2, 0, 0, 0));
                w.put(x + (mixtralNames ? "w3" : "up_proj") + ".weight", t(new int[] {1, 4}, 0.5, 0, 0, 0));
                w.put(x + (mixtralNames ? "w2" : "down_proj") + ".weight", new Tensor64(new int[] {4, 1}, down));
            }
        }
        w.put("model.norm.weight", ones(4));
        w.put("lm_head.weight", identity(4));
        return w;
    }

    private static HfForward64 write(Path dir, Map<String, Object> config, Map<String, Tensor64> weights) {
        TestCheckpointWriter.writeConfig(dir, config);
        TestCheckpointWriter.writeSingle(dir, weights, Dtype.F32);
        return HfForward64.open(dir);
    }

    private static Tensor64 t(int[] shape, double... values) {
        return new Tensor64(shape, values);
    }

    private static Tensor64 zeros(int... shape) {
        int n = 1;
        for (int s : shape) {
            n *= s;
        }
        return new Tensor64(shape, new double[n]);
    }

    private static Tensor64 ones(int n) {
        double[] v = new double[n];
        java.util.Arrays.fill(v, 1);
        return new Tensor64(new int[] {n}, v);
    }

    private static Tensor64 identity(int n) {
        double[] v = new double[n * n];
        for (int i = 0; i < n; i++) {
            v[i * n + i] = 1;
        }
        return new Tensor64(new int[] {n, n}, v);
    }
}
