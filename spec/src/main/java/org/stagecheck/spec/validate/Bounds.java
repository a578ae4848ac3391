package org.stagecheck.spec.validate;

import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;

/**
 * The range an {@link Offset} can take over every parameter value in its declared range (interval
 * arithmetic, exact for affine offsets). A buffer term's value is known only at run time, so an
 * offset with one has no static range: the interpreter checks it then.
 */
record Bounds(long min, long max) {
    /**
     * The range of {@code o}, or null when it reads a buffer or names an unknown parameter. Terms
     * of one parameter are summed first ({@code pos - pos} is 0, not {@code [min-max, max-min]}),
     * which makes the range exact: each parameter then appears once, and an affine function of
     * independent parameters takes its extremes at the corners of their ranges.
     */
    static Bounds of(Offset o, Map<String, Param> params) {
        Map<String, Long> coefficients = new LinkedHashMap<>();
        long partialLo = o.constant();
        long partialHi = o.constant();
        try {
            for (Offset.Term t : o.terms()) {
                switch (t) {
                    case Offset.Term.OfBuffer b -> {
                        return null;
                    }
                    case Offset.Term.OfParam p -> {
                        if (!params.containsKey(p.param())) {
                            return null;
                        }
                        // the evaluator sums term by term in exact 64-bit arithmetic (OFFSET_OVERFLOW): every
                        // partial sum must fit too, even where terms cancel, so those ranges are checked as well
                        Param prm = params.get(p.param());
                        long a = Math.multiplyExact(p.coefficient(), prm.min());
                        long b = Math.multiplyExact(p.coefficient(), prm.max());
                        partialLo = Math.addExact(partialLo, Math.min(a, b));
                        partialHi = Math.addExact(partialHi, Math.max(a, b));
                        coefficients.merge(p.param(), p.coefficient(), Math::addExact);
                    }
                }
            }
            long lo = o.constant();
            long hi = o.constant();
            for (Map.Entry<String, Long> e : coefficients.entrySet()) {
                Param prm = params.get(e.getKey());
                long a = Math.multiplyExact(e.getValue(), prm.min());
                long b = Math.multiplyExact(e.getValue(), prm.max());
                lo = Math.addExact(lo, Math.min(a, b));
                hi = Math.addExact(hi, Math.max(a, b));
            }
            return new Bounds(lo, hi);
        } catch (ArithmeticException e) {
            return new Bounds(Long.MIN_VALUE, Long.MAX_VALUE);
        }
    }
}
