package org.stagecheck.author.laws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.Architecture;
import org.stagecheck.author.Family;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.RopeScaling;
import org.junit.jupiter.api.Tag;

/**
 * Every law holds with each architecture feature on generated weights: biases, per-head q/k
 * norm, a tied head, llama3 rotary scaling, and a sliding window smaller than the cache (a ring
 * that the 5-step decode, the 4-row prefill and the 4-token history wrap around).
 */
@Tag("slow")
class ArchitectureLawsTest {
    static Stream<Arguments> architectures() {
        RopeScaling llama3 = new RopeScaling.Llama3(8.0, 1.0, 4.0, 16);
        return Stream.of(
                Arguments.of("qwen2 biases", new Architecture(Family.QWEN2, true, false, false, false, 0, RopeScaling.NONE, true)),
                Arguments.of("llama all biases, llama3 rope", new Architecture(Family.LLAMA, true, true, true, false, 0, llama3, false)),
                Arguments.of("qwen3 q/k norm", new Architecture(Family.QWEN3, false, false, false, true, 0, RopeScaling.NONE, true)),
                Arguments.of("mistral window 3 of 8", new Architecture(Family.MISTRAL, false, false, false, false, 3, RopeScaling.NONE, false)),
                Arguments.of("window 1", new Architecture(Family.MISTRAL, false, false, false, false, 1, RopeScaling.NONE, false)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("architectures")
    void everyLawHolds(String name, Architecture arch) {
        ModelSpec spec = ModelSpec.tiny().withArch(arch);
        List<LawResult> results = new Laws(spec).standardSuite(8);
        assertThat(results).isNotEmpty();
        assertThat(results).allSatisfy(r -> assertThat(r.holds()).as(r.law() + ": " + r.explanation()).isTrue());
    }
}
