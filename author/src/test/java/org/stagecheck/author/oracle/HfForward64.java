package org.stagecheck.author.oracle;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * An independent float64 forward of {@code LlamaForCausalLM}, {@code MistralForCausalLM},
 * {@code Qwen2ForCausalLM}, {@code Qwen3ForCausalLM} and the mixture-of-experts
 * {@code Qwen3MoeForCausalLM}, {@code Qwen2MoeForCausalLM} and {@code MixtralForCausalLM}, written
 * from FAMILIES.md as a test oracle. Every operation is in double except the rotary frequencies and angles, which the
 * reference computes in f32 in a way that moves results beyond rounding: {@code inv_freq}, its
 * llama3 scaling and {@code pos * inv_freq} are reproduced in f32 ({@link RotaryFrequencies64});
 * cos/sin of that f32 angle are double. Softmax and RMSNorm, f32 in the reference, are double here.
 *
 * <p>Two paths that check each other: a stateful decoder with a KV cache ({@link #prefill},
 * {@link #decode}, {@link #reset}), processing a chunk layer by layer against the cached keys,
 * and {@link #forwardAll}, a stateless full causal forward from position 0 that masks a square
 * score matrix. Keys are cached normed (Qwen3) and rotated; key {@code j} is visible to query
 * {@code p} iff {@code j <= p} and, with a window W (Mistral, Mixtral), {@code j > p - W}.
 *
 * <p>Sparse layers route each row on its own ({@link Router64}: softmax over all experts, top k,
 * ties to the lower expert index); {@link #lastRouting()} tells which experts the last call chose.
 */
public final class HfForward64 {
    private final HfConfig64 config;
    private final DecoderWeights64 weights;
    private final RotaryFrequencies64 rotary;
    private final double scale;
    private final List<List<double[]>> cachedKeys = new ArrayList<>();
    private final List<List<double[]>> cachedValues = new ArrayList<>();
    private final SortedMap<Integer, List<RowRouting64>> lastRouting = new TreeMap<>();

    public HfForward64(HfCheckpoint64 checkpoint) {
        this.config = checkpoint.config();
        this.weights = DecoderWeights64.read(checkpoint);
        this.rotary = RotaryFrequencies64.of(config);
        this.scale = Math.pow(config.headDim(), -0.5);
        for (int l = 0; l < config.layers(); l++) {
            cachedKeys.add(new ArrayList<>());
            cachedValues.add(new ArrayList<>());
        }
    }

    public static HfForward64 open(Path dir) {
        return new HfForward64(HfCheckpoint64.open(dir));
    }

    public HfConfig64 config() {
        return config;
    }

    /** The position the next token will take: the number of tokens in the cache. */
    public int position() {
        return cachedKeys.getFirst().size();
    }

    /** Empties the cache (and forgets the last routing): the next token is at position 0. */
    public void reset() {
        cachedKeys.forEach(List::clear);
        cachedValues.forEach(List::clear);
        lastRouting.clear();
    }

    /**
     * The routing of the last {@link #prefill}, {@link #decode} or {@link #forwardAll}: sparse layer
     * index to one entry per row of that call (row r is the call's r-th token), in row order. Dense
     * layers, and dense models, have no entry. A copy: later calls do not change it.
     */
    public SortedMap<Integer, List<RowRouting64>> lastRouting() {
        SortedMap<Integer, List<RowRouting64>> copy = new TreeMap<>();
        lastRouting.forEach((layer, rows) -> copy.put(layer, List.copyOf(rows)));
        return Collections.unmodifiableSortedMap(copy);
    }

    /** The smallest {@link RowRouting64#probabilityGap()} of the last call over every sparse layer and row; +infinity when none. */
    public double smallestRoutingGap() {
        return lastRouting.values().stream().flatMap(List::stream).mapToDouble(RowRouting64::probabilityGap).min()
                .orElse(Double.POSITIVE_INFINITY);
    }

    /** One token at the next position; its logits. */
    public double[] decode(int token) {
        return prefill(new int[] {token})[0];
    }

    /** The tokens at the next positions, each attending to the cache and to the chunk up to itself; the logits of every row. */
    public double[][] prefill(int[] tokens) {
        int start = position();
        double[][] x = embed(tokens);
        lastRouting.clear();
        for (int l = 0; l < config.layers(); l++) {
            DecoderWeights64.Layer layer = weights.layers().get(l);
            List<double[]> keys = cachedKeys.get(l);
            List<double[]> values = cachedValues.get(l);
            double[][] queries = new double[tokens.length][];
            for (int r = 0; r < tokens.length; r++) {
                Projected qkv = project(layer, x[r], start + r);
                queries[r] = qkv.q();
                keys.add(qkv.k());
                values.add(qkv.v());
            }
            for (int r = 0; r < tokens.length; r++) {
                int p = start + r;
                int first = config.slidingWindow() == 0 ? 0 : Math.max(0, p - config.slidingWindow() + 1);
                double[] attended = attendRange(queries[r], keys, values, first, p);
                x[r] = finishLayer(l, layer, x[r], attended);
            }
        }
        return logits(x);
    }

    /** The full causal forward of {@code tokens} from position 0, without the cache; every position's logits. */
    public double[][] forwardAll(int[] tokens) {
        int n = tokens.length;
        double[][] x = embed(tokens);
        lastRouting.clear();
        for (int l = 0; l < config.layers(); l++) {
            DecoderWeights64.Layer layer = weights.layers().get(l);
            Projected[] rows = new Projected[n];
            for (int p = 0; p < n; p++) {
                rows[p] = project(layer, x[p], p);
            }
            double[][] next = new double[n][];
            for (int p = 0; p < n; p++) {
                next[p] = finishLayer(l, layer, x[p], attendMasked(rows, p));
            }
            x = next;
        }
        return logits(x);
    }

    private record Projected(double[] q, double[] k, double[] v) {}

    /** input_layernorm, q/k/v projections (with their biases), Qwen3's per-head norms, then rotary at {@code pos}. */
    private Projected project(DecoderWeights64.Layer layer, double[] x, int pos) {
        double[] y = Ops64.rmsNorm(x, layer.inputNorm(), config.rmsNormEps());
        double[] q = layer.q().apply(y);
        double[] k = layer.k().apply(y);
        double[] v = layer.v().apply(y);
        if (config.qkNorm()) {
            Ops64.rmsNormHeads(q, config.heads(), layer.qNorm(), config.rmsNormEps());
            Ops64.rmsNormHeads(k, config.kvHeads(), layer.kNorm(), config.rmsNormEps());
        }
        rotary.rotate(q, config.heads(), pos);
        rotary.rotate(k, config.kvHeads(), pos);
        return new Projected(q, k, v);
    }

    /** Cache path: query head h against KV head h / (H/KH) over cached positions {@code first .. last}. */
    private double[] attendRange(double[] q, List<double[]> keys, List<double[]> values, int first, int last) {
        int dh = config.headDim();
        int group = config.heads() / config.kvHeads();
        double[] out = new double[config.heads() * dh];
        for (int h = 0; h < config.heads(); h++) {
            int kvOffset = (h / group) * dh;
            double[] scores = new double[last - first + 1];
            for (int j = first; j <= last; j++) {
                scores[j - first] = dot(q, h * dh, keys.get(j), kvOffset, dh) * scale;
            }
            double[] w = softmax(scores);
            for (int j = first; j <= last; j++) {
                double[] v = values.get(j);
                for (int i = 0; i < dh; i++) {
                    out[h * dh + i] += w[j - first] * v[kvOffset + i];
                }
            }
        }
        return out;
    }

    /** Full path: the score row of query {@code p} over all n keys, invisible keys masked to -infinity. */
    private double[] attendMasked(Projected[] rows, int p) {
        int dh = config.headDim();
        int perKvHead = config.heads() / config.kvHeads();
        int window = config.slidingWindow();
        double[] out = new double[config.heads() * dh];
        for (int h = 0; h < config.heads(); h++) {
            int kvHead = h / perKvHead;
            double max = Double.NEGATIVE_INFINITY;
            double[] scores = new double[rows.length];
            for (int j = 0; j < rows.length; j++) {
                boolean visible = j <= p && (window == 0 || j > p - window);
                scores[j] = visible ? dot(rows[p].q(), h * dh, rows[j].k(), kvHead * dh, dh) * scale : Double.NEGATIVE_INFINITY;
                max = Math.max(max, scores[j]);
            }
            double sum = 0;
            for (int j = 0; j < rows.length; j++) {
                scores[j] = Math.exp(scores[j] - max);
                sum += scores[j];
            }
            for (int j = 0; j < rows.length; j++) {
                for (int i = 0; i < dh; i++) {
                    out[h * dh + i] += scores[j] / sum * rows[j].v()[kvHead * dh + i];
                }
            }
        }
        return out;
    }

    /**
     * {@code h = x + o_proj(attn)}, then {@code h + mlp(post_attention_layernorm(h))}; in a sparse
     * layer {@code l} the MLP is the experts', and the row's routing is appended to layer l's list.
     */
    private double[] finishLayer(int l, DecoderWeights64.Layer layer, double[] x, double[] attended) {
        double[] h = Ops64.add(x, layer.o().apply(attended));
        double[] y = Ops64.rmsNorm(h, layer.postNorm(), config.rmsNormEps());
        double[] mlp = layer.moe() == null
                ? Ops64.mlp(layer, y)
                : layer.moe().apply(y, lastRouting.computeIfAbsent(l, k -> new ArrayList<>())::add);
        return Ops64.add(h, mlp);
    }

    private double[][] embed(int[] tokens) {
        int d = config.hidden();
        double[][] x = new double[tokens.length][];
        for (int r = 0; r < tokens.length; r++) {
            if (tokens[r] < 0 || tokens[r] >= config.vocab()) {
                throw new IllegalArgumentException("token " + tokens[r] + " at row " + r + " is outside the vocabulary of " + config.vocab());
            }
            x[r] = java.util.Arrays.copyOfRange(weights.embed(), tokens[r] * d, tokens[r] * d + d);
        }
        return x;
    }

    private double[][] logits(double[][] x) {
        double[][] out = new double[x.length][];
        for (int r = 0; r < x.length; r++) {
            out[r] = weights.head().apply(Ops64.rmsNorm(x[r], weights.finalNorm(), config.rmsNormEps()));
        }
        return out;
    }

    private static double dot(double[] a, int aFrom, double[] b, int bFrom, int n) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += a[aFrom + i] * b[bFrom + i];
        }
        return s;
    }

    private static double[] softmax(double[] scores) {
        double max = Double.NEGATIVE_INFINITY;
        for (double s : scores) {
            max = Math.max(max, s);
        }
        double sum = 0;
        double[] w = new double[scores.length];
        for (int i = 0; i < w.length; i++) {
            w[i] = Math.exp(scores[i] - max);
            sum += w[i];
        }
        for (int i = 0; i < w.length; i++) {
            w[i] /= sum;
        }
        return w;
    }
}
