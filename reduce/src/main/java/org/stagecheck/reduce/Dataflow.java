package org.stagecheck.reduce;

import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * What each stage reads and writes, for the reducer's own well-formedness check: the validator
 * judges each stage, not the order of stages, so a candidate that drops a stage whose output a
 * later stage reads would pass it and read a buffer nobody wrote. A multicast is modelled as a
 * write of {@code group:NAME} by its Load and a read of it by each Recv.
 */
final class Dataflow {
    private Dataflow() {}

    static Set<String> reads(Stage s) {
        Set<String> out = new LinkedHashSet<>(s.ins());
        for (InternalRef r : s.kind().internalRefs()) {
            out.add(r.buffer());
        }
        if (s.kind() instanceof StageKind.Recv r) {
            out.add("group:" + r.group());
        }
        return out;
    }

    static Set<String> writes(Stage s) {
        Set<String> out = new LinkedHashSet<>(s.outs());
        if (s.kind() instanceof StageKind.Compute(ComputeOp.MatMul m) && m.spill() != null) {
            out.add(m.spill());
        }
        if (s.kind() instanceof StageKind.Load l && l.multicast() != null) {
            out.add("group:" + l.multicast());
        }
        return out;
    }

    /** Buffers (and multicast groups) some stage reads before any stage has written them. */
    static Set<String> readsBeforeWrite(Program p) {
        Set<String> written = new HashSet<>();
        Set<String> early = new LinkedHashSet<>();
        for (Stage s : p.stages()) {
            for (String b : reads(s)) {
                if (!written.contains(b)) {
                    early.add(b);
                }
            }
            written.addAll(writes(s));
        }
        return early;
    }

    /** Buffers read by {@code stages[from..]} whose value comes from a write in {@code stages[..from)}. */
    static Set<String> liveAt(List<Stage> stages, int from) {
        Set<String> before = new HashSet<>();
        for (int i = 0; i < from; i++) {
            before.addAll(writes(stages.get(i)));
        }
        Set<String> written = new HashSet<>();
        Set<String> live = new LinkedHashSet<>();
        for (int i = from; i < stages.size(); i++) {
            Stage s = stages.get(i);
            for (String b : reads(s)) {
                if (!written.contains(b) && before.contains(b)) {
                    live.add(b);
                }
            }
            written.addAll(writes(s));
        }
        return live;
    }
}
