package org.stagecheck.spec.validate;

import java.util.Map;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;

/**
 * The range an {@link Offset} can take over every parameter value in its declared range (interval
 * arithmetic, exact for affine offsets). A buffer term's value is known only at run time, so an
 * offset with one has no static range: the interpreter checks it then.
 */
record Bounds(long min, long max) {
    /** The range of {@code o}, or null when it reads a buffer or names an unknown parameter. */
    static Bounds of(Offset o, Map<String, Param> params) {
        long lo = o.constant();
        long hi = o.constant();
        try {
            for (Offset.Term t : o.terms()) {
                switch (t) {
                    case Offset.Term.OfBuffer b -> {
                        return null;
                    }
                    case Offset.Term.OfParam p -> {
                        Param prm = params.get(p.param());
                        if (prm == null) {
                            return null;
                        }
                        long a = Math.multiplyExact(p.coefficient(), prm.min());
                        long b = Math.multiplyExact(p.coefficient(), prm.max());
                        lo = Math.addExact(lo, Math.min(a, b));
                        hi = Math.addExact(hi, Math.max(a, b));
                    }
                }
            }
        } catch (ArithmeticException e) {
            return new Bounds(Long.MIN_VALUE, Long.MAX_VALUE);
        }
        return new Bounds(lo, hi);
    }
}
