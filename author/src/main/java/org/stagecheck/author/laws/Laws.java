package org.stagecheck.author.laws;

import static org.stagecheck.author.laws.LawStates.ints;
import static org.stagecheck.author.laws.LawStates.with;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.Backends;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.Shape;

/**
 * The laws of the cuts, as reusable gates (brief, "Cuts of a model"; docs/author.md, "Laws").
 * Each law authors the cuts it needs, passes every program through the {@link CutCompiler}
 * under test, runs it on a {@link Backend} (the reference interpreter unless told otherwise) and compares. A law returns a
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
    private final CutRunner runner;
    private final CutRunner denseRunner;
    private final LawStates states;
    private final SplitEquivalence split;

    /** The laws of {@code spec}'s authored programs, as written, on one chip of 2x2 cores. */
    public Laws(ModelSpec spec) {
        this(spec, AuthorOptions.single(), CutCompiler.identity(), Backends.named("interp"));
    }

    /**
     * The laws checked on any {@link Backend}: the same gates hold a second implementation of the
     * semantics (the split-equivalence tolerance is the only allowance for re-association).
     *
     * @param options  the grid (and tp, normally 1) of the programs the laws author; split
     *                 equivalence authors with {@code options.withTp(tp)}
     * @param compiler the program-producing function under test
     * @param backend  runs every program the laws author (the reference: {@code Backends.named("interp")})
     */
    public Laws(ModelSpec spec, AuthorOptions options, CutCompiler compiler, Backend backend) {
        this.spec = spec;
        this.runner = new CutRunner(spec, options, compiler, backend);
        this.denseRunner = new CutRunner(spec, options.withDenseExperts(true), compiler, backend);
        this.states = new LawStates(spec, runner);
        this.split = new SplitEquivalence(spec, options, runner);
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
            Map<String, Tensor> whole = states.zeroCaches(ctx);
            Map<String, Tensor> parts = states.zeroCaches(ctx);
            for (int p = 0; p < tokens.length; p++) {
                Map<String, Tensor> in = new LinkedHashMap<>();
                in.put("tokens", ints(tokens[p]));
                Map<String, Long> params = Map.of("pos", (long) p);
                Map<String, Tensor> a = runner.runWhole(Cut.decode(ctx), with(whole, in), params);
                Map<String, Tensor> b = runner.runComposed(Cut.decode(ctx), with(parts, in), params);
                cmp.compare("step " + p + " logits", a.get("logits"), b.get("logits"));
                cmp.compare("step " + p + " next_token", a.get("next_token"), b.get("next_token"));
                whole = CutRunner.caches(a);
                parts = CutRunner.caches(b);
            }
            cmp.compareAll("final ", whole, parts);
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
            Map<String, Tensor> in = states.zeroCaches(ctx);
            in.put("tokens", ints(tokens));
            Map<String, Long> params = Map.of("pos", 0L);
            Map<String, Tensor> a = runner.runWhole(Cut.prefill(rows, ctx), in, params);
            Map<String, Tensor> b = runner.runComposed(Cut.prefill(rows, ctx), in, params);
            cmp.compareAll("", a, b);
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
            LawStates.BatchCase bc = states.prepareBatch(ctx, histories);
            Cut cut = Cut.batch(histories.length, ctx);
            cmp.compareAll("", runner.runWhole(cut, bc.inputs(), Map.of()), runner.runComposed(cut, bc.inputs(), Map.of()));
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
            cmp.compareAll("", runner.runWhole(Cut.forward(), in, Map.of()), runner.runComposed(Cut.forward(), in, Map.of()));
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
            Map<String, Tensor> forward = runner.runWhole(Cut.forward(), Map.of("tokens", ints(token)), Map.of());
            Map<String, Tensor> decode = runner.runWhole(Cut.decode(ctx),
                    with(states.zeroCaches(ctx), Map.of("tokens", ints(token))), Map.of("pos", 0L));
            cmp.compareAll("", forward, decode);
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
            Map<String, Tensor> in = states.zeroCaches(ctx);
            in.put("tokens", ints(tokens));
            Map<String, Tensor> prefill = runner.runWhole(Cut.prefill(tokens.length, ctx), in, Map.of("pos", 0L));
            Map<String, Tensor> state = states.zeroCaches(ctx);
            Map<String, Tensor> last = null;
            for (int p = 0; p < tokens.length; p++) {
                last = runner.runWhole(Cut.decode(ctx), with(state, Map.of("tokens", ints(tokens[p]))), Map.of("pos", (long) p));
                state = CutRunner.caches(last);
            }
            cmp.compareAll("", last, prefill);
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
            LawStates.BatchCase bc = states.prepareBatch(ctx, histories);
            Map<String, Tensor> batch = runner.runWhole(Cut.batch(histories.length, ctx), bc.inputs(), Map.of());
            for (int r = 0; r < histories.length; r++) {
                Map<String, Tensor> alone = bc.alone().get(r);
                cmp.compare("row " + r + " logits", alone.get("logits"), LawStates.rowsOf(batch.get("logits"), r, 1));
                cmp.compare("row " + r + " next_token", alone.get("next_token"),
                        Tensor.fromInts(Shape.of(1), new int[] {batch.get("next_token").getInt(r)}));
                for (String name : CutRunner.caches(alone).keySet()) {
                    int slots = spec.cacheSlots(ctx);
                    cmp.compare("row " + r + " " + name, alone.get(name), LawStates.rowsOf(batch.get(name), r * slots, slots));
                }
            }
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result("each row of Batch{rows=" + histories.length + ", ctx=" + ctx
                + "} vs that sequence decoded alone, logits, token and KV cache");
    }

    /**
     * Sparse dispatch equals the dense computation: {@code cut} (a whole step or a layer) with
     * the mixture of experts lowered as a real engine does it (each row reads only its chosen
     * experts' weights, at offsets taken from the routing) and lowered densely (every expert on
     * every row, scaled by its routing coefficient, 0 when not chosen), run on the same inputs,
     * give the same bits: outputs and caches. Holds trivially for a model without experts.
     */
    public LawResult moeDispatch(Cut cut, Map<String, Tensor> inputs, Map<String, Long> params) {
        Comparison cmp = new Comparison("moe-dispatch", 0.0);
        try {
            Map<String, Tensor> sparse = runner.runWhole(cut, inputs, params);
            Map<String, Tensor> dense = denseRunner.runWhole(cut, inputs, params);
            cmp.compareAll("", sparse, dense);
        } catch (RunFailed e) {
            cmp.fail(e.getMessage());
        }
        return cmp.result(cut + ": experts read sparsely by the routing vs every expert masked by it");
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
        return split.check(cut, tp, inputs, params);
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
        if (spec.arch().moe().present()) {
            Map<String, Tensor> prefillIn = states.zeroCaches(ctx);
            prefillIn.put("tokens", ints(four));
            out.add(moeDispatch(Cut.prefill(four.length, ctx), prefillIn, Map.of("pos", 0L)));
            out.add(moeDispatch(Cut.batch(histories.length, ctx), batchInputs(ctx, histories), Map.of()));
        }
        for (int tp : new int[] {2, 4}) {
            if (spec.heads() % tp != 0 || spec.kvHeads() % tp != 0 || spec.ffn() % tp != 0) {
                continue;
            }
            Map<String, Tensor> decodeIn = new LinkedHashMap<>(decodeState(ctx, four));
            decodeIn.put("tokens", ints(five[4]));
            out.add(splitEquivalence(Cut.decode(ctx), tp, decodeIn, Map.of("pos", 4L)));
            out.add(splitEquivalence(Cut.batch(histories.length, ctx), tp, batchInputs(ctx, histories), Map.of()));
            out.add(splitEquivalence(Cut.decodeLayer(0, ctx), tp));
            out.add(splitEquivalence(Cut.batchLayer(0, 2, ctx), tp));
        }
        return out;
    }

    // ------------------------------------------------------------------ state helpers for callers

    /** The KV caches ({@code kv_k.l<i>}, {@code kv_v.l<i>}) after decoding {@code tokens} from position 0 with Decode{ctx}. */
    public Map<String, Tensor> decodeState(int ctx, int[] tokens) {
        try {
            return states.decoded(ctx, tokens);
        } catch (RunFailed e) {
            throw new IllegalArgumentException("decoding the history failed: " + e.getMessage());
        }
    }

    /**
     * Inputs of one Batch{rows=histories.length, ctx} step: the last token of each history, its
     * position, and caches stacked from decoding each history but its last token alone.
     */
    public Map<String, Tensor> batchInputs(int ctx, int[][] histories) {
        try {
            return states.prepareBatch(ctx, histories).inputs();
        } catch (RunFailed e) {
            throw new IllegalArgumentException("decoding the histories failed: " + e.getMessage());
        }
    }
}
