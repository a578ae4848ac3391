package org.stagecheck.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.conformance.Tensors.bits;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.f32;
import static org.stagecheck.conformance.Tensors.i32;

import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/** The tolerance rule and the mismatch message, element by element. */
class TensorComparisonTest {

    private static Optional<String> exact(Tensor want, Tensor got) {
        return TensorComparison.mismatch(new Expected("y", want, Tolerance.exact()), got);
    }

    private static Optional<String> ulps(int n, Tensor want, Tensor got) {
        return TensorComparison.mismatch(new Expected("y", want, Tolerance.ulps(n)), got);
    }

    @Test
    void exactIsBitEqualSoSignedZerosDiffer() {
        assertThat(exact(f32(dims(2), 1, 0f), f32(dims(2), 1, 0f))).isEmpty();
        assertThat(exact(f32(dims(2), 1, 0f), f32(dims(2), 1, -0f))).contains(
                "1 of 2 elements differ (exact): at [1] expected 0.0 (f32 0x00000000), actual -0.0 (f32 0x80000000)");
    }

    @Test
    void anyNaNMatchesAnyNaNOfTheDtypeButNotANumber() {
        assertThat(exact(bits(DType.F32, dims(1), 0x7FC00000), bits(DType.F32, dims(1), 0xFFC00001))).isEmpty();
        assertThat(exact(bits(DType.F16, dims(1), 0x7E00), bits(DType.F16, dims(1), 0xFD01))).isEmpty();
        assertThat(exact(bits(DType.E4M3, dims(1), 0x7F), bits(DType.E4M3, dims(1), 0xFF))).isEmpty();
        assertThat(exact(bits(DType.F32, dims(1), 0x7FC00000), f32(dims(1), 0))).isPresent();
        assertThat(ulps(1000, f32(dims(1), 0), bits(DType.F32, dims(1), 0x7FC00000))).isPresent();
    }

    @Test
    void oneUlpOffFailsExactAndNamesIndexValueAndBits() {
        Tensor want = f32(dims(2, 2), 1, 2, 3, 4);
        Tensor got = f32(dims(2, 2), 1, 2, Math.nextUp(3f), 4);
        assertThat(exact(want, got)).contains(
                "1 of 4 elements differ (exact): at [1, 0] expected 3.0 (f32 0x40400000), actual 3.0000002 (f32 0x40400001)");
        assertThat(ulps(1, want, got)).isEmpty();
    }

    @Test
    void ulpDistanceCountsRepresentableValuesAcrossZero() {
        // -min subnormal to +min subnormal: 2 steps (-s, 0, +s)
        assertThat(ulps(2, bits(DType.F32, dims(1), 0x80000001), bits(DType.F32, dims(1), 0x00000001))).isEmpty();
        assertThat(ulps(1, bits(DType.F32, dims(1), 0x80000001), bits(DType.F32, dims(1), 0x00000001))).isPresent();
        // e4m3 1.0 (0x38) and 1.25 (0x3A) are two codes apart
        assertThat(ulps(2, bits(DType.E4M3, dims(1), 0x38), bits(DType.E4M3, dims(1), 0x3A))).isEmpty();
        assertThat(ulps(1, bits(DType.E4M3, dims(1), 0x38), bits(DType.E4M3, dims(1), 0x3A))).isPresent();
    }

    @Test
    void anInfinityMustBeMetExactlyEvenUnderAnUlpBound() {
        // the largest f32 is one code below infinity, but it is not infinity
        assertThat(ulps(3, f32(dims(1), Float.POSITIVE_INFINITY), f32(dims(1), Float.MAX_VALUE))).isPresent();
        assertThat(ulps(3, f32(dims(1), Float.POSITIVE_INFINITY), f32(dims(1), Float.POSITIVE_INFINITY))).isEmpty();
    }

    @Test
    void bf16AndFp8BitsAreShownAtTheirWidth() {
        assertThat(exact(bits(DType.BF16, dims(1), 0x3F80), bits(DType.BF16, dims(1), 0x3F81))).contains(
                "1 of 1 elements differ (exact): at [0] expected 1.0 (bf16 0x3f80), actual 1.0078125 (bf16 0x3f81)");
        assertThat(exact(bits(DType.E5M2, dims(1), 0x7B), bits(DType.E5M2, dims(1), 0x7C))).contains(
                "1 of 1 elements differ (exact): at [0] expected 57344.0 (e5m2 0x7b), actual Infinity (e5m2 0x7c)");
    }

    @Test
    void i32IsComparedExactlyAndShownInDecimalAndHex() {
        assertThat(exact(i32(dims(1), -3), i32(dims(1), -2))).contains(
                "1 of 1 elements differ (exact): at [0] expected -3 (i32 0xfffffffd), actual -2 (i32 0xfffffffe)");
    }

    @Test
    void onlyTheFirstThreeDifferencesAreListedAndTheRestCounted() {
        Tensor want = f32(dims(5), 0, 0, 0, 0, 0);
        Tensor got = f32(dims(5), 1, 1, 1, 1, 0);
        String m = exact(want, got).orElseThrow();
        assertThat(m).startsWith("4 of 5 elements differ (exact): at [0] ").contains("at [2] ").doesNotContain("at [3] ").endsWith("; ...");
    }

    @Test
    void dtypeShapeAbsenceAndFloat64AreReportedWhole() {
        assertThat(exact(f32(dims(2), 1, 2), null)).contains("the backend returned no tensor 'y'");
        assertThat(exact(f32(dims(2), 1, 2), f32(dims(1, 2), 1, 2))).contains("expected f32[2] but the backend returned f32[1, 2]");
        assertThat(exact(f32(dims(2), 1, 2), Tensor.fromFloats(DType.BF16, Shape.of(2), new float[] {1, 2})))
                .contains("expected f32[2] but the backend returned bf16[2]");
        assertThat(exact(f32(dims(1), 1), Tensor.fromDoubles(DType.F32, Shape.of(1), new double[] {1})))
                .contains("the backend returned float64 values, not f32 elements");
    }
}
