package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.oracle.HfConfig64.Family;
import org.stagecheck.author.oracle.TestCheckpointWriter.Dtype;
import org.stagecheck.author.oracle.TestCheckpointWriter.Tensor64;
import org.stagecheck.author.oracle.TinyModels.Spec;

/** A tied checkpoint (no lm_head.weight) reads its head from embed_tokens. */
class TiedHeadTest {
    private static final int[] TOKENS = {1, 5, 8, 2};
    private static final Spec TIED = Spec.of(Family.QWEN2).tiedHead(true);
    private static final Spec UNTIED = TIED.tiedHead(false);

    @Test
    void anUntiedFileWhoseHeadIsTheEmbeddingGivesTheTiedLogits(@TempDir Path dir) {
        Map<String, Tensor64> tied = TinyModels.weights(TIED, 3);
        assertThat(tied).doesNotContainKey("lm_head.weight");
        double[][] fromTied = write(dir.resolve("tied"), TIED, tied);

        Map<String, Tensor64> untied = new LinkedHashMap<>(tied);
        untied.put("lm_head.weight", tied.get("model.embed_tokens.weight"));
        double[][] fromUntied = write(dir.resolve("untied"), UNTIED, untied);

        for (int p = 0; p < TOKENS.length; p++) {
            assertThat(fromUntied[p]).as("position %d", p).isEqualTo(fromTied[p]);
        }
    }

    @Test
    void anUntiedFileReadsItsOwnHead(@TempDir Path dir) {
        Map<String, Tensor64> tied = TinyModels.weights(TIED, 3);
        double[][] fromTied = write(dir.resolve("tied"), TIED, tied);
        Map<String, Tensor64> untied = new LinkedHashMap<>(tied);
        untied.put("lm_head.weight", TinyModels.random(new Random(8), TIED.vocab(), TIED.hidden()));
        assertThat(write(dir.resolve("untied"), UNTIED, untied)[0]).isNotEqualTo(fromTied[0]);
    }

    @Test
    void anUntiedConfigWithoutLmHeadIsRefused(@TempDir Path dir) {
        assertThatThrownBy(() -> write(dir, UNTIED, TinyModels.weights(TIED, 3)))
                .isInstanceOf(OracleInputException.class)
                .hasMessageContaining("no tensor lm_head.weight");
    }

    private static double[][] write(Path dir, Spec spec, Map<String, Tensor64> weights) {
        TestCheckpointWriter.writeConfig(dir, TinyModels.config(spec));
        TestCheckpointWriter.writeSingle(dir, weights, Dtype.BF16);
        return HfForward64.open(dir).forwardAll(TOKENS);
    }
}
