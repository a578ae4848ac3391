package org.stagecheck.verifier.flow;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.stagecheck.spec.flow.Dataflow;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;
import org.stagecheck.verifier.ProgramIndex;

/**
 * The multicast and ordering obligation (brief, "Certificates"), in one pass over the stages in
 * reference order:
 * <ul>
 *   <li>every buffer a stage reads (ports and kind-internal references) was written by an earlier
 *       stage; a matmul's spill is exempt, since an unwritten accumulator starts at zero
 *       ({@link Code#READ_BEFORE_WRITE}; the reads are the spec's {@link Dataflow});</li>
 *   <li>a load of a scratch or output tensor follows some store to it
 *       ({@link Code#TENSOR_READ_BEFORE_WRITE}); inputs, weights and state are bound before the run;</li>
 *   <li>a multicast load runs on its group's sender; each receiver of the group's rectangle takes
 *       exactly one {@code Recv} per load, after that load and before the group's next load; its
 *       buffer has the dtype and shape of the load's ({@code RECV_*} codes).</li>
 * </ul>
 * A receiver's {@code Recv} for load k must come before the group's load k+1: a later load
 * overwrites what is in flight, so a missing receive is reported at the load it missed.
 */
public final class FlowChecker {
    private final ProgramIndex index;
    private final Findings findings;
    private final Dataflow flow;
    private final Map<String, Round> rounds = new HashMap<>();

    /** The latest load to a group and the receivers that have taken it. */
    private static final class Round {
        final int loadIndex;
        final Stage load;
        final String buffer;
        final Set<Site> received = new HashSet<>();

        Round(int loadIndex, Stage load, String buffer) {
            this.loadIndex = loadIndex;
            this.load = load;
            this.buffer = buffer;
        }
    }

    public FlowChecker(ProgramIndex index, Findings findings) {
        this.index = index;
        this.findings = findings;
        this.flow = Dataflow.of(index.program());
    }

    public void run() {
        List<Stage> stages = index.program().stages();
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            checkReads(i, s);
            switch (s.kind()) {
                case StageKind.Load l -> load(i, s, l);
                case StageKind.Recv r -> recv(i, s, r);
                case StageKind.Store st -> { }
                case StageKind.AllReduce a -> { }
                case StageKind.Compute c -> { }
                case StageKind.Scalar sc -> { }
            }
        }
        rounds.values().stream()
                .sorted((a, b) -> Integer.compare(a.loadIndex, b.loadIndex))
                .forEach(this::closeRound);
    }

    private void checkReads(int i, Stage s) {
        List<Dataflow.Read> reads = flow.reads(i);
        for (int k = 0; k < reads.size(); k++) { // by index: no iterator per stage
            Dataflow.Read r = reads.get(k);
            if (!r.beforeWrite()) {
                continue;
            }
            String why = r.ref() == null ? "" : " (its " + r.ref().field() + ")";
            findings.atStage(Code.READ_BEFORE_WRITE, i, s, "/" + r.path(), r.buffer(),
                    "Stage reads buffer '" + r.buffer() + "'" + why + ", which no earlier stage writes.");
        }
    }

    private void load(int i, Stage s, StageKind.Load l) {
        TensorDecl t = index.tensor(l.tensor());
        if (t != null && !t.role().isBoundBeforeRun() && flow.storesBefore(i).isEmpty()) {
            findings.atStage(Code.TENSOR_READ_BEFORE_WRITE, i, s, "/kind/tensor", null,
                    "Stage loads " + t.role().jsonName() + " tensor '" + l.tensor() + "', which no earlier stage stores to.");
        }
        if (l.multicast() == null) {
            return;
        }
        Group g = index.group(l.multicast());
        if (g == null) {
            return; // the validator's UNKNOWN_GROUP (well-formed)
        }
        Round previous = rounds.put(g.name(), new Round(i, s, s.outs().isEmpty() ? null : s.outs().getFirst()));
        if (previous != null) {
            closeRound(previous);
        }
    }

    private void closeRound(Round r) {
        StageKind.Load l = (StageKind.Load) r.load.kind();
        Group g = index.group(l.multicast());
        Set<Site> missing = new LinkedHashSet<>(g.receivers());
        missing.removeAll(r.received);
        for (Site site : missing) {
            findings.atStage(Code.RECV_MISSING, r.loadIndex, r.load, "/kind/multicast", r.buffer,
                    "Receiver " + site + " of group '" + g.name() + "' never takes this load (no Recv on that core before the group's next load or the end).");
        }
    }

    private void recv(int i, Stage s, StageKind.Recv recv) {
        Group g = index.group(recv.group());
        if (g == null || !g.receivers().contains(s.site())) {
            return; // the validator's UNKNOWN_GROUP / RECV_NOT_RECEIVER (well-formed)
        }
        String out = s.outs().isEmpty() ? null : s.outs().getFirst();
        Round r = rounds.get(g.name());
        if (r == null) {
            findings.atStage(Code.RECV_BEFORE_LOAD, i, s, "/kind/group", out,
                    "Stage receives from group '" + g.name() + "' before any load is sent to it.");
            return;
        }
        if (!r.received.add(s.site())) {
            findings.atStage(Code.RECV_DUPLICATE, i, s, "/kind/group", out,
                    "Receiver " + s.site() + " takes the load of stage #" + r.loadIndex + " '" + r.load.id() + "' a second time.");
            return;
        }
        // a receive's shape and dtype against what was sent is the validator's RECV_SHAPE (well-formed)
    }
}
