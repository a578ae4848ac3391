package org.stagecheck.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.f32;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.tensor.compare.Policy;

/** Each conformance rule is a policy of the shared comparison engine, which judges it. */
class TolerancePolicyTest {
    @Test
    void exactIsExactAnyNaNAndAnUlpBoundIsUlp() {
        assertThat(Tolerance.exact().policy()).isEqualTo(new Policy.ExactAnyNaN());
        assertThat(Tolerance.ulps(3).policy()).isEqualTo(new Policy.Ulp(3));
        assertThat(Tolerance.forFunction(Fn.SIGMOID).policy()).isEqualTo(new Policy.Ulp(4));
    }

    @Test
    void aFiniteValueNeverMatchesAnInfinityEvenOneCodeAway() {
        // the engine's non-finite rule: an infinity matches only itself, whichever side holds it
        assertThat(TensorComparison.mismatch(new Expected("y", f32(dims(1), Float.MAX_VALUE), Tolerance.ulps(3)),
                f32(dims(1), Float.POSITIVE_INFINITY))).contains(
                "1 of 1 elements differ (within 3 ulp): at [0] expected 3.4028235E38 (f32 0x7f7fffff), actual Infinity (f32 0x7f800000)");
    }
}
