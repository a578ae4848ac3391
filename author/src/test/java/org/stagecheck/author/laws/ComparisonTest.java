package org.stagecheck.author.laws;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/** A law's comparison, judged by the shared comparison engine: the verdict, the largest difference and the first failure. */
class ComparisonTest {
    private static Tensor f32(float... v) {
        return Tensor.fromFloats(DType.F32, Shape.of(v.length), v);
    }

    @Test
    void theFirstElementBeyondTheToleranceIsNamedAndTheLargestDifferenceKept() {
        Comparison c = new Comparison("law", 0.25);
        c.compare("x", f32(1, 2, 3, 4), f32(1, 2.5f, 3, 5));
        LawResult r = c.result("x");
        assertThat(r.holds()).isFalse();
        assertThat(r.maxAbsDiff()).isEqualTo(1.0);
        assertThat(r.explanation()).isEqualTo("x; first difference: x[1] is 2.5, expected 2.0 (|diff| 0.5 > 0.25)");
    }

    @Test
    void withinTheToleranceHoldsAndNaNMatchesNaN() {
        Comparison c = new Comparison("law", 0.5);
        c.compare("x", f32(1, Float.NaN, -0f), f32(1.5f, Float.NaN, 0f));
        assertThat(c.result("x").holds()).isTrue();
        assertThat(c.result("x").maxAbsDiff()).isEqualTo(0.5);
    }

    @Test
    void aNaNOrInfinityDisagreementFailsWhateverTheToleranceAndLeavesNoDifference() {
        Comparison c = new Comparison("law", 1e9);
        c.compare("x", f32(1, 2, 3), f32(1, Float.POSITIVE_INFINITY, Float.NaN));
        LawResult r = c.result("x");
        assertThat(r.holds()).isFalse();
        assertThat(r.maxAbsDiff()).isNaN();
        assertThat(r.explanation()).isEqualTo("x; first difference: x[1] is Infinity, expected 2.0");
    }

    @Test
    void equalInfinitiesAgree() {
        Comparison c = new Comparison("law", 0);
        c.compare("x", f32(Float.NEGATIVE_INFINITY, 1), f32(Float.NEGATIVE_INFINITY, 1));
        assertThat(c.result("x").holds()).isTrue();
    }

    @Test
    void integersAreComparedExactly() {
        Comparison c = new Comparison("law", 100);
        Tensor e = Tensor.fromInts(Shape.of(3), new int[] {7, 8, 9});
        Tensor a = Tensor.fromInts(Shape.of(3), new int[] {7, 9, 9});
        c.compare("t", e, a);
        LawResult r = c.result("t");
        assertThat(r.holds()).isFalse();
        assertThat(r.maxAbsDiff()).isNaN();
        assertThat(r.explanation()).isEqualTo("t; first difference: t[1] is 9, expected 8");
    }
}
