package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.oracle.HfConfig64.Family;
import org.stagecheck.author.oracle.TinyModels.Spec;

/** The cached decoder (one token at a time, or chunks) and the full forward agree for every family. */
class CacheAgreementTest {
    private static final int[] TOKENS = {3, 7, 0, 10, 3, 5, 9, 1, 2};

    static Stream<Spec> specs() {
        return Stream.of(
                Spec.of(Family.LLAMA),
                Spec.of(Family.LLAMA).withBiases().withLlama3().tiedHead(true),
                Spec.of(Family.MISTRAL).withWindow(3),
                Spec.of(Family.MISTRAL),
                Spec.of(Family.QWEN2).tiedHead(true),
                Spec.of(Family.QWEN3),
                Spec.of(Family.QWEN3).withBiases());
    }

    @ParameterizedTest
    @MethodSource("specs")
    void decodeStepByStepAndChunkedPrefillEqualTheFullForward(Spec spec, @TempDir Path dir) {
        HfForward64 model = HfForward64.open(TinyModels.write(dir, spec, 42));
        double[][] full = model.forwardAll(TOKENS);

        for (int p = 0; p < TOKENS.length; p++) {
            assertThat(model.position()).isEqualTo(p);
            LogitsAssert.close(model.decode(TOKENS[p]), full[p], 1e-12, spec + " decode, position " + p);
        }

        model.reset();
        assertThat(model.position()).isZero();
        double[][] first = model.prefill(new int[] {3, 7, 0});
        double[][] second = model.prefill(new int[] {10, 3});
        double[][] third = model.prefill(new int[] {5, 9, 1, 2});
        double[][] chunked = Stream.of(first, second, third).flatMap(Stream::of).toArray(double[][]::new);
        LogitsAssert.close(chunked, full, 1e-12, spec + " prefill 3+2+4");

        model.reset();
        LogitsAssert.close(model.prefill(TOKENS), full, 1e-12, spec + " prefill 9");
    }

    @Test
    void theCacheMattersAPositionSeesEarlierTokens(@TempDir Path dir) {
        HfForward64 model = HfForward64.open(TinyModels.write(dir, Spec.of(Family.LLAMA), 42));
        double[] afterHistory = model.forwardAll(new int[] {3, 7})[1];
        double[] alone = model.forwardAll(new int[] {7})[0];
        assertThat(afterHistory).isNotEqualTo(alone);
        model.decode(3);
        LogitsAssert.close(model.decode(7), afterHistory, 1e-12, "second token after the first");
    }

    @Test
    void aTokenOutsideTheVocabularyIsRefusedWithoutTouchingTheCache(@TempDir Path dir) {
        HfForward64 model = HfForward64.open(TinyModels.write(dir, Spec.of(Family.QWEN2), 1));
        model.decode(1);
        assertThatThrownBy(() -> model.prefill(new int[] {2, 11})).hasMessageContaining("token 11 at row 1 is outside the vocabulary of 11");
        assertThat(model.position()).isEqualTo(1);
    }
}
