package org.stagecheck.verifier.shard;

import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * A block read or written at an offset that reads a buffer whose value is a function of the
 * parameters alone (a {@code Scalar} result: a constant, an affine form in parameters, or a
 * piecewise index, {@link Piecewise}: a {@code select} or a {@code rem} on a parameter, a KV
 * cache slot) must stay inside its tensor for every value of the parameters in their declared
 * ranges (docs/verifier.md, "Piecewise indices"). The validator bounds offsets that name
 * parameters, but not an offset read from a buffer, and the evaluator faults on a block that
 * leaves the tensor (a load read by nothing included); the values of such a buffer are known
 * exactly (a parameter's declared range; a piecewise form's pieces are clipped to it, and each
 * is affine, so its least and greatest values are at piece ends), so the check is exact for an
 * offset that is one such value plus a constant, and safe (a box around the values) for one that
 * adds other bounded sources.
 */
final class PiecewiseBounds {
    private PiecewiseBounds() {}

    /**
     * Checks the block of {@code block} elements at offset {@code o} on axis {@code axis} of
     * {@code t} when the offset follows a piecewise index; reports at {@code field} and returns
     * false when it can leave the tensor.
     */
    static boolean check(MemoryRules memory, ShardState st, TensorDecl t, Offset o, long block, int axis, String field) {
        if (!followsParameters(st, o)) {
            return true;
        }
        long dim = t.shape().dim(axis);
        long[] values;
        long end;
        try {
            values = memory.affine(o, Boolean.TRUE).range(st::sourceRange);
            if (values == null) {
                return true; // beside a source of unknown values: not bounded here, as any offset read from a buffer
            }
            end = Math.addExact(values[1], block);
        } catch (ArithmeticException overflow) {
            GuardedBounds.report(st, field, "its offset overflows");
            return false;
        }
        if (values[0] < 0 || end > dim) {
            GuardedBounds.report(st, field, "its offset reads a buffer that follows the parameters (a Scalar result) and takes values in [" + values[0] + "," + values[1]
                    + "] over their declared ranges, so the block covers [" + values[0] + "," + end + ") (tensor '" + t.name() + "' has " + dim
                    + " on axis " + axis + ")");
            return false;
        }
        return true;
    }

    /**
     * Whether a buffer the offset reads holds a value whose affine form is a constant or has a
     * parameter or a piecewise index as a source.
     */
    private static boolean followsParameters(ShardState st, Offset o) {
        for (Offset.Term term : o.terms()) {
            if (term instanceof Offset.Term.OfBuffer b && st.value(b.buffer()) instanceof Val.Exact e && e.hidden() == null
                    && st.affine.get(e.term().id()) instanceof Affine f) {
                if (f.coefficients().isEmpty()) {
                    return true;
                }
                for (String source : f.coefficients().keySet()) {
                    if (source.startsWith(Piecewise.PREFIX) || source.startsWith("p:")) {
                        return true;
                    }
                }
            }
        }
        return false;
    }
}
