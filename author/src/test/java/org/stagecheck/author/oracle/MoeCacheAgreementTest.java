package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.oracle.HfConfig64.Family;

/** For the MoE families the cached decoder and the full forward agree, logits and routing alike, and routing is not degenerate. */
class MoeCacheAgreementTest {
    private static final int[] TOKENS = {3, 7, 0, 10, 3, 5, 9, 1, 2};

    static Stream<TinyMoeModel> models() {
        return Stream.of(
                new TinyMoeModel(Family.QWEN3_MOE, 2, 4, 2, true, 1, List.of(), 0),
                new TinyMoeModel(Family.QWEN3_MOE, 3, 5, 3, false, 2, List.of(), 0),
                new TinyMoeModel(Family.QWEN2_MOE, 2, 4, 2, false, 1, List.of(), 0),
                new TinyMoeModel(Family.QWEN2_MOE, 3, 3, 1, true, 1, List.of(0), 0),
                new TinyMoeModel(Family.MIXTRAL, 2, 4, 2, true, 1, List.of(), 3),
                new TinyMoeModel(Family.MIXTRAL, 2, 3, 3, true, 1, List.of(), 0));
    }

    @ParameterizedTest
    @MethodSource("models")
    void decodeStepByStepAndChunkedPrefillEqualTheFullForwardAndRouteAlike(TinyMoeModel spec, @TempDir Path dir) {
        HfForward64 model = HfForward64.open(spec.write(dir, 42));
        double[][] full = model.forwardAll(TOKENS);
        SortedMap<Integer, List<RowRouting64>> fullRouting = model.lastRouting();
        List<Integer> sparse = java.util.stream.IntStream.range(0, spec.layers()).filter(model.config().moe()::isSparse).boxed().toList();
        assertThat(fullRouting.keySet()).containsExactlyElementsOf(sparse);
        // clear of rounding, so the two paths cannot choose differently
        assertThat(model.smallestRoutingGap()).as(spec + " smallest gap").isGreaterThan(1e-9);
        if (spec.topK() < spec.experts()) {
            for (List<RowRouting64> rows : fullRouting.values()) {
                Set<List<Integer>> choices = new HashSet<>();
                rows.forEach(r -> choices.add(java.util.Arrays.stream(r.expertsByIndex()).boxed().toList()));
                assertThat(choices).as(spec + " distinct choices over the rows").hasSizeGreaterThan(1);
            }
        }

        for (int p = 0; p < TOKENS.length; p++) {
            LogitsAssert.close(model.decode(TOKENS[p]), full[p], 1e-12, spec + " decode, position " + p);
            SortedMap<Integer, List<RowRouting64>> step = model.lastRouting();
            assertThat(step.keySet()).containsExactlyElementsOf(sparse);
            for (int l : sparse) {
                RowRouting64 got = step.get(l).getFirst();
                RowRouting64 want = fullRouting.get(l).get(p);
                assertThat(step.get(l)).hasSize(1);
                assertThat(got.experts()).as("layer %d position %d", l, p).containsExactly(want.experts());
                LogitsAssert.close(got.weights(), want.weights(), 1e-12, "routing weights, layer " + l + " position " + p);
            }
        }

        model.reset();
        assertThat(model.lastRouting()).isEmpty();
        double[][] first = model.prefill(new int[] {3, 7, 0});
        double[][] second = model.prefill(new int[] {10, 3});
        assertThat(model.lastRouting().values()).allSatisfy(rows -> assertThat(rows).hasSize(2));
        double[][] third = model.prefill(new int[] {5, 9, 1, 2});
        double[][] chunked = Stream.of(first, second, third).flatMap(Stream::of).toArray(double[][]::new);
        LogitsAssert.close(chunked, full, 1e-12, spec + " prefill 3+2+4");
        for (int l : sparse) {
            assertThat(model.lastRouting().get(l).get(3).experts()).containsExactly(fullRouting.get(l).get(8).experts());
        }
    }
}
