package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.oracle.HfConfig64.Family;
import org.stagecheck.author.oracle.TestCheckpointWriter.Dtype;
import org.stagecheck.author.oracle.TestCheckpointWriter.Tensor64;
import org.stagecheck.author.oracle.TinyModels.Spec;

/** Qwen3's q_norm and k_norm are read and applied, each to its own side. */
class Qwen3NormTest {
    private static final Spec SPEC = Spec.of(Family.QWEN3).withLayers(1);
    private static final int[] TOKENS = {4, 9, 2, 6};
    private static final String Q_NORM = "model.layers.0.self_attn.q_norm.weight";
    private static final String K_NORM = "model.layers.0.self_attn.k_norm.weight";

    @Test
    void scalingTheQueryNormChangesEveryPositionThatAttendsToMoreThanOneKey(@TempDir Path dir) {
        double[][] base = logits(dir.resolve("base"), w -> w);
        double[][] scaled = logits(dir.resolve("scaled"), w -> {
            w.put(Q_NORM, times(w.get(Q_NORM), 2));
            return w;
        });
        // position 0 attends to itself only: the softmax of one score is 1 whatever the score
        assertThat(scaled[0]).isEqualTo(base[0]);
        for (int p = 1; p < TOKENS.length; p++) {
            assertThat(scaled[p]).as("position %d", p).isNotEqualTo(base[p]);
        }
    }

    @Test
    void swappingTheQueryAndKeyNormsChangesTheLogits(@TempDir Path dir) {
        double[][] base = logits(dir.resolve("base"), w -> w);
        double[][] swapped = logits(dir.resolve("swapped"), w -> {
            Tensor64 q = w.get(Q_NORM);
            w.put(Q_NORM, w.get(K_NORM));
            w.put(K_NORM, q);
            return w;
        });
        assertThat(swapped[TOKENS.length - 1]).isNotEqualTo(base[TOKENS.length - 1]);
    }

    @Test
    void aQwen3CheckpointWithoutItsKeyNormIsRefused(@TempDir Path dir) {
        assertThatThrownBy(() -> logits(dir, w -> {
            w.remove(K_NORM);
            return w;
        })).isInstanceOf(OracleInputException.class).hasMessageContaining("no tensor " + K_NORM);
    }

    private static double[][] logits(Path dir, UnaryOperator<Map<String, Tensor64>> edit) {
        TestCheckpointWriter.writeConfig(dir, TinyModels.config(SPEC));
        TestCheckpointWriter.writeSingle(dir, edit.apply(new LinkedHashMap<>(TinyModels.weights(SPEC, 9))), Dtype.F32);
        return HfForward64.open(dir).forwardAll(TOKENS);
    }

    private static Tensor64 times(Tensor64 t, double k) {
        double[] v = t.data().clone();
        for (int i = 0; i < v.length; i++) {
            v[i] *= k;
        }
        return new Tensor64(t.shape(), v);
    }
}
