package org.stagecheck.verifier.shard;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;

/**
 * The split's parameters against its unsplit parent's (docs/verifier.md, "The unsplit parent"):
 * the comparison of outputs proves the split equal to the parent for every parameter value both
 * promise to stay in, so a split that declares a parameter the parent lacks, or a wider range for
 * one (runs the parent never defined), promises more than was shown. A narrower range is a split
 * specialised for fewer runs, and is accepted; so is a parameter the parent lacks whose range
 * holds one value (it is a constant of the split).
 */
public final class ParamRanges {
    private ParamRanges() {}

    /**
     * {@code parent} with each parameter's range cut to where the split's parameter of that name
     * also lies (the intersection, when not empty): the comparison with the parent is made for
     * the values both run, so a split specialised for a narrower range is analysed against the
     * parent on that range (index forms that depend on the range, such as {@code rem(pos, 4)},
     * which is {@code pos} on [0, 3] and two pieces on [0, 7], then meet). A wider range of the
     * split is reported by {@link #checkAgainstParent}; the comparison still holds on the
     * intersection.
     */
    public static Program within(Program parent, Program split) {
        Map<String, Param> mine = new HashMap<>();
        split.params().forEach(p -> mine.putIfAbsent(p.name(), p));
        List<Param> cut = new java.util.ArrayList<>(parent.params().size());
        boolean changed = false;
        for (Param q : parent.params()) {
            Param p = mine.get(q.name());
            long lo = p == null ? q.min() : Math.max(p.min(), q.min());
            long hi = p == null ? q.max() : Math.min(p.max(), q.max());
            if (lo > hi || lo == q.min() && hi == q.max()) {
                cut.add(q);
            } else {
                cut.add(new Param(q.name(), lo, hi));
                changed = true;
            }
        }
        return changed ? parent.withParams(cut) : parent;
    }

    /** Reports each parameter of {@code split} missing from {@code parent}, or declared with a wider range, at {@code /params/i}. */
    public static void checkAgainstParent(Program split, Program parent, Findings findings) {
        Map<String, Param> theirs = new HashMap<>();
        parent.params().forEach(p -> theirs.put(p.name(), p));
        List<Param> mine = split.params();
        for (int i = 0; i < mine.size(); i++) {
            Param p = mine.get(i);
            Param q = theirs.get(p.name());
            String at = "/params/" + i;
            if (q == null && p.min() == p.max()) {
                continue; // one value: a constant of the split (the checker folds it), nothing the parent would have to read
            }
            if (q == null) {
                findings.atField(Code.PARAM_RANGE_WIDER, at + "/name", null, "The split declares parameter '" + p.name() + "' ["
                        + p.min() + "," + p.max() + "], which the unsplit parent does not have: the split's outputs may depend on a value the parent never reads.");
            } else if (p.min() < q.min() || p.max() > q.max()) {
                findings.atField(Code.PARAM_RANGE_WIDER, at + (p.min() < q.min() ? "/min" : "/max"), null, "The split declares parameter '"
                        + p.name() + "' in [" + p.min() + "," + p.max() + "], wider than the unsplit parent's [" + q.min() + "," + q.max()
                        + "]: the comparison with the parent holds only for values in the parent's range.");
            }
        }
    }
}
