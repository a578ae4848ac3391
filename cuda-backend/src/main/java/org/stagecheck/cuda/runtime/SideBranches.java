package org.stagecheck.cuda.runtime;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.stagecheck.spec.flow.Dataflow;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * The independent chains of stages graph mode captures on a side stream (after the seed's
 * {@code SegState}: {@code cap_side}, {@code ev_fork}, {@code ev_join}, the shared expert forked
 * off the main stream), found from the program's dataflow alone, never from stage names.
 *
 * <p>The rule (docs/cuda.md, "Graph mode"). Take a stage {@code J} (the join) that reads results
 * of two or more earlier stages, and let {@code q} be the second-latest of them (its producers,
 * {@link Dataflow#producers}). The candidate side chain is every stage strictly between them,
 * {@code S = (q, J)}; it ends right before {@code J} and holds {@code J}'s latest producer. Its
 * fork point {@code F} is one past the latest stage before {@code S} that a stage of {@code S}
 * reads from. The main stream's concurrent part is {@code M = [F, q]}. The branch is taken when
 * <ul>
 *   <li>{@code M} is not empty, so no stage of {@code S} reads a result of {@code M};</li>
 *   <li>both {@code S} and {@code M} hold a {@code MatMul}: there is work on both streams to
 *       overlap (a chain of loads or a norm's two reductions is not worth a fork);</li>
 *   <li>{@code M}, {@code S} and {@code J} run on one chip (their sites' chip): the streams model
 *       one chip's queue, and the chips of a split run side by side already;</li>
 *   <li>nothing {@code S} writes is read or written by {@code M}, and nothing {@code M} writes is
 *       read by {@code S}: buffers ({@link Stage#buffersRead()}, {@link Stage#buffersWritten()}),
 *       DRAM tensors (a {@code Load} reads its tensor, a {@code Store} writes it) and multicast
 *       deliveries (a multicast {@code Load} writes its group's, a {@code Recv} reads it), so
 *       either order, or any interleaving, of the two gives the same values.</li>
 * </ul>
 * Candidates are taken longest side chain first; one whose span {@code [F, J]} overlaps a span
 * already taken is dropped (there is one side stream, and branches do not nest). A Qwen2-MoE
 * sparse layer gives exactly one branch: {@code J} adds the routed experts' sum ({@code q}) and
 * the shared expert's scaled output; {@code S} is the shared expert, forked right after the
 * activations it reads, and {@code M} the router and the routed experts.
 */
public final class SideBranches {
    /**
     * One side branch, as stage indices: the fork is recorded on the main stream before stage
     * {@code fork}; stages {@code [sideFrom, join)} run on the side stream; the main stream waits
     * for the join event before stage {@code join}. {@code fork < sideFrom < join}.
     */
    public record Branch(int fork, int sideFrom, int join) {
        public boolean onSide(int stage) {
            return stage >= sideFrom && stage < join;
        }
    }

    private SideBranches() {
    }

    /** The side branches of {@code program}, ascending. */
    public static List<Branch> of(Program program) {
        return of(Dataflow.of(program));
    }

    /** The side branches of the stages of {@code flow}, ascending. */
    public static List<Branch> of(Dataflow flow) {
        List<Stage> stages = flow.stages();
        List<Set<String>> reads = new ArrayList<>();
        List<Set<String>> writes = new ArrayList<>();
        List<List<Integer>> producersOf = new ArrayList<>();
        for (int i = 0; i < stages.size(); i++) {
            reads.add(reads(stages.get(i)));
            writes.add(writes(stages.get(i)));
            producersOf.add(flow.producers(i));
        }
        List<Branch> candidates = new ArrayList<>();
        for (int j = 0; j < stages.size(); j++) {
            List<Integer> producers = producersOf.get(j);
            if (producers.size() < 2) {
                continue;
            }
            int q = producers.get(producers.size() - 2);
            int sideFrom = q + 1;
            int fork = 0;
            for (int i = sideFrom; i < j; i++) {
                for (int p : producersOf.get(i)) {
                    if (p < sideFrom) {
                        fork = Math.max(fork, p + 1);
                    }
                }
            }
            if (fork >= sideFrom || !oneChip(stages, fork, j) || !hasMatMul(stages, fork, sideFrom) || !hasMatMul(stages, sideFrom, j)
                    || !independent(reads, writes, fork, sideFrom, j)) {
                continue;
            }
            candidates.add(new Branch(fork, sideFrom, j));
        }
        candidates.sort(Comparator.comparingInt((Branch b) -> b.join() - b.sideFrom()).reversed()
                .thenComparingInt(Branch::join));
        List<Branch> taken = new ArrayList<>();
        for (Branch c : candidates) {
            boolean overlaps = taken.stream().anyMatch(t -> c.fork() <= t.join() && t.fork() <= c.join());
            if (!overlaps) {
                taken.add(c);
            }
        }
        taken.sort(Comparator.comparingInt(Branch::fork));
        return List.copyOf(taken);
    }

    /** Whether stages {@code [from, to]} all run on one chip. */
    private static boolean oneChip(List<Stage> stages, int from, int to) {
        int chip = stages.get(to).site().chip();
        for (int i = from; i < to; i++) {
            if (stages.get(i).site().chip() != chip) {
                return false;
            }
        }
        return true;
    }

    private static boolean hasMatMul(List<Stage> stages, int from, int to) {
        for (int i = from; i < to; i++) {
            if (stages.get(i).kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.MatMul) {
                return true;
            }
        }
        return false;
    }

    /** Whether side stages {@code [sideFrom, join)} and main stages {@code [fork, sideFrom)} touch nothing the other writes. */
    private static boolean independent(List<Set<String>> reads, List<Set<String>> writes, int fork, int sideFrom, int join) {
        Set<String> mainReads = new HashSet<>();
        Set<String> mainWrites = new HashSet<>();
        for (int i = fork; i < sideFrom; i++) {
            mainReads.addAll(reads.get(i));
            mainWrites.addAll(writes.get(i));
        }
        for (int i = sideFrom; i < join; i++) {
            for (String w : writes.get(i)) {
                if (mainReads.contains(w) || mainWrites.contains(w)) {
                    return false;
                }
            }
            for (String r : reads.get(i)) {
                if (mainWrites.contains(r)) {
                    return false;
                }
            }
        }
        return true;
    }

    /** What a stage reads: its buffers, a Load's tensor, a Recv's group delivery (prefixed so the name spaces stay apart). */
    private static Set<String> reads(Stage st) {
        Set<String> out = new HashSet<>();
        for (String b : st.buffersRead()) {
            out.add("buffer:" + b);
        }
        switch (st.kind()) {
            case StageKind.Load l -> out.add("tensor:" + l.tensor());
            case StageKind.Recv r -> out.add("group:" + r.group());
            case StageKind.Store s -> { }
            case StageKind.AllReduce a -> { }
            case StageKind.Compute c -> { }
            case StageKind.Scalar s -> { }
        }
        return out;
    }

    /** What a stage writes: its buffers, a Store's tensor, a multicast Load's group delivery. */
    private static Set<String> writes(Stage st) {
        Set<String> out = new HashSet<>();
        for (String b : st.buffersWritten()) {
            out.add("buffer:" + b);
        }
        switch (st.kind()) {
            case StageKind.Store s -> out.add("tensor:" + s.tensor());
            case StageKind.Load l -> {
                if (l.multicast() != null) {
                    out.add("group:" + l.multicast());
                }
            }
            case StageKind.Recv r -> { }
            case StageKind.AllReduce a -> { }
            case StageKind.Compute c -> { }
            case StageKind.Scalar s -> { }
        }
        return out;
    }
}
