package org.stagecheck.author.laws;

import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * The split-equivalence law ({@link Laws#splitEquivalence(Cut, int, Map, Map)}): a cut split over
 * chips, run on the unsplit inputs cut into shards, against the unsplit cut, within
 * {@link Laws#SPLIT_RELATIVE_TOLERANCE} of each compared tensor's largest magnitude.
 */
final class SplitEquivalence {
    private final ModelSpec spec;
    private final AuthorOptions options;
    private final CutRunner runner;

    SplitEquivalence(ModelSpec spec, AuthorOptions options, CutRunner runner) {
        this.spec = spec;
        this.options = options;
        this.runner = runner;
    }

    LawResult check(Cut cut, int tp, Map<String, Tensor> inputs, Map<String, Long> params) {
        Comparison cmp = new Comparison("split-equivalence", Laws.SPLIT_RELATIVE_TOLERANCE);
        try {
            AuthorOutcome.Authored whole = runner.authored(cut, 1);
            runner.authored(cut, tp); // a refused split fails the law with its reason before anything runs
            Map<String, Tensor> logical = new LinkedHashMap<>(runner.weights(cut, 1));
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

    /** The tolerance for comparing with {@code t}: the relative tolerance times max(1, max |t|). */
    private static double relTol(Tensor t) {
        double max = 0;
        if (t != null && t.dtype() != DType.I32) {
            for (float v : t.toFloats()) {
                max = Math.max(max, Math.abs(v));
            }
        }
        return Laws.SPLIT_RELATIVE_TOLERANCE * Math.max(1.0, max);
    }
}
