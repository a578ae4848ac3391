package org.stagecheck.verifier.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The bench's figure of a check: the median of its timed runs, the first (untimed) run left out whatever it took. */
class MedianAfterFirstTest {
    @Test
    void the_first_run_is_left_out_and_the_middle_of_the_rest_is_taken() {
        assertThat(ScaleBench.medianAfterFirst(new double[] {900, 3, 1, 2})).isEqualTo(2.0);
        assertThat(ScaleBench.medianAfterFirst(new double[] {0.5, 7, 5, 6})).isEqualTo(6.0);
        assertThat(ScaleBench.medianAfterFirst(new double[] {9, 4, 1})).isEqualTo(2.5);
    }
}
