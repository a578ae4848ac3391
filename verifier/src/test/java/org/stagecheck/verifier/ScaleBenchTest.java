package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.verifier.bench.ScaleBench;

@Tag("slow") // generates and verifies programs of every shape
class ScaleBenchTest {
    @Test
    void generated_programs_have_the_asked_size_and_verify() {
        for (int n : new int[] {8, 1_000, 12_345}) {
            ScaleBench.Generated g = ScaleBench.generate(n);
            assertThat(g.program().stages()).hasSize(n);
            assertThat(new Verifier().verify(g.program(), g.certificate(), Parent.none()).diagnostics()).isEmpty();
        }
    }

    @Test
    void a_generated_program_without_its_shards_is_rejected() {
        ScaleBench.Generated g = ScaleBench.generate(1_000);
        // with no shard declarations every all-reduce sums full values
        assertThat(new Verifier().verify(g.program(), null, Parent.none()).codes()).isNotEmpty().allMatch("REDUCE_OF_FULL"::equals);
    }
}
