package org.stagecheck.author.laws;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * The laws of the cuts, as reusable gates (brief, "Cuts of a model"; docs/author.md, "Laws").
 * Each law authors the cuts it needs, passes every program through the {@link CutCompiler}
 * under test, runs it on the reference interpreter and compares. A law returns a
 * {@link LawResult}; it never throws for a program that faults (that is a failed law).
 *
 * <ul>
 *   <li><b>composition</b> (bit-exact): embed, then every layer, then head equals the whole
 *       step, logits, next token and every KV cache alike. The cuts run the same stages on the
 *       same values, only with the hidden state passed through DRAM as f32, which is exact.</li>
 *   <li><b>prefill/decode consistency</b> (bit-exact): the prefill of n tokens equals n decode
 *       steps. Each output element of every matmul is one f32 fma chain over k in ascending
 *       order whatever the row count; masked keys contribute exp(-inf) = 0 exactly.</li>
 *   <li><b>batch invariance</b> (bit-exact): row r of a batch equals sequence r decoded alone,
 *       for the same reasons, with rows at different positions.</li>
 *   <li><b>split equivalence</b> (within {@link #SPLIT_RELATIVE_TOLERANCE} of the largest
 *       magnitude of each compared tensor): the tp-split program equals the unsplit one. Not
 *       bit-exact: the row-split projections sum tp partials after the fact, which re-associates
 *       the f32 accumulation over the contraction axis. Token ids must match unless the unsplit
 *       top two logits lie within the tolerance of each other.</li>
 * </ul>
 *
 * <p>An instance caches the programs it authors; it is not safe for concurrent use.
 */
public final class Laws {
    /** Split equivalence: the bound on |split - unsplit| relative to the unsplit tensor's largest |value|. */
    public static final double SPLIT_RELATIVE_TOLERANCE = 1e-4;

    private final ModelSpec spec;
    private final AuthorOptions options;
    private final CutRunner runner;

    /** The laws of {@code spec}'s authored programs, as written, on one chip of 2x2 cores. */
    public Laws(ModelSpec spec) {
        this(spec, AuthorOptions.single(), CutCompiler.identity(), RunOptions.defaults());
    }

    /**
     * @param options    the grid (and tp, normally 1) of the programs the laws author; split
     *                   equivalence authors with {@code options.withTp(tp)}
     * @param compiler   the program-producing function under test
     * @param runOptions how the interpreter runs
     */
    public Laws(ModelSpec spec, AuthorOptions options, CutCompiler compiler, RunOptions runOptions) {
        this.spec = spec;
        this.options = options;
        this.runner = new CutRunner(spec, options, compiler, new Interpreter(runOptions));
    }

    // ------------------------------------------------------------------ the laws

    /**
     * Decodes {@code tokens} at positions 0.. both with {@code Decode{ctx}} and with
     * DecodeEmbed, DecodeLayer{0..L-1,ctx}, DecodeHead, each side carrying its own KV caches;
     * compares every step's logits and token and the final caches.
     */
    public LawResult decodeComposition(int ctx, int[] tokens) {
        Comparison cmp = new Comparison("decode-composition", 0.0);
        try {
            Map<String, Tensor> whole = zeroCaches(ctx, 1);
            Map<String, Tensor> parts = zeroCaches(ctx, 1);
            for (int p = 0; p < tokens.length; p++) {
                Map<String, Tensor> in = new LinkedHashMap<>();
                in.put("tokens", ints(tokens[p]));
                Map<String, Long> params = Map.of("pos", (long) p);
                Map<String, Tensor> a = runner.runWhole(new Cut.Decode(ctx), with(whole, in), params);
                Map<String, Tensor> b = runner.runComposed(new Cut.Decode(ctx), with(parts, in), params);
                cmp.compare("step " + p + " logits", a.get("logits"), b.get("logits"));
                cmp.compare("step " + p + " next_token", a.get("next_token"), b.get("next_token"));
                whole = CutRunner.caches(a);
                parts = CutRunner.caches(b);
            }
            compareAll(cmp, "final ", whole, parts);
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result("Decode{ctx=" + ctx + "} vs embed+" + spec.layers() + " layers+head over "
                + tokens.length + " steps, logits, tokens and KV caches");
    }

    /** Prefill{rows,ctx} at pos 0 vs BatchEmbed{rows}, PrefillLayer{0..L-1}, PrefillHead{rows}. */
    public LawResult prefillComposition(int ctx, int[] tokens) {
        Comparison cmp = new Comparison("prefill-composition", 0.0);
        int rows = tokens.length;
        try {
            Map<String, Tensor> in = zeroCaches(ctx, 1);
            in.put("tokens", ints(tokens));
            Map<String, Long> params = Map.of("pos", 0L);
            Map<String, Tensor> a = runner.runWhole(new Cut.Prefill(rows, ctx), in, params);
            Map<String, Tensor> b = runner.runComposed(new Cut.Prefill(rows, ctx), in, params);
            compareAll(cmp, "", a, b);
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result("Prefill{rows=" + rows + ", ctx=" + ctx + "} vs its embed, layer and head cuts");
    }

    /**
     * Batch{rows,ctx} vs BatchEmbed, BatchLayer{0..L-1}, BatchHead, on the state reached by
     * decoding each history but its last token alone (rows at different positions).
     */
    public LawResult batchComposition(int ctx, int[][] histories) {
        Comparison cmp = new Comparison("batch-composition", 0.0);
        try {
            BatchCase bc = prepareBatch(ctx, histories);
            Cut cut = new Cut.Batch(histories.length, ctx);
            compareAll(cmp, "", runner.runWhole(cut, bc.inputs, Map.of()), runner.runComposed(cut, bc.inputs, Map.of()));
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result("Batch{rows=" + histories.length + ", ctx=" + ctx + "} vs its embed, layer and head cuts");
    }

    /** Forward vs DecodeEmbed, ForwardLayer{0..L-1}, ForwardHead for one token. */
    public LawResult forwardComposition(int token) {
        Comparison cmp = new Comparison("forward-composition", 0.0);
        try {
            Map<String, Tensor> in = Map.of("tokens", ints(token));
            compareAll(cmp, "", runner.runWhole(new Cut.Forward(), in, Map.of()), runner.runComposed(new Cut.Forward(), in, Map.of()));
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result("Forward vs its embed, layer and head cuts");
    }

    /**
     * Forward (no history) equals the first Decode{ctx} step from empty caches: at position 0
     * the rotation is the identity and the only visible key is the token's own.
     */
    public LawResult forwardDecodeAgreement(int ctx, int token) {
        Comparison cmp = new Comparison("forward-decode-agreement", 0.0);
        try {
            Map<String, Tensor> forward = runner.runWhole(new Cut.Forward(), Map.of("tokens", ints(token)), Map.of());
            Map<String, Tensor> decode = runner.runWhole(new Cut.Decode(ctx),
                    with(zeroCaches(ctx, 1), Map.of("tokens", ints(token))), Map.of("pos", 0L));
            compareAll(cmp, "", forward, decode);
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result("Forward vs the first Decode{ctx=" + ctx + "} step, logits and token");
    }

    /**
     * The last row of Prefill{rows=n, ctx} over {@code tokens} at pos 0 equals decoding the same
     * tokens one step at a time; the KV caches they leave are equal too.
     */
    public LawResult prefillDecodeConsistency(int ctx, int[] tokens) {
        Comparison cmp = new Comparison("prefill-decode-consistency", 0.0);
        try {
            Map<String, Tensor> in = zeroCaches(ctx, 1);
            in.put("tokens", ints(tokens));
            Map<String, Tensor> prefill = runner.runWhole(new Cut.Prefill(tokens.length, ctx), in, Map.of("pos", 0L));
            Map<String, Tensor> state = zeroCaches(ctx, 1);
            Map<String, Tensor> last = null;
            for (int p = 0; p < tokens.length; p++) {
                last = runner.runWhole(new Cut.Decode(ctx), with(state, Map.of("tokens", ints(tokens[p]))), Map.of("pos", (long) p));
                state = CutRunner.caches(last);
            }
            compareAll(cmp, "", last, prefill);
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result("last row of Prefill{rows=" + tokens.length + ", ctx=" + ctx + "} vs "
                + tokens.length + " Decode steps, logits, token and KV caches");
    }

    /**
     * Row r of one Batch{rows,ctx} step equals sequence r decoded alone: each history but its last
     * token is decoded alone to build that row's cache, then the batch decodes every row's last
     * token at its own position, and each row's logits, token and cache are compared with the
     * single-sequence decode of the same token.
     */
    public LawResult batchInvariance(int ctx, int[][] histories) {
        Comparison cmp = new Comparison("batch-invariance", 0.0);
        try {
            BatchCase bc = prepareBatch(ctx, histories);
            Map<String, Tensor> batch = runner.runWhole(new Cut.Batch(histories.length, ctx), bc.inputs, Map.of());
            for (int r = 0; r < histories.length; r++) {
                Map<String, Tensor> alone = bc.alone.get(r);
                cmp.compare("row " + r + " logits", alone.get("logits"), rowOf(batch.get("logits"), r, 1));
                cmp.compare("row " + r + " next_token", alone.get("next_token"),
                        Tensor.fromInts(Shape.of(1), new int[] {batch.get("next_token").getInt(r)}));
                for (String name : CutRunner.caches(alone).keySet()) {
                    cmp.compare("row " + r + " " + name, alone.get(name), rowOf(batch.get(name), r * ctx, ctx));
                }
            }
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result("each row of Batch{rows=" + histories.length + ", ctx=" + ctx
                + "} vs that sequence decoded alone, logits, token and KV cache");
    }

    /** Split equivalence on the cut's sample inputs (zero caches, pos 0). */
    public LawResult splitEquivalence(Cut cut, int tp) {
        AuthorOutcome.Authored a;
        try {
            a = runner.authored(cut, 1);
        } catch (RunFailed e) {
            Comparison cmp = new Comparison("split-equivalence", SPLIT_RELATIVE_TOLERANCE);
            cmp.fail(e.getMessage());
            return cmp.result("split over " + tp);
        }
        return splitEquivalence(cut, tp, a.inputs(), a.params());
    }

    /**
     * The program for {@code cut} split over {@code tp} chips, run on {@code inputs} (the unsplit
     * program's input and state tensors) cut into shards, equals the unsplit program: every
     * output and every state tensor, within the relative tolerance; token ids exactly unless
     * the unsplit run's top two logits are closer than the tolerance.
     */
    public LawResult splitEquivalence(Cut cut, int tp, Map<String, Tensor> inputs, Map<String, Long> params) {
        Comparison cmp = new Comparison("split-equivalence", SPLIT_RELATIVE_TOLERANCE);
        try {
            AuthorOutcome.Authored whole = runner.authored(cut, 1);
            AuthorOutcome.Authored split = runner.authored(cut, tp);
            Map<String, Tensor> logical = new LinkedHashMap<>(whole.weights());
            logical.putAll(inputs);
            RunResult a = runner.run(cut, 1, logical, params);
            Map<String, Tensor> splitBound;
            try {
                splitBound = Author.bindSplit(spec, cut, options.withTp(tp), logical);
            } catch (IllegalArgumentException e) {
                throw new RunFailed("cannot bind the split program: " + e.getMessage());
            }
            RunResult b = runner.run(cut, tp, splitBound, params);
            for (TensorDecl t : whole.program().tensors()) {
                switch (t.role()) {
                    case OUTPUT -> {
                        if (t.name().equals("next_token")) {
                            compareTokens(cmp, a.tensor("logits"), a.tensor("next_token"), b.tensor("next_token"));
                        } else {
                            cmp.compare(t.name(), a.tensor(t.name()), b.tensor(t.name()), relTol(a.tensor(t.name())));
                        }
                    }
                    case STATE -> {
                        // each chip's shard of the state vs the same slice of the unsplit state
                        Map<String, Tensor> expectedShards = Author.shardsOf(spec, cut, options.withTp(tp),
                                t.name(), a.tensor(t.name()));
                        for (Map.Entry<String, Tensor> e : expectedShards.entrySet()) {
                            cmp.compare(e.getKey(), e.getValue(), b.tensor(e.getKey()), relTol(a.tensor(t.name())));
                        }
                    }
                    case INPUT, WEIGHT, SCRATCH -> { }
                }
            }
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result(cut.cliName() + " split over " + tp + " chips vs unsplit, outputs and state");
    }

    /**
     * The standard gate: every law on a few fixed cases with cache length {@code ctx} (at least
     * 4): 5-step decode composition, a 4-row prefill (composition and consistency), a batch of
     * three histories of lengths 2, 1 and 4 (composition and invariance), forward composition and
     * agreement, and split equivalence of Decode, Batch, DecodeLayer{0} and BatchLayer{0} for
     * each tp in {2, 4} that divides the model's heads, KV heads and ffn. Token ids are taken
     * modulo the vocabulary.
     */
    public List<LawResult> standardSuite(int ctx) {
        if (ctx < 4) {
            throw new IllegalArgumentException("the standard suite needs ctx >= 4, not " + ctx);
        }
        int v = spec.vocab();
        int[] five = {3 % v, 17 % v, 42 % v, 5 % v, 11 % v};
        int[] four = java.util.Arrays.copyOf(five, 4);
        int[][] histories = {{1 % v, 2 % v}, {7 % v}, {9 % v, 4 % v, 6 % v, 8 % v}};
        List<LawResult> out = new ArrayList<>();
        out.add(decodeComposition(ctx, five));
        out.add(prefillComposition(ctx, four));
        out.add(batchComposition(ctx, histories));
        out.add(forwardComposition(five[2]));
        out.add(forwardDecodeAgreement(ctx, five[2]));
        out.add(prefillDecodeConsistency(ctx, four));
        out.add(batchInvariance(ctx, histories));
        for (int tp : new int[] {2, 4}) {
            if (spec.heads() % tp != 0 || spec.kvHeads() % tp != 0 || spec.ffn() % tp != 0) {
                continue;
            }
            Map<String, Tensor> decodeIn = new LinkedHashMap<>(decodeState(ctx, four));
            decodeIn.put("tokens", ints(five[4]));
            out.add(splitEquivalence(new Cut.Decode(ctx), tp, decodeIn, Map.of("pos", 4L)));
            out.add(splitEquivalence(new Cut.Batch(histories.length, ctx), tp, batchInputs(ctx, histories), Map.of()));
            out.add(splitEquivalence(new Cut.DecodeLayer(0, ctx), tp));
            out.add(splitEquivalence(new Cut.BatchLayer(0, 2, ctx), tp));
        }
        return out;
    }

    // ------------------------------------------------------------------ state helpers for callers

    /** The KV caches ({@code kv_k.l<i>}, {@code kv_v.l<i>}) after decoding {@code tokens} from position 0 with Decode{ctx}. */
    public Map<String, Tensor> decodeState(int ctx, int[] tokens) {
        Map<String, Tensor> state = zeroCaches(ctx, 1);
        for (int p = 0; p < tokens.length; p++) {
            try {
                state = CutRunner.caches(runner.runWhole(new Cut.Decode(ctx), with(state, Map.of("tokens", ints(tokens[p]))),
                        Map.of("pos", (long) p)));
            } catch (RunFailed e) {
                throw new IllegalArgumentException("decoding the history failed: " + e.getMessage());
            }
        }
        return state;
    }

    /**
     * Inputs of one Batch{rows=histories.length, ctx} step: the last token of each history, its
     * position, and caches stacked from decoding each history but its last token alone.
     */
    public Map<String, Tensor> batchInputs(int ctx, int[][] histories) {
        try {
            return prepareBatch(ctx, histories).inputs;
        } catch (RunFailed e) {
            throw new IllegalArgumentException("decoding the histories failed: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------ machinery

    private record BatchCase(Map<String, Tensor> inputs, List<Map<String, Tensor>> alone) {}

    private BatchCase prepareBatch(int ctx, int[][] histories) throws RunFailed {
        int rows = histories.length;
        int[] last = new int[rows];
        int[] positions = new int[rows];
        List<Map<String, Tensor>> before = new ArrayList<>();
        List<Map<String, Tensor>> alone = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            int[] h = histories[r];
            if (h.length < 1 || h.length > ctx) {
                throw new RunFailed("history " + r + " has " + h.length + " tokens; it needs 1 to ctx = " + ctx);
            }
            Map<String, Tensor> state = zeroCaches(ctx, 1);
            for (int p = 0; p < h.length - 1; p++) {
                state = CutRunner.caches(runner.runWhole(new Cut.Decode(ctx), with(state, Map.of("tokens", ints(h[p]))), Map.of("pos", (long) p)));
            }
            before.add(state);
            last[r] = h[h.length - 1];
            positions[r] = h.length - 1;
            alone.add(runner.runWhole(new Cut.Decode(ctx), with(state, Map.of("tokens", ints(last[r]))),
                    Map.of("pos", (long) positions[r])));
        }
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        inputs.put("tokens", ints(last));
        inputs.put("positions", ints(positions));
        for (String name : before.getFirst().keySet()) {
            List<Tensor> parts = new ArrayList<>();
            before.forEach(s -> parts.add(s.get(name)));
            inputs.put(name, stackRows(parts));
        }
        return new BatchCase(inputs, alone);
    }

    private Map<String, Tensor> zeroCaches(int ctx, int rows) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (int l = 0; l < spec.layers(); l++) {
            out.put("kv_k.l" + l, Tensor.zeros(DType.F32, Shape.of(rows * ctx, spec.kvWidth())));
            out.put("kv_v.l" + l, Tensor.zeros(DType.F32, Shape.of(rows * ctx, spec.kvWidth())));
        }
        return out;
    }

    private static Map<String, Tensor> with(Map<String, Tensor> a, Map<String, Tensor> b) {
        Map<String, Tensor> out = new LinkedHashMap<>(a);
        out.putAll(b);
        return out;
    }

    private static void compareAll(Comparison cmp, String prefix, Map<String, Tensor> expected, Map<String, Tensor> actual) {
        for (Map.Entry<String, Tensor> e : expected.entrySet()) {
            cmp.compare(prefix + e.getKey(), e.getValue(), actual.get(e.getKey()));
        }
        if (expected.isEmpty()) {
            cmp.fail("nothing to compare");
        }
    }

    /** Token ids must agree unless the reference's best two logits of that row are within the tolerance. */
    private static void compareTokens(Comparison cmp, Tensor logits, Tensor expected, Tensor actual) {
        if (actual == null || expected == null || logits == null) {
            cmp.compare("next_token", expected, actual);
            return;
        }
        int rows = (int) expected.size();
        int vocab = (int) (logits.size() / rows);
        for (int r = 0; r < rows; r++) {
            if (expected.getInt(r) == actual.getInt(r)) {
                continue;
            }
            double best = Double.NEGATIVE_INFINITY;
            double second = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < vocab; i++) {
                double v = logits.getFloat((long) r * vocab + i);
                if (v > best) {
                    second = best;
                    best = v;
                } else if (v > second) {
                    second = v;
                }
            }
            if (best - second > relTol(logits)) {
                cmp.fail("next_token[" + r + "] is " + actual.getInt(r) + ", expected " + expected.getInt(r)
                        + " (top-2 logit gap " + (best - second) + " exceeds the tolerance)");
            }
        }
    }

    private static double relTol(Tensor t) {
        double max = 0;
        if (t != null && t.dtype() != DType.I32) {
            for (float v : t.toFloats()) {
                max = Math.max(max, Math.abs(v));
            }
        }
        return SPLIT_RELATIVE_TOLERANCE * Math.max(1.0, max);
    }

    private static Tensor ints(int... v) {
        return Tensor.fromInts(Shape.of(v.length), v);
    }

    /** Rows {@code [start, start+count)} of a rank-2 tensor. */
    private static Tensor rowOf(Tensor t, int start, int count) {
        return org.stagecheck.author.model.Tensors.slice(t, 0, start, start + count);
    }

    private static Tensor stackRows(List<Tensor> parts) {
        int cols = parts.getFirst().shape().dim(1);
        int rows = 0;
        for (Tensor p : parts) {
            rows += p.shape().dim(0);
        }
        float[] all = new float[rows * cols];
        int at = 0;
        for (Tensor p : parts) {
            float[] v = p.toFloats();
            System.arraycopy(v, 0, all, at, v.length);
            at += v.length;
        }
        return Tensor.fromFloats(DType.F32, Shape.of(rows, cols), all);
    }
}
