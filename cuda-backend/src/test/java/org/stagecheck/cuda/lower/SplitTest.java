package org.stagecheck.cuda.lower;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The split rule of fast kernels and the rounding depth it promises (docs/cuda.md, "Fast kernels"). */
class SplitTest {
    @Test
    void chunksAreThePowerOfTwoThatLeavesAtLeastSixteenTermsEach() {
        assertThat(Split.of(31)).isNull();
        assertThat(Split.of(32)).isEqualTo(new Split(2, 32));
        assertThat(Split.of(64).chunks()).isEqualTo(4);
        assertThat(Split.of(100).chunks()).isEqualTo(4);
        assertThat(Split.of(511).chunks()).isEqualTo(16);
        assertThat(Split.of(512).chunks()).isEqualTo(32);
        assertThat(Split.of(4096).chunks()).isEqualTo(32);
        assertThat(Split.of(4096).longestChunk()).isEqualTo(128);
        assertThat(Split.of(100).longestChunk()).isEqualTo(25);
    }

    @Test
    void onlyAMatMulWithFewRowsSplitsItsContraction() {
        assertThat(Split.ofMatMul(1, 4096).chunks()).isEqualTo(32);
        assertThat(Split.ofMatMul(16, 4096)).isNotNull();
        assertThat(Split.ofMatMul(17, 4096)).isNull();
        assertThat(Split.ofMatMul(1, 16)).isNull();
    }

    @Test
    void noTermPassesThroughMoreRoundingsThanTheReferencesChain() {
        // a term of a split sum is rounded at most by its chunk's chain and then once per chunk in
        // the combine: ceil(n / S) + S, never more than the n + 1 the derived bound's gamma(n + 1) covers
        for (int n = 1; n <= 20_000; n++) {
            Split s = Split.of(n);
            if (s != null) {
                assertThat(s.longestChunk() + s.chunks()).as("n = %d", n).isLessThanOrEqualTo(n + 1);
                assertThat(n / s.chunks()).as("n = %d", n).isGreaterThanOrEqualTo(Split.MIN_CHUNK);
            }
        }
    }
}
