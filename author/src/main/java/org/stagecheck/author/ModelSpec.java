package org.stagecheck.author;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.stagecheck.spec.validate.NameRules;

/**
 * A decoder-only transformer in the style of current open models (brief, "Cuts of a model"):
 * token embedding; per layer RMSNorm, rotary attention with grouped-query heads and a KV cache,
 * residual, RMSNorm, gated SiLU MLP, residual; then final RMSNorm, head and arg-max.
 *
 * <p>Weights are not stored here: they are generated deterministically from {@code seed}
 * ({@link Weights}). Construction checks what one spec can know (positive sizes, an even head
 * dimension for rotary pairs, query heads a multiple of KV heads) and the limits of authoring
 * ({@link #MAX_LAYERS}, {@link #MAX_VOCAB}, {@link #MAX_WIDTH}, {@link #MAX_WEIGHT_BYTES}).
 *
 * @param vocab     vocabulary size (rows of the embedding, columns of the head)
 * @param hidden    model width D
 * @param layers    number of decoder layers
 * @param heads     query heads H
 * @param kvHeads   key/value heads (grouped-query attention: H/kvHeads query heads share one)
 * @param headDim   width of one head (even: rotary rotates pairs)
 * @param ffn       width of the gated MLP
 * @param ropeTheta rotary base
 * @param normEps   RMSNorm epsilon
 * @param seed      seed of the deterministic weights (unused for a checkpoint's)
 * @param arch      the family and its features (biases, q/k norm, window, rotary scaling, tied head)
 * @param checkpoint where the weights are read from, or null when they are generated from {@code seed}
 */
public record ModelSpec(String name, int vocab, int hidden, int layers, int heads, int kvHeads,
                        int headDim, int ffn, double ropeTheta, double normEps, long seed,
                        Architecture arch, CheckpointSource checkpoint) {
    /** The most decoder layers authored (docs/format.md, "Limits"). */
    public static final int MAX_LAYERS = 256;
    /** The largest vocabulary authored. */
    public static final int MAX_VOCAB = 1 << 20;
    /** The largest width: hidden, ffn, heads x headDim, kvHeads x headDim. */
    public static final int MAX_WIDTH = 1 << 16;
    /** The most weight bytes authored, counted as f32: 2 GiB. */
    public static final long MAX_WEIGHT_BYTES = 1L << 31;

    public ModelSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(arch, "arch");
        ModelSpecProblem problem = problem(name, vocab, hidden, layers, heads, kvHeads, headDim, ffn, ropeTheta, normEps,
                checkpoint != null);
        if (problem != null) {
            throw new IllegalArgumentException("model spec '" + name + "': " + problem.message());
        }
    }

    /** stagecheck's plain generated model ({@link Architecture#plain()}), weights from {@code seed}. */
    public ModelSpec(String name, int vocab, int hidden, int layers, int heads, int kvHeads,
                     int headDim, int ffn, double ropeTheta, double normEps, long seed) {
        this(name, vocab, hidden, layers, heads, kvHeads, headDim, ffn, ropeTheta, normEps, seed, Architecture.plain(), null);
    }

    /** This model with another architecture (generated weights keep their seed). */
    public ModelSpec withArch(Architecture other) {
        return new ModelSpec(name, vocab, hidden, layers, heads, kvHeads, headDim, ffn, ropeTheta, normEps, seed, other, checkpoint);
    }

    /** Whether the weights come from a checkpoint rather than the seed. */
    public boolean fromCheckpoint() {
        return checkpoint != null;
    }

    /** KV cache rows of one sequence for a cut over {@code ctx} positions ({@link Architecture#cacheSlots}). */
    public int cacheSlots(int ctx) {
        return arch.cacheSlots(ctx);
    }

    /**
     * For tests: small enough that every law runs in well under a second per case; 8 query heads
     * over 4 KV heads, so that it splits over 2 and 4 chips.
     */
    public static ModelSpec tiny() {
        return new ModelSpec("tiny", 64, 32, 2, 8, 4, 8, 64, 10000.0, 1e-5, 1L);
    }

    /**
     * {@link #tiny()} with a mixture of experts in every layer: 8 experts of width 32, the top 2
     * chosen and renormalised, and a shared expert of width 48 (the shape of Qwen2-MoE).
     */
    public static ModelSpec tinyMoe() {
        return new ModelSpec("tiny-moe", 64, 32, 2, 8, 4, 8, 64, 10000.0, 1e-5, 5L,
                Architecture.plain().withMoe(new Moe(8, 2, 32, true, 1, java.util.List.of(), 48)), null);
    }

    /** For benchmarks: hidden 512, 4 layers, 8 heads over 4 KV heads, vocabulary 4096. */
    public static ModelSpec small() {
        return new ModelSpec("small", 4096, 512, 4, 8, 4, 64, 1408, 10000.0, 1e-5, 2L);
    }

    /**
     * The CLI's {@code --model} value: {@code tiny}, {@code small}, the path of a JSON spec
     * file (see {@link #read}), or a Hugging Face model directory (its config.json and
     * safetensors files; docs/author.md, "Checkpoints").
     */
    public static ModelSpec resolve(String nameOrFile) throws ModelSpecException {
        if (nameOrFile == null || nameOrFile.isBlank()) {
            throw new ModelSpecException("no model given; expected tiny, small, tiny-moe, a JSON spec file or a model directory");
        }
        return switch (nameOrFile) {
            case "tiny" -> tiny();
            case "small" -> small();
            case "tiny-moe" -> tinyMoe();
            // any other value is the path of a spec file
            default -> {
                Path file;
                try {
                    file = Path.of(nameOrFile);
                } catch (java.nio.file.InvalidPathException e) {
                    throw new ModelSpecException(NameRules.quote(nameOrFile) + ": cannot read a JSON model spec: not a path");
                }
                if (!Files.exists(file)) {
                    throw new ModelSpecException(nameOrFile + ": cannot read a JSON model spec: no such file (the models are tiny, small,"
                            + " a spec file or a Hugging Face model directory)");
                }
                if (Files.isDirectory(file)) {
                    if (!org.stagecheck.author.hf.HfModel.isModelDir(file)) {
                        throw new ModelSpecException(nameOrFile + ": a directory without config.json; a Hugging Face model directory has"
                                + " config.json and model.safetensors (or model.safetensors.index.json and its shards)");
                    }
                    yield org.stagecheck.author.hf.HfModel.open(file);
                }
                yield read(file);
            }
        };
    }

    /** Query heads per KV head. */
    public int groupSize() {
        return heads / kvHeads;
    }

    /** Width of the query projection, {@code heads * headDim}. */
    public int qWidth() {
        return heads * headDim;
    }

    /** Width of one KV cache row, {@code kvHeads * headDim}. */
    public int kvWidth() {
        return kvHeads * headDim;
    }

    /**
     * Reads a spec file (docs/author.md, "Model spec file"): a JSON object with exactly the
     * record's component names (plus optional {@code "format": "stagecheck-model", "version": 1}),
     * e.g. {@code {"name":"m","vocab":64,"hidden":32,"layers":2,"heads":4,"kvHeads":2,"headDim":8,
     * "ffn":64,"ropeTheta":10000,"normEps":1e-5,"seed":1}}. Read with the project's JSON reader:
     * duplicate keys, trailing content and oversized files are refused, errors name line:column;
     * a model beyond the {@link #MAX_LAYERS limits} is refused before any work.
     */
    public static ModelSpec read(Path jsonFile) throws ModelSpecException {
        return ModelSpecFile.read(jsonFile);
    }

    /** Writes this spec as a model spec file's JSON (what {@link #read} reads back equal): the {@code model.json} of an authored directory. */
    public void writeJson(java.io.OutputStream out) throws java.io.IOException {
        ModelSpecFile.write(this, out);
    }

    /** The number of weight values (embedding, every layer, final norm, head; not the rotary tables). */
    public long weightCount() {
        return weightCount(vocab, hidden, layers, heads, kvHeads, headDim, ffn);
    }

    private static long weightCount(long vocab, long hidden, long layers, long heads, long kvHeads, long headDim, long ffn) {
        long q = heads * headDim;
        long kv = kvHeads * headDim;
        long perLayer = 2 * hidden + hidden * q + 2 * hidden * kv + q * hidden + 3 * hidden * ffn;
        return 2 * vocab * hidden + layers * perLayer + hidden;
    }

    /** The first thing wrong with these sizes, and the field that decides it, or null. */
    static ModelSpecProblem problem(String name, int vocab, int hidden, int layers, int heads, int kvHeads, int headDim, int ffn,
                                    double theta, double eps, boolean checkpoint) {
        String nameProblem = NameRules.problem(name);
        if (nameProblem != null) {
            return new ModelSpecProblem("name", "the model name " + NameRules.quote(name) + " " + nameProblem);
        }
        String[] sizeFields = {"vocab", "hidden", "layers", "heads", "kvHeads", "headDim", "ffn"};
        int[] sizes = {vocab, hidden, layers, heads, kvHeads, headDim, ffn};
        for (int i = 0; i < sizes.length; i++) {
            if (sizes[i] < 1) {
                return new ModelSpecProblem(sizeFields[i], sizeFields[i] + " is " + sizes[i]
                        + "; every size (vocab, hidden, layers, heads, kvHeads, headDim, ffn) must be at least 1");
            }
        }
        if (layers > MAX_LAYERS) {
            return new ModelSpecProblem("layers", "layers is " + layers + "; at most " + MAX_LAYERS + " are authored");
        }
        if (vocab > MAX_VOCAB) {
            return new ModelSpecProblem("vocab", "vocab is " + vocab + "; at most " + MAX_VOCAB + " is authored");
        }
        String wide = hidden > MAX_WIDTH ? "hidden" : ffn > MAX_WIDTH ? "ffn"
                : (long) heads * headDim > MAX_WIDTH ? "heads" : (long) kvHeads * headDim > MAX_WIDTH ? "kvHeads" : null;
        if (wide != null) {
            // a product over the limit is placed at its head count
            return new ModelSpecProblem(wide, "a width (hidden, ffn, heads x headDim, kvHeads x headDim) is over the limit of " + MAX_WIDTH);
        }
        long count = weightCount(vocab, hidden, layers, heads, kvHeads, headDim, ffn);
        // generated weights are made in f32 in memory; a checkpoint's are read as stored, per tensor
        if (!checkpoint && count > MAX_WEIGHT_BYTES / 4) {
            return new ModelSpecProblem(null, String.format(java.util.Locale.ROOT,
                    "the weights would take %.1f GiB as f32 (%d values); at most %d GiB are authored",
                    count * 4.0 / (1L << 30), count, MAX_WEIGHT_BYTES >> 30));
        }
        if (headDim % 2 != 0) {
            return new ModelSpecProblem("headDim", "headDim must be even (rotary embedding rotates pairs), not " + headDim);
        }
        if (heads % kvHeads != 0) {
            return new ModelSpecProblem("kvHeads", "heads (" + heads + ") must be a multiple of kvHeads (" + kvHeads + ")");
        }
        if (!(theta > 1.0) || Double.isInfinite(theta)) {
            return new ModelSpecProblem("ropeTheta", "ropeTheta must be a finite number above 1, not " + theta);
        }
        if (!(eps > 0.0) || Double.isInfinite(eps)) {
            return new ModelSpecProblem("normEps", "normEps must be a finite positive number, not " + eps);
        }
        if ((long) vocab * hidden > Integer.MAX_VALUE || (long) hidden * ffn > Integer.MAX_VALUE
                || (long) hidden * heads * headDim > Integer.MAX_VALUE) {
            return new ModelSpecProblem(null, "a weight matrix would exceed 2^31 elements");
        }
        return null;
    }
}
