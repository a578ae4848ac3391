package org.stagecheck.verifier.shard;

import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;

/**
 * A store to an output or state tensor at a guarded offset ({@link GuardedAffine}: a
 * {@code select} on a range test whose branches are other positions) writes at the inside form
 * only in the runs where the guard holds, and at the outside form in the others. The checker
 * places the store at the inside form, and nothing reads an output back to mask the other runs
 * (a scratch tensor keeps the guard, so what is read back from it must be masked), so such a
 * store is a finding unless both branches are one position or the guard admits every value the
 * index can take (docs/verifier.md, "Sums over an index").
 */
final class GuardedStores {
    private GuardedStores() {}

    /** Whether {@code g} admits every value its index can take (known range), so the outside branch is never taken. */
    private static boolean holdsEverywhere(ShardState st, Guard g) {
        long[] values = st.keyRanges.get(g.var());
        return values != null && g.admits(Slices.of(values[0], values[1]));
    }

    /** Reports a store of pattern {@code p} to output or state tensor {@code t} at an offset whose two branches differ. */
    static void check(MemoryRules memory, ShardState st, TensorDecl t, AccessPattern p, String buffer) {
        if (!t.role().isResult()) {
            return;
        }
        for (int a = 0; a < p.originOffsets().size(); a++) {
            for (Offset.Term term : p.originOffsets().get(a).terms()) {
                if (term instanceof Offset.Term.OfBuffer b && memory.guardedOffset(b.buffer()) instanceof GuardedAffine g && !g.inside().equals(g.outside())
                        && !holdsEverywhere(st, g.guard())) {
                    st.findings.atStage(Code.GUARDED_READ_UNMASKED, st.stageIndex, st.stage, GuardedBounds.originField(a), buffer,
                            "The store to " + t.role().jsonName() + " tensor '" + t.name() + "' is at an offset ('" + b.buffer() + "') that is the position the checker places only where "
                                    + st.describe(g.guard()) + "; in a run where it lies outside, the store writes at the offset's other branch.");
                    return;
                }
            }
        }
    }
}
