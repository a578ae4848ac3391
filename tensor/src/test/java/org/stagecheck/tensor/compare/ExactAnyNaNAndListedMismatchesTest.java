package org.stagecheck.tensor.compare;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * The two engine features its users beyond golden rely on: {@code exact any-nan} (the conformance
 * suite's exact rule) and the first failing elements named in index order (the conformance
 * messages and the author laws' first difference).
 */
class ExactAnyNaNAndListedMismatchesTest {
    private static Tensor f32(float... v) {
        return Tensor.fromFloats(DType.F32, Shape.of(v.length), v);
    }

    private static Tensor bf16(float... v) {
        return Tensor.fromFloats(DType.BF16, Shape.of(v.length), v);
    }

    private static final float QUIET = Float.intBitsToFloat(0x7FC00000);
    private static final float OTHER_NAN = Float.intBitsToFloat(0xFFC00001);

    @Test
    void exactAnyNaNLetsNaNPayloadsDifferWhereExactDoesNot() {
        assertThat(Comparator.compare(f32(1, QUIET), f32(1, OTHER_NAN), new Policy.ExactAnyNaN()).passed()).isTrue();
        assertThat(Comparator.compare(f32(1, QUIET), f32(1, OTHER_NAN), new Policy.Exact()).passed()).isFalse();
    }

    @Test
    void exactAnyNaNIsOtherwiseBitEqual() {
        // -0 against +0, and one ulp, fail; a number never matches a NaN
        assertThat(Comparator.compare(f32(0f), f32(-0f), new Policy.ExactAnyNaN()).passed()).isFalse();
        assertThat(Comparator.compare(f32(3f), f32(Math.nextUp(3f)), new Policy.ExactAnyNaN()).passed()).isFalse();
        assertThat(Comparator.compare(f32(0f), f32(QUIET), new Policy.ExactAnyNaN()).passed()).isFalse();
        // the generic (non-f32) path judges alike
        assertThat(Comparator.compare(bf16(0f), bf16(-0f), new Policy.ExactAnyNaN()).passed()).isFalse();
        assertThat(Comparator.compare(bf16(2f, QUIET), bf16(2f, OTHER_NAN), new Policy.ExactAnyNaN()).passed()).isTrue();
    }

    @Test
    void exactAnyNaNIsSpelledAndParsedBack() {
        assertThat(new Policy.ExactAnyNaN().spelling()).isEqualTo("exact any-nan");
        assertThat(Policy.parse("exact any-nan")).isEqualTo(new Policy.ExactAnyNaN());
        assertThat(Policy.parse("exact")).isEqualTo(new Policy.Exact());
    }

    @Test
    void theFirstThreeFailingElementsAreListedInIndexOrder() {
        Comparison c = Comparator.compare(f32(0, 1, 0, 5, 0, 7, 9), f32(0, 2, 0, 6, 1, 8, 1), new Policy.AllClose(0, 0.5));
        assertThat(c.mismatches()).isEqualTo(5);
        assertThat(c.firstMismatches()).containsExactly(1L, 3L, 4L);
        assertThat(Comparator.compare(f32(1, 2), f32(1, 2), new Policy.Exact()).firstMismatches()).isEmpty();
    }

    @Test
    void listedElementsIncludeNonFiniteDisagreementsAndSpanChunks() {
        int n = Comparator.CHUNK * 2 + 5;
        float[] e = new float[n];
        float[] a = new float[n];
        a[Comparator.CHUNK + 1] = Float.POSITIVE_INFINITY;
        a[Comparator.CHUNK * 2 + 3] = 1;
        a[Comparator.CHUNK * 2 + 4] = 1;
        a[Comparator.CHUNK * 2 + 2] = 1;
        Comparison c = Comparator.compare(f32(e), f32(a), new Policy.Ulp(0));
        assertThat(c.firstMismatches()).containsExactly((long) Comparator.CHUNK + 1, (long) Comparator.CHUNK * 2 + 2, (long) Comparator.CHUNK * 2 + 3);
        assertThat(c.nonFiniteMismatches()).isEqualTo(1);
    }
}
