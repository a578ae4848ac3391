package org.stagecheck.author.nd4j;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.Shape;

/**
 * Prefill chunks and batched decode steps of the authored programs against the ND4J float64
 * reference applied row by row (docs/author.md, "Second reference (ND4J)"). Caches start as noise:
 * rows before the chunk are a history the program must attend to, rows after it must be masked.
 */
@Tag("slow")
class Nd4jPrefillBatchAgreementTest {

    @BeforeAll
    static void nd4j() {
        assumeTrue(Nd4jAvailable.problem() == null, Nd4jAvailable::problem);
    }

    @ParameterizedTest(name = "tiny prefill rows={0} ctx={1} pos={2}")
    @CsvSource({"4, 8, 0", "4, 8, 3", "8, 8, 0", "1, 8, 7", "3, 12, 9", "2, 512, 509"})
    void tinyPrefillAgrees(int rows, int ctx, int pos) {
        prefillThenDecodeAgrees(ModelSpec.tiny(), rows, ctx, pos, AuthorOptions.single());
    }

    @Test
    void smallPrefillAgrees() {
        prefillThenDecodeAgrees(ModelSpec.small(), 3, 8, 2, AuthorOptions.single());
    }

    /**
     * A prefill of {@code rows} tokens at {@code pos}, then (when the cache has room) one decode
     * step carried on the prefill's caches, each against the reference.
     */
    private static void prefillThenDecodeAgrees(ModelSpec spec, int rows, int ctx, int pos, AuthorOptions options) {
        Cut cut = Cut.prefill(rows, ctx);
        AuthorOutcome.Authored authored = AuthoredRuns.author(spec, cut, options);
        Map<String, Tensor> logical = new LinkedHashMap<>(authored.bound());
        AuthoredRuns.fillCachesWithNoise(spec, logical, ctx, 23 + pos);
        int[] tokens = new int[rows];
        for (int r = 0; r < rows; r++) {
            tokens[r] = (int) ((13L + 29L * r) % spec.vocab());
        }
        logical.put("tokens", Tensor.fromInts(Shape.of(rows), tokens));
        Nd4jTransformer reference = new Nd4jTransformer(spec, authored.weights(), Nd4jTransformer.Conventions.llama());
        Nd4jTransformer.KvCache cache = Nd4jTransformer.KvCache.fromState(spec, logical, 0, ctx);
        double[] last = null;
        for (int r = 0; r < rows; r++) {
            last = reference.step(tokens[r], pos + r, cache);
        }
        String what = spec.name() + " prefill rows=" + rows + " ctx=" + ctx + " pos=" + pos;
        Map<String, Tensor> after = AuthoredRuns.run(spec, cut, options, logical, Map.of("pos", (long) pos));
        double worst = Agreement.assertClose(what + " logits of the last row", last, after.get("logits"), 0);
        Agreement.assertToken(what, last, after.get("next_token").getInt(0));
        worst = Math.max(worst, CacheCheck.assertCaches(what, spec, logical, after, cache, 0, ctx, pos, pos + rows));

        int next = pos + rows;
        if (next < ctx) {
            Cut decode = Cut.decode(ctx);
            Map<String, Tensor> state = new LinkedHashMap<>(AuthoredRuns.author(spec, decode, options).bound());
            int token = after.get("next_token").getInt(0);
            state.put("tokens", Tensor.fromInts(Shape.of(1), new int[] {token}));
            for (int l = 0; l < spec.layers(); l++) {
                state.put("kv_k.l" + l, after.get("kv_k.l" + l));
                state.put("kv_v.l" + l, after.get("kv_v.l" + l));
            }
            double[] expected = reference.step(token, next, cache);
            Map<String, Tensor> stepped = AuthoredRuns.run(spec, decode, options, state, Map.of("pos", (long) next));
            String then = what + ", then decode at pos=" + next;
            worst = Math.max(worst, Agreement.assertClose(then + " logits", expected, stepped.get("logits"), 0));
            Agreement.assertToken(then, expected, stepped.get("next_token").getInt(0));
            worst = Math.max(worst, CacheCheck.assertCaches(then, spec, state, stepped, cache, 0, ctx, next, next + 1));
        }
        System.out.printf("ND4J reference, %s: worst |diff|/tolerance %.3g%n", what, worst);
    }

    @ParameterizedTest(name = "tiny batch over {0} chip(s)")
    @ValueSource(ints = {1, 2, 4})
    void tinyBatchOfTwoStepsAgrees(int tp) {
        batchAgrees(ModelSpec.tiny(), 8, new int[][] {{0, 5, 2, 5}, {1, 6, 3, 7}}, AuthorOptions.split(tp));
    }

    @Test
    void tinyBatchWithOneRowAtTheLastPositionAgrees() {
        batchAgrees(ModelSpec.tiny(), 8, new int[][] {{7, 0, 4}}, new AuthorOptions(1, 4, 2));
    }

    @Test
    void smallBatchAgrees() {
        batchAgrees(ModelSpec.small(), 8, new int[][] {{0, 4}, {1, 5}}, AuthorOptions.single());
    }

    /**
     * Batch steps: {@code positions[s][r]} is row r's position at step s. Each row's cache block
     * is carried between steps on each side; the reference steps each row alone on its block.
     */
    private static void batchAgrees(ModelSpec spec, int ctx, int[][] positions, AuthorOptions options) {
        int rows = positions[0].length;
        Cut cut = Cut.batch(rows, ctx);
        AuthorOutcome.Authored unsplit = AuthoredRuns.author(spec, cut, options.withTp(1));
        Map<String, Tensor> logical = new LinkedHashMap<>(unsplit.bound());
        AuthoredRuns.fillCachesWithNoise(spec, logical, rows * ctx, 37);
        Nd4jTransformer reference = new Nd4jTransformer(spec, unsplit.weights(), Nd4jTransformer.Conventions.llama());
        Nd4jTransformer.KvCache[] caches = new Nd4jTransformer.KvCache[rows];
        int[] tokens = new int[rows];
        for (int r = 0; r < rows; r++) {
            caches[r] = Nd4jTransformer.KvCache.fromState(spec, logical, r * ctx, ctx);
            tokens[r] = (int) ((7L + 19L * r) % spec.vocab());
        }
        double worst = 0;
        for (int[] step : positions) {
            logical.put("tokens", Tensor.fromInts(Shape.of(rows), tokens.clone()));
            logical.put("positions", Tensor.fromInts(Shape.of(rows), step.clone()));
            Map<String, Tensor> after = AuthoredRuns.run(spec, cut, options, logical, Map.of());
            for (int r = 0; r < rows; r++) {
                String what = spec.name() + " batch " + options + " row " + r + " at pos " + step[r];
                double[] expected = reference.step(tokens[r], step[r], caches[r]);
                worst = Math.max(worst, Agreement.assertClose(what + " logits", expected, after.get("logits"),
                        (long) r * spec.vocab()));
                int next = after.get("next_token").getInt(r);
                Agreement.assertToken(what, expected, next);
                worst = Math.max(worst, CacheCheck.assertCaches(what, spec, logical, after, caches[r], r * ctx, ctx,
                        step[r], step[r] + 1));
                tokens[r] = next;
            }
            for (int l = 0; l < spec.layers(); l++) {
                logical.put("kv_k.l" + l, after.get("kv_k.l" + l));
                logical.put("kv_v.l" + l, after.get("kv_v.l" + l));
            }
        }
        System.out.printf("ND4J reference, %s batch %s, %d steps: worst |diff|/tolerance %.3g%n",
                spec.name(), options, positions.length, worst);
    }
}
