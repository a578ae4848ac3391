package org.stagecheck.author;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A decoder-only transformer in the style of current open models (brief, "Cuts of a model"):
 * token embedding; per layer RMSNorm, rotary attention with grouped-query heads and a KV cache,
 * residual, RMSNorm, gated SiLU MLP, residual; then final RMSNorm, head and arg-max.
 *
 * <p>Weights are not stored here: they are generated deterministically from {@code seed}
 * ({@link Weights}). Construction checks what one spec can know (positive sizes, an even head
 * dimension for rotary pairs, query heads a multiple of KV heads).
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
 * @param seed      seed of the deterministic weights
 */
public record ModelSpec(String name, int vocab, int hidden, int layers, int heads, int kvHeads,
                        int headDim, int ffn, double ropeTheta, double normEps, long seed) {

    public ModelSpec {
        Objects.requireNonNull(name, "name");
        String problem = problem(vocab, hidden, layers, heads, kvHeads, headDim, ffn, ropeTheta, normEps);
        if (problem != null) {
            throw new IllegalArgumentException("model spec '" + name + "': " + problem);
        }
    }

    /**
     * For tests: small enough that every law runs in well under a second per case; 8 query heads
     * over 4 KV heads, so that it splits over 2 and 4 chips.
     */
    public static ModelSpec tiny() {
        return new ModelSpec("tiny", 64, 32, 2, 8, 4, 8, 64, 10000.0, 1e-5, 1L);
    }

    /** For benchmarks: hidden 512, 4 layers, 8 heads over 4 KV heads, vocabulary 4096. */
    public static ModelSpec small() {
        return new ModelSpec("small", 4096, 512, 4, 8, 4, 64, 1408, 10000.0, 1e-5, 2L);
    }

    /**
     * The CLI's {@code --model} value: {@code tiny}, {@code small}, or the path of a JSON spec
     * file (see {@link #read}).
     */
    public static ModelSpec resolve(String nameOrFile) throws ModelSpecException {
        if (nameOrFile == null || nameOrFile.isBlank()) {
            throw new ModelSpecException("no model given; expected tiny, small or a JSON spec file");
        }
        return switch (nameOrFile) {
            case "tiny" -> tiny();
            case "small" -> small();
            default -> read(Path.of(nameOrFile));
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

    private static final Set<String> FIELDS = Set.of("name", "vocab", "hidden", "layers", "heads", "kvHeads",
            "headDim", "ffn", "ropeTheta", "normEps", "seed");

    /**
     * Reads a spec from a JSON object with exactly the record's component names, e.g.
     * {@code {"name":"m","vocab":64,"hidden":32,"layers":2,"heads":4,"kvHeads":2,"headDim":8,
     * "ffn":64,"ropeTheta":10000,"normEps":1e-5,"seed":1}}.
     */
    public static ModelSpec read(Path jsonFile) throws ModelSpecException {
        JsonNode root;
        try {
            root = new ObjectMapper().readTree(Files.readString(jsonFile));
        } catch (IOException e) {
            throw new ModelSpecException(jsonFile + ": cannot read a JSON model spec: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new ModelSpecException(jsonFile + ": a model spec is a JSON object");
        }
        List<String> unknown = new ArrayList<>();
        for (Iterator<String> it = root.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!FIELDS.contains(f)) {
                unknown.add(f);
            }
        }
        if (!unknown.isEmpty()) {
            throw new ModelSpecException(jsonFile + ": unknown field(s) " + unknown + "; expected " + FIELDS.stream().sorted().toList());
        }
        JsonNode n = root.get("name");
        if (n == null || !n.isTextual()) {
            throw new ModelSpecException(jsonFile + ": field \"name\" must be a string");
        }
        int vocab = intField(jsonFile, root, "vocab");
        int hidden = intField(jsonFile, root, "hidden");
        int layers = intField(jsonFile, root, "layers");
        int heads = intField(jsonFile, root, "heads");
        int kvHeads = intField(jsonFile, root, "kvHeads");
        int headDim = intField(jsonFile, root, "headDim");
        int ffn = intField(jsonFile, root, "ffn");
        double theta = doubleField(jsonFile, root, "ropeTheta");
        double eps = doubleField(jsonFile, root, "normEps");
        JsonNode s = root.get("seed");
        if (s == null || !s.isIntegralNumber() || !s.canConvertToLong()) {
            throw new ModelSpecException(jsonFile + ": field \"seed\" must be an integer");
        }
        String problem = problem(vocab, hidden, layers, heads, kvHeads, headDim, ffn, theta, eps);
        if (problem != null) {
            throw new ModelSpecException(jsonFile + ": " + problem);
        }
        return new ModelSpec(n.asText(), vocab, hidden, layers, heads, kvHeads, headDim, ffn, theta, eps, s.asLong());
    }

    private static int intField(Path file, JsonNode root, String field) throws ModelSpecException {
        JsonNode v = root.get(field);
        if (v == null || !v.isIntegralNumber() || !v.canConvertToInt()) {
            throw new ModelSpecException(file + ": field \"" + field + "\" must be a 32-bit integer");
        }
        return v.asInt();
    }

    private static double doubleField(Path file, JsonNode root, String field) throws ModelSpecException {
        JsonNode v = root.get(field);
        if (v == null || !v.isNumber()) {
            throw new ModelSpecException(file + ": field \"" + field + "\" must be a number");
        }
        return v.asDouble();
    }

    /** The first thing wrong with these sizes, or null. */
    private static String problem(int vocab, int hidden, int layers, int heads, int kvHeads, int headDim, int ffn,
                                  double theta, double eps) {
        if (vocab < 1 || hidden < 1 || layers < 1 || heads < 1 || kvHeads < 1 || headDim < 1 || ffn < 1) {
            return "every size (vocab, hidden, layers, heads, kvHeads, headDim, ffn) must be at least 1";
        }
        if (headDim % 2 != 0) {
            return "headDim must be even (rotary embedding rotates pairs), not " + headDim;
        }
        if (heads % kvHeads != 0) {
            return "heads (" + heads + ") must be a multiple of kvHeads (" + kvHeads + ")";
        }
        if (!(theta > 1.0) || Double.isInfinite(theta)) {
            return "ropeTheta must be a finite number above 1, not " + theta;
        }
        if (!(eps > 0.0) || Double.isInfinite(eps)) {
            return "normEps must be a finite positive number, not " + eps;
        }
        if ((long) vocab * hidden > Integer.MAX_VALUE || (long) hidden * ffn > Integer.MAX_VALUE
                || (long) hidden * heads * headDim > Integer.MAX_VALUE) {
            return "a weight matrix would exceed 2^31 elements";
        }
        return null;
    }
}
