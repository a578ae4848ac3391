package org.stagecheck.golden.debug;

import java.util.ArrayDeque;
import java.util.BitSet;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;

import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;

/**
 * Which earlier stages produced what each stage reads (docs/debugging.md, "Inputs agree"): the
 * last writer of every buffer it reads (ports and kind-internal references; a matmul's spill is
 * written by its stage too), for a {@code Load} every earlier {@code Store} into its tensor, and
 * for a {@code Recv} the latest multicast {@code Load} of its group. A stage with no producer reads
 * only program inputs, which both sides share. The facts are the spec's one derivation
 * ({@link org.stagecheck.spec.flow.Dataflow}); this class adds the debugger's cones.
 */
public final class Dataflow {
    private final Program program;
    private final org.stagecheck.spec.flow.Dataflow flow;

    private Dataflow(Program program, org.stagecheck.spec.flow.Dataflow flow) {
        this.program = program;
        this.flow = flow;
    }

    public static Dataflow of(Program program) {
        return new Dataflow(program, org.stagecheck.spec.flow.Dataflow.of(program));
    }

    /** The buffers a stage writes: its output ports and a matmul's spill ({@link Stage#buffersWritten()}). */
    public static List<String> written(Stage st) {
        return st.buffersWritten();
    }

    public Program program() {
        return program;
    }

    /** The stages whose results stage {@code i} reads directly, ascending. */
    public List<Integer> producers(int i) {
        return flow.producers(i);
    }

    /** For each buffer stage {@code i} reads that an earlier stage wrote: that writer's index. */
    public Map<String, Integer> bufferWriters(int i) {
        Map<String, Integer> readFrom = new LinkedHashMap<>();
        for (org.stagecheck.spec.flow.Dataflow.Read r : flow.reads(i)) {
            if (r.writer() != org.stagecheck.spec.flow.Dataflow.NONE) {
                readFrom.put(r.buffer(), r.writer());
            }
        }
        return readFrom;
    }

    /** The {@code Store} stages into {@code tensor}, ascending. */
    public List<Integer> storesInto(String tensor) {
        return flow.storesInto(tensor);
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
