package org.stagecheck.tensor.compare;

/**
 * The per-element test every policy reduces to, as plain numbers so one loop serves all
 * policies: an element passes when it is bit-equal, or (unless {@code bitExact}) when its ULP
 * distance is at most {@code maxUlps} and {@code |a - e| <= atol + rtol |e| + scale * tol[i]}.
 * A NaN against a NaN of other bits agrees unless {@code nanPayloadsMatter}.
 *
 * @param rtolForMinimal the rtol at which {@link Comparison.Minimal#atolAtRtol()} is measured
 */
record ElementTest(boolean bitExact, boolean nanPayloadsMatter, long maxUlps, double atol, double rtol, double scale, double rtolForMinimal) {

    static ElementTest of(Policy resolved, FloatFormat format) {
        double inf = Double.POSITIVE_INFINITY;
        return switch (resolved) {
            case Policy.Exact e -> new ElementTest(true, true, 0, 0, 0, 0, format.defaultRtol());
            case Policy.ExactAnyNaN e -> new ElementTest(true, false, 0, 0, 0, 0, format.defaultRtol());
            case Policy.Ulp u -> new ElementTest(false, false, u.maxUlps(), inf, 0, 0, format.defaultRtol());
            case Policy.AllClose a -> new ElementTest(false, false, Long.MAX_VALUE, a.atol(), a.rtol(), 0, a.rtol());
            case Policy.DefaultAllClose d -> of(Policy.AllClose.defaults(format.dtype()), format);
            // pcc judges the whole tensor; per element it counts what the dtype's default allclose rejects
            case Policy.Pcc p -> of(Policy.AllClose.defaults(format.dtype()), format);
            case Policy.Derived d -> new ElementTest(false, false, Long.MAX_VALUE, 0, 0, d.scale(), format.defaultRtol());
        };
    }
}
