package org.stagecheck.spec.ir;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * One step of a program: on core {@code site}, read buffers {@code ins}, write buffers
 * {@code outs}, doing what {@code kind} says (brief, "Stages").
 */
public record Stage(String id, Site site, List<String> ins, List<String> outs, StageKind kind) {
    public Stage {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(site, "site");
        ins = List.copyOf(ins);
        outs = List.copyOf(outs);
        Objects.requireNonNull(kind, "kind");
    }

    public Role role() {
        return kind.role();
    }

    /**
     * Every buffer the stage reads, ports first, then the kind-internal references it reads (all
     * of them: an index or offset buffer, a matmul's bias and its spill, the accumulator it starts
     * from; see {@link InternalRef.Role#mayBeReadUnwritten()}). A {@code Recv} reads its group's
     * delivery and a {@code Load} its tensor, which are not buffers ({@code spec.flow.Dataflow}).
     */
    public List<String> buffersRead() {
        List<String> out = new ArrayList<>(ins);
        for (InternalRef r : kind.internalRefs()) {
            out.add(r.buffer());
        }
        return out;
    }

    /**
     * Every buffer the stage writes: its output ports, then a matmul's spill, into which it writes
     * the accumulators back. A {@code Store} writes a tensor and a multicast {@code Load} also
     * delivers to its group, which are not buffers ({@code spec.flow.Dataflow}).
     */
    public List<String> buffersWritten() {
        List<InternalRef> refs = kind.internalRefs();
        if (refs.isEmpty()) {
            return outs; // no spill: the output ports, as they are (unmodifiable), with no copy per call
        }
        List<String> out = new ArrayList<>(outs);
        for (InternalRef r : refs) {
            switch (r.role()) {
                case SPILL -> out.add(r.buffer());
                case INDEX_BUFFER, OFFSET_TERM, BIAS -> { }
            }
        }
        return List.copyOf(out);
    }

    /**
     * The stage with every buffer reference renamed by {@code map}: ports and kind-internal
     * references (index buffers, offset buffers, bias, spill) alike.
     */
    public Stage remapBuffers(UnaryOperator<String> map) {
        return new Stage(id, site,
                ins.stream().map(map).toList(),
                outs.stream().map(map).toList(),
                kind.remapBuffers(map));
    }
}
