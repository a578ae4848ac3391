package org.stagecheck.spec.flow;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * What each stage of a program reads and writes, and which earlier stage produced what it reads,
 * in reference order (brief, "Stages": the list order is the reference order). The one derivation
 * of these facts: the verifier's ordering obligation, the reducer's well-formedness check, the
 * golden debugger's producers and the CUDA lowering's static faults all read them here.
 *
 * <p>A stage reads the buffers {@link Stage#buffersRead()} names and writes those
 * {@link Stage#buffersWritten()} names. A matmul's spill is both: the accumulators start from it
 * and are written back to it. Reading a spill that no stage wrote is not a read before write (it
 * reads as +0, {@link InternalRef.Role#mayBeReadUnwritten()}); every other read is. Beyond buffers,
 * a {@code Load} reads its tensor (produced by the earlier {@code Store}s into it) and a
 * {@code Recv} reads its group's delivery (produced by the group's latest earlier multicast
 * {@code Load}).
 */
public final class Dataflow {
    /** No stage: a read of a value no earlier stage wrote. */
    public static final int NONE = -1;

    /**
     * One buffer a stage reads.
     *
     * @param buffer the buffer
     * @param port   its input port, or -1 for a kind-internal reference
     * @param ref    the kind-internal reference, or null for a port
     * @param writer the last earlier stage that wrote the buffer, or {@link #NONE}
     */
    public record Read(String buffer, int port, InternalRef ref, int writer) {
        /** Where the stage names the buffer, as a JSON path below the stage: {@code ins/0}, {@code kind/op/bias}. */
        public String path() {
            return ref == null ? "ins/" + port : "kind/" + ref.field();
        }

        /** Whether this is a read of a buffer no earlier stage wrote that must have been written (not a spill). */
        public boolean beforeWrite() {
            return writer == NONE && (ref == null || !ref.role().mayBeReadUnwritten());
        }
    }

    private final List<Stage> stages;
    private final List<List<Read>> reads;
    /** Per stage: for a {@code Recv}, its group's latest earlier multicast load, else {@link #NONE} (ints, not boxed: one per stage). */
    private final int[] groupLoad;
    /** For a {@code Load}: how many stores into its tensor come before it (a prefix of {@link #storesInto}); copying them was quadratic. */
    private final int[] storesBefore;
    private final Map<String, List<Integer>> storesInto;

    private Dataflow(List<Stage> stages, List<List<Read>> reads, int[] groupLoad, int[] storesBefore,
                     Map<String, List<Integer>> storesInto) {
        this.stages = stages;
        this.reads = reads;
        this.groupLoad = groupLoad;
        this.storesBefore = storesBefore;
        this.storesInto = storesInto;
    }

    /** The dataflow of {@code program}'s stages. */
    public static Dataflow of(Program program) {
        return of(program.stages());
    }

    /** The dataflow of {@code stages}, run in list order. */
    public static Dataflow of(List<Stage> stages) {
        List<Stage> list = List.copyOf(stages);
        Map<String, Integer> lastWriter = new HashMap<>();
        Map<String, Integer> lastGroupLoad = new HashMap<>();
        Map<String, List<Integer>> stores = new HashMap<>();
        List<List<Read>> reads = new ArrayList<>(list.size());
        int[] groupLoad = new int[list.size()];
        java.util.Arrays.fill(groupLoad, NONE);
        int[] storesBefore = new int[list.size()];
        for (int i = 0; i < list.size(); i++) {
            Stage st = list.get(i);
            List<InternalRef> refs = st.kind().internalRefs();
            Read[] r = new Read[st.ins().size() + refs.size()];
            for (int p = 0; p < st.ins().size(); p++) {
                r[p] = new Read(st.ins().get(p), p, null, lastWriter.getOrDefault(st.ins().get(p), NONE));
            }
            for (int k = 0; k < refs.size(); k++) {
                InternalRef ref = refs.get(k);
                r[st.ins().size() + k] = new Read(ref.buffer(), -1, ref, lastWriter.getOrDefault(ref.buffer(), NONE));
            }
            // one list of the reads, not a working list and its copy (this runs once per stage)
            reads.add(switch (r.length) {
                case 0 -> List.of();
                case 1 -> List.of(r[0]);
                case 2 -> List.of(r[0], r[1]);
                default -> List.of(r);
            });
            switch (st.kind()) {
                case StageKind.Load l -> storesBefore[i] = stores.getOrDefault(l.tensor(), List.of()).size();
                case StageKind.Recv rv -> groupLoad[i] = lastGroupLoad.getOrDefault(rv.group(), NONE);
                case StageKind.Store s -> { }
                case StageKind.AllReduce a -> { }
                case StageKind.Compute c -> { }
                case StageKind.Scalar s -> { }
            }
            Integer at = i; // one box per stage, shared by every buffer it writes
            for (String b : st.buffersWritten()) {
                lastWriter.put(b, at);
            }
            switch (st.kind()) {
                case StageKind.Store s -> stores.computeIfAbsent(s.tensor(), k -> new ArrayList<>()).add(i);
                case StageKind.Load l -> {
                    if (l.multicast() != null) {
                        lastGroupLoad.put(l.multicast(), i);
                    }
                }
                case StageKind.Recv rv -> { }
                case StageKind.AllReduce a -> { }
                case StageKind.Compute c -> { }
                case StageKind.Scalar s -> { }
            }
        }
        Map<String, List<Integer>> storesInto = new HashMap<>();
        stores.forEach((t, s) -> storesInto.put(t, List.copyOf(s)));
        return new Dataflow(list, List.copyOf(reads), groupLoad, storesBefore, Map.copyOf(storesInto));
    }

    /** The stages, in reference order. */
    public List<Stage> stages() {
        return stages;
    }

    /** The buffers stage {@code i} reads, ports first then kind-internal references, each with its last earlier writer. */
    public List<Read> reads(int i) {
        return reads.get(i);
    }

    /** The buffers stage {@code i} writes ({@link Stage#buffersWritten()}). */
    public List<String> writes(int i) {
        return stages.get(i).buffersWritten();
    }

    /** The buffers stage {@code i} reads before any stage wrote them, in read order ({@link Read#beforeWrite()}). */
    public List<String> readsBeforeWrite(int i) {
        List<String> out = new ArrayList<>();
        for (Read r : reads.get(i)) {
            if (r.beforeWrite()) {
                out.add(r.buffer());
            }
        }
        return out;
    }

    /** For a {@code Recv}: the latest earlier multicast {@code Load} of its group; otherwise, or when there is none, {@link #NONE}. */
    public int groupLoad(int i) {
        return groupLoad[i];
    }

    /** For a {@code Load}: the earlier {@code Store}s into its tensor, ascending; otherwise empty. */
    public List<Integer> storesBefore(int i) {
        return stages.get(i).kind() instanceof StageKind.Load l ? storesInto(l.tensor()).subList(0, storesBefore[i]) : List.of();
    }

    /** Every {@code Store} stage into {@code tensor}, ascending. */
    public List<Integer> storesInto(String tensor) {
        return storesInto.getOrDefault(tensor, List.of());
    }

    /**
     * The stages whose results stage {@code i} reads directly, ascending: the last writers of its
     * buffers, for a {@code Load} the earlier stores into its tensor, for a {@code Recv} its
     * group's latest load.
     */
    public List<Integer> producers(int i) {
        BitSet prod = new BitSet();
        for (Read r : reads.get(i)) {
            if (r.writer() != NONE) {
                prod.set(r.writer());
            }
        }
        storesBefore(i).forEach(prod::set);
        if (groupLoad[i] != NONE) {
            prod.set(groupLoad[i]);
        }
        return prod.stream().boxed().toList();
    }
}
