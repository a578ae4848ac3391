package org.stagecheck.reduce;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * Cutting a program at stage {@code k}: the stages before it go, and what they handed on comes
 * from the reference instead. Every buffer that a stage from {@code k} on reads before writing
 * it, and that an earlier stage wrote, becomes a new input tensor {@code cut.<buffer>} holding the
 * reference's value of that buffer at the cut, loaded into the buffer by a new {@code Load} at
 * the head of the program; every tensor the dropped stages stored to is bound to its reference
 * contents at the cut (an output or scratch tensor becomes state, so that it is bound).
 */
final class CutMove {
    static final String PREFIX = "cut.";

    private CutMove() {}

    /** The cut of {@code c} at {@code k}, or null when the reference cannot supply a value it needs. */
    static Candidate at(Candidate c, int k, RunResult traced, Backend reference) {
        Program p = c.program();
        List<Stage> stages = p.stages();
        Map<String, BufferDecl> buffers = p.buffersByName();
        List<TensorDecl> tensors = new ArrayList<>(p.tensors());
        Map<String, Tensor> bound = new LinkedHashMap<>(c.bound());
        List<Stage> head = new ArrayList<>();
        for (String b : Dataflow.liveAt(stages, k)) {
            Tensor value = lastWritten(stages, k, b, traced);
            BufferDecl decl = buffers.get(b);
            if (value == null || decl == null) {
                return null; // a multicast in flight, or a value only a spill holds: no cut here
            }
            String name = PREFIX + b;
            if (p.tensorsByName().containsKey(name)) {
                return null;
            }
            tensors.add(new TensorDecl(name, decl.dtype(), decl.shape(), decl.site().chip(), TensorRole.INPUT));
            bound.put(name, value);
            List<Offset> origin = decl.shape().dims().stream().map(d -> Offset.constant(0)).toList();
            head.add(new Stage(PREFIX + "load." + b, decl.site(), List.of(), List.of(b),
                    new StageKind.Load(name, new AccessPattern.Block(origin, decl.shape()), 1, null)));
        }
        List<String> stored = new ArrayList<>();
        for (int i = 0; i < k; i++) {
            if (stages.get(i).kind() instanceof StageKind.Store st && !stored.contains(st.tensor())) {
                stored.add(st.tensor());
            }
        }
        if (!stored.isEmpty()) {
            Program prefix = p.withStages(stages.subList(0, k));
            RunResult atCut = reference.run(prefix, c.bound(), c.params(), false);
            if (!atCut.ok()) {
                return null;
            }
            for (String t : stored) {
                bound.put(t, atCut.tensor(t));
                for (int i = 0; i < tensors.size(); i++) {
                    TensorDecl d = tensors.get(i);
                    if (d.name().equals(t) && !d.role().isBoundBeforeRun()) {
                        tensors.set(i, new TensorDecl(d.name(), d.dtype(), d.shape(), d.chip(), TensorRole.STATE));
                    }
                }
            }
        }
        head.addAll(stages.subList(k, stages.size()));
        Program cut = new Program(p.name(), p.machine(), p.params(), tensors, p.buffers(), p.groups(), head);
        return Prune.unused(new Candidate(cut, bound, c.params()));
    }

    /** The reference value of {@code buffer} as the last stage before {@code k} to write it through a port left it. */
    private static Tensor lastWritten(List<Stage> stages, int k, String buffer, RunResult traced) {
        for (int i = k - 1; i >= 0; i--) {
            Stage s = stages.get(i);
            if (Dataflow.writes(s).contains(buffer)) {
                int port = s.outs().indexOf(buffer);
                List<Tensor> outs = traced.trace().get(s.id());
                return port < 0 || outs == null || port >= outs.size() ? null : outs.get(port);
            }
        }
        return null;
    }
}
