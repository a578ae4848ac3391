package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * One step of the path by which a partial (or shard) value came to be: stage {@code stageIndex}
 * did {@code what}, and the value it worked on came from {@code previous}. A parent-pointer chain,
 * so recording a step costs O(1) and the trail of a diagnostic is only materialised when one is
 * made (docs/verifier.md, "Trails").
 */
public record Origin(int stageIndex, String stageId, java.util.function.Supplier<String> what, Origin previous, Demotion pending) {

    /**
     * A step; {@code pending} is inherited from {@code previous}: the finding owed if the partial
     * is never completed (a level of a hierarchical all-reduce whose next level never comes). The
     * text of the step is made only when a trail is shown.
     */
    public Origin(int stageIndex, String stageId, java.util.function.Supplier<String> what, Origin previous) {
        this(stageIndex, stageId, what, previous, previous == null ? null : previous.pending());
    }

    public Origin(int stageIndex, String stageId, String what, Origin previous, Demotion pending) {
        this(stageIndex, stageId, () -> what, previous, pending);
    }

    /** The one of two origins of merged partials that owes a finding, if either does. */
    static Origin owing(Origin a, Origin b) {
        if (a != null && a.pending() != null) {
            return a;
        }
        if (b != null && b.pending() != null) {
            return b;
        }
        return a != null ? a : b;
    }

    /** {@code #4 mm_o.1: MatMul over w_o.1 rows [512,1024) makes a partial of w_o}. */
    public String describe() {
        return "#" + stageIndex + " " + stageId + ": " + what.get();
    }

    /** The steps from the first to this one, oldest first. */
    public List<String> trail() {
        List<String> out = new ArrayList<>();
        for (Origin o = this; o != null; o = o.previous) {
            out.add(o.describe());
        }
        Collections.reverse(out);
        return out;
    }
}
