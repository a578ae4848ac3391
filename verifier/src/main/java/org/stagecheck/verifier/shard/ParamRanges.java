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
