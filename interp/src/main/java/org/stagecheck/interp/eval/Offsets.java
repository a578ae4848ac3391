package org.stagecheck.interp.eval;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.rules.Rule;

/**
 * Evaluates an affine {@link Offset}: {@code constant + sum(coefficient * source)} in 64-bit
 * integers, a source being a parameter or the single element of an i32 buffer. Overflow is a fault.
 */
final class Offsets {
    private Offsets() {
    }

    static long eval(Offset o, int axis, RunState state) throws Fault {
        try {
            long v = o.constant();
            for (Offset.Term t : o.terms()) {
                long src = switch (t) {
                    case Offset.Term.OfParam p -> state.param(p.param());
                    case Offset.Term.OfBuffer b -> scalarBuffer(b.buffer(), axis, state);
                };
                v = Math.addExact(v, Math.multiplyExact(t.coefficient(), src));
            }
            return v;
        } catch (ArithmeticException e) {
            throw new Fault(FaultCode.OFFSET_OVERFLOW, "kind/pattern/origin/" + axis, null,
                    "offset '" + o + "' on axis " + axis + " overflows 64 bits.");
        }
    }

    private static long scalarBuffer(String name, int axis, RunState state) throws Fault {
        Tensor t = state.read(name);
        if (t.dtype() != DType.I32 || t.size() != 1) {
            throw new Fault(Rule.INDEX_BUFFER_TYPE, "kind/pattern/origin/" + axis, name,
                    "offset buffer '" + name + "' must be a one-element i32 buffer, not " + t.dtype() + " " + t.shape() + ".");
        }
        return t.getInt(0);
    }
}
