package org.stagecheck.reduce;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * What each stage reads and writes, for the reducer's own well-formedness check: the validator
 * judges each stage, not the order of stages, so a candidate that drops a stage whose output a
 * later stage reads would pass it and read a buffer nobody wrote. The facts are the spec's
 * ({@link org.stagecheck.spec.flow.Dataflow}): a matmul's spill is read and written, and reading
 * it unwritten is no fault (it reads as +0). A multicast is named {@code group:NAME}: written by
 * its Load, read by each Recv.
 */
final class Dataflow {
    private Dataflow() {}

    /** The buffers {@code s} writes, and {@code group:NAME} for a multicast Load. */
    static Set<String> writes(Stage s) {
        Set<String> out = new LinkedHashSet<>(s.buffersWritten());
        if (s.kind() instanceof StageKind.Load l && l.multicast() != null) {
            out.add(group(l.multicast()));
        }
        return out;
    }

    /** Buffers (and multicast groups) some stage reads before any stage has written them. */
    static Set<String> readsBeforeWrite(Program p) {
        org.stagecheck.spec.flow.Dataflow flow = org.stagecheck.spec.flow.Dataflow.of(p);
        Set<String> early = new LinkedHashSet<>();
        for (int i = 0; i < p.stages().size(); i++) {
            early.addAll(flow.readsBeforeWrite(i));
            if (p.stages().get(i).kind() instanceof StageKind.Recv r && flow.groupLoad(i) == org.stagecheck.spec.flow.Dataflow.NONE) {
                early.add(group(r.group()));
            }
        }
        return early;
    }

    /** Buffers read by {@code stages[from..]} whose value comes from a write in {@code stages[..from)}. */
    static Set<String> liveAt(List<Stage> stages, int from) {
        org.stagecheck.spec.flow.Dataflow flow = org.stagecheck.spec.flow.Dataflow.of(stages);
        Set<String> live = new LinkedHashSet<>();
        for (int i = from; i < stages.size(); i++) {
            for (org.stagecheck.spec.flow.Dataflow.Read r : flow.reads(i)) {
                if (r.writer() != org.stagecheck.spec.flow.Dataflow.NONE && r.writer() < from) {
                    live.add(r.buffer());
                }
            }
            int load = flow.groupLoad(i);
            if (stages.get(i).kind() instanceof StageKind.Recv r && load != org.stagecheck.spec.flow.Dataflow.NONE && load < from) {
                live.add(group(r.group()));
            }
        }
        return live;
    }

    private static String group(String name) {
        return "group:" + name;
    }
}
