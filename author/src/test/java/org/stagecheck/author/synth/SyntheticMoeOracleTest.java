package org.stagecheck.author.synth;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.SortedMap;
import java.util.stream.IntStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.oracle.HfConfig64;
import org.stagecheck.author.oracle.HfForward64;
import org.stagecheck.author.oracle.MoeConfig64;
import org.stagecheck.author.oracle.RowRouting64;
import org.stagecheck.spec.ir.DType;

/**
 * Synthetic MoE checkpoints read by the independent float64 oracle: the generator's names and
 * config keys are the ones the oracle was written to read (both from FAMILIES.md), and the wider
 * router draw gives routing that varies over rows with margins far from rounding.
 */
class SyntheticMoeOracleTest {
    private static final int[] TOKENS = {5, 17, 80, 3, 44, 95, 0, 61, 28, 12, 70, 33};

    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> familiesAndStyles() {
        return SyntheticMoeCheckpointTest.familiesAndStyles();
    }

    @ParameterizedTest
    @MethodSource("familiesAndStyles")
    void theOracleReadsEachMoeFamilyAndRoutesRowsApart(SynthFamily family, ConfigStyle style, @TempDir Path dir) throws Exception {
        SyntheticModel.Builder b = SyntheticModel.builder(family).configStyle(style).dtype(DType.BF16).layers(3).numExperts(6).seed(21);
        if (family != SynthFamily.MIXTRAL) {
            b.decoderSparseStep(1).mlpOnlyLayers(List.of(1));
        }
        SyntheticModel m = b.build();
        SyntheticCheckpoint.write(dir, m);
        HfForward64 oracle = HfForward64.open(dir);
        HfConfig64 c = oracle.config();
        MoeConfig64 moe = c.moe();
        assertThat(moe.experts()).isEqualTo(6);
        assertThat(moe.topK()).isEqualTo(m.moe().expertsPerToken());
        assertThat(moe.expertIntermediate()).isEqualTo(m.moe().moeIntermediate());
        assertThat(moe.normTopkProb()).isEqualTo(m.moe().normTopkProb());
        assertThat(moe.sharedIntermediate()).isEqualTo(m.moe().sharedExpertIntermediate());
        assertThat(c.headDim()).isEqualTo(m.headDim());
        assertThat(c.tiedHead()).isEqualTo(m.tieWordEmbeddings());
        List<Integer> sparse = IntStream.range(0, m.layers()).filter(m::isSparseLayer).boxed().toList();
        assertThat(IntStream.range(0, m.layers()).filter(moe::isSparse).boxed().toList()).isEqualTo(sparse);

        oracle.forwardAll(TOKENS);
        SortedMap<Integer, List<RowRouting64>> routing = oracle.lastRouting();
        assertThat(routing.keySet()).containsExactlyElementsOf(sparse);
        Set<Integer> used = new HashSet<>();
        for (var layer : routing.entrySet()) {
            Set<List<Integer>> choices = new HashSet<>();
            for (RowRouting64 r : layer.getValue()) {
                choices.add(Arrays.stream(r.expertsByIndex()).boxed().toList());
                Arrays.stream(r.experts()).forEach(used::add);
            }
            assertThat(choices).as("layer %d: distinct top-k sets over %d rows", layer.getKey(), TOKENS.length).hasSizeGreaterThanOrEqualTo(4);
        }
        assertThat(used).as("experts ever chosen").hasSize(6);
        assertThat(oracle.smallestRoutingGap()).as("smallest k-th/(k+1)-th probability gap").isGreaterThan(1e-4);
    }
}
