package org.stagecheck.golden.debug;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.golden.debug.ThreeWay.Classification;
import org.stagecheck.golden.debug.ThreeWay.Port;
import org.stagecheck.spec.ir.DType;

/** The rule that turns the three-way figures into a verdict. */
class ThreeWayTest {
    private static Port port(DType dtype, double bound, double refErr, double refRel, double backErr, long beyond) {
        return new Port("out", dtype, bound, refErr, backErr, refRel, backErr * 10, beyond, 0, 16);
    }

    @Test
    void everyElementWithinItsBoundIsRounding() {
        assertThat(ThreeWay.classify(List.of(port(DType.F32, 1e-6, 1e-7, 1e-7, 9e-7, 0)))).isEqualTo(Classification.WITHIN_ROUNDING);
    }

    @Test
    void beyondTheBoundWithAnAccurateReferenceIsABug() {
        assertThat(ThreeWay.classify(List.of(port(DType.F32, 1e-6, 1e-7, 1e-7, 2e-6, 3)))).isEqualTo(Classification.BEYOND_BOUND);
    }

    @Test
    void beyondTheBoundWhileTheReferenceItselfLosesTheDigitsIsIllConditioned() {
        // the reference is 1e-3 relative from float64 (far beyond 64 f32 roundoffs); the backend no worse than 4x it
        assertThat(ThreeWay.classify(List.of(port(DType.F32, 1e-6, 8e-7, 1e-3, 2e-6, 3)))).isEqualTo(Classification.ILL_CONDITIONED);
        // ... but a backend far worse than the reference is still a bug
        assertThat(ThreeWay.classify(List.of(port(DType.F32, 1e-6, 8e-7, 1e-3, 1e-4, 3)))).isEqualTo(Classification.BEYOND_BOUND);
    }

    @Test
    void farIsMeasuredInTheOutputDtypesRoundoffs() {
        // 3e-3 relative is ordinary bf16 storage rounding (2^-9 = 2e-3 unit roundoff), not ill-conditioning
        assertThat(ThreeWay.classify(List.of(port(DType.BF16, 4e-3, 3e-3, 3e-3, 7e-3, 12)))).isEqualTo(Classification.BEYOND_BOUND);
    }

    @Test
    void oneBuggyPortMakesTheStageABug() {
        assertThat(ThreeWay.classify(List.of(port(DType.F32, 1e-6, 1e-7, 1e-7, 0, 0), port(DType.F32, 1e-6, 1e-7, 1e-7, 1, 16))))
                .isEqualTo(Classification.BEYOND_BOUND);
    }
}
