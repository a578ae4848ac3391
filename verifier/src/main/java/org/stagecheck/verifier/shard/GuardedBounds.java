package org.stagecheck.verifier.shard;

import java.util.List;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;

/**
 * A block read (or written) at an offset a guarded {@code Scalar} result gives (an owned expert's
 * local index, docs/verifier.md "Sums over an index") must stay inside its tensor for every value
 * the index can take: inside the guard at the inside form, outside it at the outside form. The
 * validator cannot bound an offset read from a buffer; here the index's values are known (an
 * arg-max over a whole axis of extent n lies in [0, n)), so the check is exact. A block that can
 * leave the tensor faults on the evaluator, and an analysis that took the inside form for
 * granted would accept it. An offset that follows a piecewise index instead (a select on a
 * parameter, whose every branch is a value the offset takes) is checked by {@link PiecewiseBounds}.
 */
final class GuardedBounds {

    private GuardedBounds() {}

    /**
     * Checks each origin offset of {@code p} with the block's {@code extent} on its axis (for an
     * {@link AccessPattern.Indirect} pattern, the axes after the indexed one), reporting the first
     * that can leave the tensor.
     */
    static void check(MemoryRules memory, ShardState st, TensorDecl t, AccessPattern p, long[] extent) {
        List<Offset> origin = p.originOffsets();
        int first = p instanceof AccessPattern.Indirect ? 1 : 0;
        for (int a = 0; a < origin.size() && a < extent.length && a + first < t.shape().rank(); a++) {
            Offset o = origin.get(a);
            int axis = a + first;
            GuardedAffine g = null;
            for (Offset.Term term : o.terms()) {
                if (term instanceof Offset.Term.OfBuffer b && memory.guardedOffset(b.buffer()) instanceof GuardedAffine found) {
                    if (g != null && !g.equals(found)) {
                        report(st, originField(a), "its offset reads two guarded indices, whose joint values the checker does not bound");
                        return;
                    }
                    g = found;
                }
            }
            if (g == null) {
                if (!PiecewiseBounds.check(memory, st, t, o, extent[a], axis, originField(a))) {
                    return;
                }
                continue;
            }
            Affine inside;
            Affine outside;
            try {
                inside = memory.affine(o, true);
                outside = memory.affine(o, false);
            } catch (ArithmeticException overflow) {
                report(st, originField(a), "its offset overflows");
                return;
            }
            if (!checkAxis(st, g.guard(), inside, outside, extent[a], t, axis, originField(a))) {
                return;
            }
        }
    }

    /**
     * Checks that a block of {@code block} elements at {@code inside} (where {@code guard} holds)
     * or {@code outside} (elsewhere) lies in axis {@code axis} of {@code t} for every value of the
     * guarded index; reports at {@code field} and returns false when it can leave.
     */
    static boolean checkAxis(ShardState st, Guard guard, Affine inside, Affine outside, long block, TensorDecl t, int axis, String field) {
        long[] values = st.keyRanges.get(guard.var());
        long lo = values == null ? Long.MIN_VALUE : values[0];
        long hi = values == null ? Long.MAX_VALUE : values[1];
        long dim = t.shape().dim(axis);
        String problem;
        try {
            problem = within(inside, guard.var(), Math.max(lo, guard.lo()), Math.min(hi, guard.hi()), block, dim);
            if (problem == null) {
                problem = within(outside, guard.var(), lo, Math.min(hi, guard.lo()), block, dim);
            }
            if (problem == null) {
                problem = within(outside, guard.var(), Math.max(lo, guard.hi()), hi, block, dim);
            }
        } catch (ArithmeticException overflow) {
            problem = "its offset overflows";
        }
        if (problem != null) {
            report(st, field, problem + " (tensor '" + t.name() + "' has " + dim + " on axis " + axis + ", and the offset holds only where " + st.describe(guard) + ")");
            return false;
        }
        return true;
    }

    /** Null when {@code at} plus {@code block} lies in {@code [0, dim)} for every value of {@code var} in {@code [from, to)}; else why not. */
    private static String within(Affine at, String var, long from, long to, long block, long dim) {
        if (from >= to) {
            return null; // no index value takes this branch
        }
        long k = at.coefficients().getOrDefault(var, 0L);
        if (at.coefficients().size() > (k == 0 ? 0 : 1)) {
            return "its offset depends on more than the guarded index";
        }
        if (k != 0 && (from == Long.MIN_VALUE || to == Long.MAX_VALUE)) {
            return "its offset follows an index whose values are not bounded";
        }
        long first = Math.addExact(at.constant(), k == 0 ? 0 : Math.multiplyExact(k, from));
        long last = Math.addExact(at.constant(), k == 0 ? 0 : Math.multiplyExact(k, to - 1));
        long min = Math.min(first, last);
        long max = Math.max(first, last);
        if (min < 0 || Math.addExact(max, block) > dim) {
            return "for index values in [" + from + "," + to + ") the block covers [" + min + "," + Math.addExact(max, block) + ")";
        }
        return null;
    }

    static void report(ShardState st, String field, String why) {
        st.findings.atStage(Code.GUARDED_BLOCK_OUT_OF_BOUNDS, st.stageIndex, st.stage, field, null,
                "The block at a guarded offset can leave its tensor: " + why + ".");
    }

    /** The fields of the first origins, made once: every load checks its origin's axes, and most pass. */
    private static final java.util.List<String> ORIGIN_FIELDS = java.util.List.of("/kind/pattern/origin/0", "/kind/pattern/origin/1",
            "/kind/pattern/origin/2", "/kind/pattern/origin/3", "/kind/pattern/origin/4", "/kind/pattern/origin/5", "/kind/pattern/origin/6",
            "/kind/pattern/origin/7");

    /** {@code /kind/pattern/origin/a}. */
    static String originField(int a) {
        return a < ORIGIN_FIELDS.size() ? ORIGIN_FIELDS.get(a) : "/kind/pattern/origin/" + a;
    }
}
