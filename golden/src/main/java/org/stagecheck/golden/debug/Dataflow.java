package org.stagecheck.golden.debug;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * Which earlier stages produced what each stage reads (docs/debugging.md, "Inputs agree"): the
 * last writer of every buffer it reads (ports and kind-internal references; a matmul's spill is
 * written by its stage too), for a {@code Load} every earlier {@code Store} into its tensor, and
 * for a {@code Recv} the latest multicast {@code Load} of its group. A stage with no producer reads
 * only program inputs, which both sides share.
 */
public final class Dataflow {
    private final Program program;
    private final List<List<Integer>> producers;
    private final List<Map<String, Integer>> bufferWriters;
    private final Map<String, List<Integer>> tensorWriters;

    private Dataflow(Program program, List<List<Integer>> producers, List<Map<String, Integer>> bufferWriters,
                     Map<String, List<Integer>> tensorWriters) {
        this.program = program;
        this.producers = producers;
        this.bufferWriters = bufferWriters;
        this.tensorWriters = tensorWriters;
    }

    public static Dataflow of(Program program) {
        Map<String, Integer> lastWriter = new HashMap<>();
        Map<String, List<Integer>> tensorWriters = new HashMap<>();
        Map<String, Integer> groupLoad = new HashMap<>();
        List<List<Integer>> producers = new ArrayList<>();
        List<Map<String, Integer>> bufferWriters = new ArrayList<>();
        List<Stage> stages = program.stages();
        for (int i = 0; i < stages.size(); i++) {
            Stage st = stages.get(i);
            BitSet prod = new BitSet();
            Map<String, Integer> readFrom = new LinkedHashMap<>();
            for (String b : st.buffersRead()) {
                Integer w = lastWriter.get(b);
                if (w != null) {
                    prod.set(w);
                    readFrom.put(b, w);
                }
            }
            switch (st.kind()) {
                case StageKind.Load l -> tensorWriters.getOrDefault(l.tensor(), List.of()).forEach(prod::set);
                case StageKind.Recv r -> {
                    Integer w = groupLoad.get(r.group());
                    if (w != null) {
                        prod.set(w);
                    }
                }
                case StageKind.Store s -> { }
                case StageKind.AllReduce a -> { }
                case StageKind.Compute c -> { }
                case StageKind.Scalar s -> { }
            }
            producers.add(prod.stream().boxed().toList());
            bufferWriters.add(readFrom);
            for (String b : written(st)) {
                lastWriter.put(b, i);
            }
            switch (st.kind()) {
                case StageKind.Store s -> tensorWriters.computeIfAbsent(s.tensor(), k -> new ArrayList<>()).add(i);
                case StageKind.Load l -> {
                    if (l.multicast() != null) {
                        groupLoad.put(l.multicast(), i);
                    }
                }
                case StageKind.Recv r -> { }
                case StageKind.AllReduce a -> { }
                case StageKind.Compute c -> { }
                case StageKind.Scalar s -> { }
            }
        }
        return new Dataflow(program, producers, bufferWriters, tensorWriters);
    }

    /** The buffers a stage writes: its output ports and a matmul's spill. */
    public static List<String> written(Stage st) {
        List<String> out = new ArrayList<>(st.outs());
        if (st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.MatMul m && m.spill() != null) {
            out.add(m.spill());
        }
        return out;
    }

    public Program program() {
        return program;
    }

    /** The stages whose results stage {@code i} reads directly, ascending. */
    public List<Integer> producers(int i) {
        return producers.get(i);
    }

    /** For each buffer stage {@code i} reads that an earlier stage wrote: that writer's index. */
    public Map<String, Integer> bufferWriters(int i) {
        return bufferWriters.get(i);
    }

    /** The {@code Store} stages into {@code tensor}, ascending. */
    public List<Integer> storesInto(String tensor) {
        return tensorWriters.getOrDefault(tensor, List.of());
    }

    /**
     * What stands between the recorded values and stage {@code i}.
     *
     * @param recorded the nearest ancestors whose values are known on both sides (ascending)
     * @param crossed  the ancestors walked through to reach them: not recorded, or with no output to
     *                 record (a Store), ascending; with {@code i} itself, these are the suspects
     */
    public record Cone(List<Integer> recorded, List<Integer> crossed) {}

    /** The cone of stage {@code i}: walks back from its producers, stopping at stages {@code isRecorded} accepts. */
    public Cone cone(int i, IntPredicate isRecorded) {
        return walk(producers(i), isRecorded);
    }

    /** The cone of DRAM tensor {@code tensor} after the run: walks back from the stores into it. */
    public Cone coneOfTensor(String tensor, IntPredicate isRecorded) {
        BitSet recorded = new BitSet();
        BitSet crossed = new BitSet();
        for (int s : storesInto(tensor)) {
            crossed.set(s);
        }
        Cone rest = walk(storesInto(tensor), isRecorded);
        rest.recorded().forEach(recorded::set);
        rest.crossed().forEach(crossed::set);
        return new Cone(recorded.stream().boxed().toList(), crossed.stream().boxed().toList());
    }

    private Cone walk(List<Integer> start, IntPredicate isRecorded) {
        BitSet recorded = new BitSet();
        BitSet crossed = new BitSet();
        Deque<Integer> todo = new ArrayDeque<>(start);
        BitSet seen = new BitSet();
        while (!todo.isEmpty()) {
            int p = todo.pop();
            if (seen.get(p)) {
                continue;
            }
            seen.set(p);
            if (!program.stages().get(p).outs().isEmpty() && isRecorded.test(p)) {
                recorded.set(p);
            } else {
                crossed.set(p);
                todo.addAll(producers(p));
            }
        }
        return new Cone(recorded.stream().boxed().toList(), crossed.stream().boxed().toList());
    }
}
