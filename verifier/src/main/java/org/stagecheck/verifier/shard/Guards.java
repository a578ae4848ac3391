package org.stagecheck.verifier.shard;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * Which buffers, tensors and multicast loads hold values that are right only under a
 * {@link Guard} (docs/verifier.md, "Sums over an index"): a block read at a {@link GuardedAffine}
 * offset is the block the term names only where the guard holds. Every stage's outputs carry the
 * guards of everything it read (ports, kind-internal references, the tensor a load reads, the load
 * a receive takes) and those it made, less those it discharged (a product with a mask that is 0
 * wherever the guard fails). A tensor keeps every guard ever stored to it. One place for the whole
 * propagation, so no transfer rule can drop a guard.
 */
final class Guards {
    private final Map<String, Set<Guard>> buffers = new HashMap<>();
    private final Map<String, Set<Guard>> tensors = new HashMap<>();
    private final Map<String, Set<Guard>> inFlight = new HashMap<>();
    private final Set<Guard> made = new LinkedHashSet<>();
    private final Set<Guard> discharged = new LinkedHashSet<>();

    /** A new stage: nothing made or discharged yet. */
    void begin() {
        made.clear();
        discharged.clear();
    }

    /** The guards buffer {@code name} holds its value under (empty when none). */
    Set<Guard> of(String name) {
        return name == null ? Set.of() : buffers.getOrDefault(name, Set.of());
    }

    /** Where each guard was first made (a stage that read a block under it), for trails. */
    private final Map<Guard, String> firstMade = new HashMap<>();

    /** The current stage ({@code where}) read a block at an offset that is right only under {@code g}. */
    void made(Guard g, String where) {
        made.add(g);
        firstMade.putIfAbsent(g, where);
    }

    /** The stage that first read under {@code g}, as {@code #276 load_x}, or null. */
    String madeAt(Guard g) {
        return firstMade.get(g);
    }

    /** The current stage's result is 0 wherever {@code g} fails, so it no longer depends on it. */
    void discharged(Guard g) {
        discharged.add(g);
    }

    /** The guards of everything the stage read, before what it made and discharged. */
    Set<Guard> read(Stage stage, List<InternalRef> refs) {
        Set<Guard> in = new LinkedHashSet<>();
        stage.ins().forEach(b -> in.addAll(of(b)));
        refs.forEach(r -> in.addAll(of(r.buffer())));
        switch (stage.kind()) {
            case StageKind.Load l -> in.addAll(tensors.getOrDefault(l.tensor(), Set.of()));
            case StageKind.Recv r -> in.addAll(inFlight.getOrDefault(r.group(), Set.of()));
            case StageKind.Store s -> { }
            case StageKind.Compute c -> { }
            case StageKind.Scalar s -> { }
            case StageKind.AllReduce a -> { }
        }
        return in;
    }

    /** Records the stage's outputs (and the tensor it stored to, the load it multicast); returns their guards. */
    Set<Guard> finish(Stage stage, List<InternalRef> refs) {
        if (made.isEmpty() && buffers.isEmpty() && tensors.isEmpty() && inFlight.isEmpty()) {
            // no guard anywhere (the usual case): the stage's outputs hold none, and nothing is recorded
            return Set.of();
        }
        Set<Guard> g = read(stage, refs);
        g.addAll(made);
        g.removeAll(discharged);
        Set<Guard> out = Set.copyOf(g);
        for (String b : stage.outs()) {
            if (out.isEmpty()) {
                buffers.remove(b);
            } else {
                buffers.put(b, out);
            }
        }
        switch (stage.kind()) {
            case StageKind.Store s -> {
                if (!out.isEmpty()) {
                    tensors.computeIfAbsent(s.tensor(), t -> new LinkedHashSet<>()).addAll(out);
                }
            }
            case StageKind.Load l -> {
                if (l.multicast() != null) {
                    inFlight.put(l.multicast(), out);
                }
            }
            case StageKind.Recv r -> { }
            case StageKind.Compute c -> { }
            case StageKind.Scalar s -> { }
            case StageKind.AllReduce a -> { }
        }
        return out;
    }
}
