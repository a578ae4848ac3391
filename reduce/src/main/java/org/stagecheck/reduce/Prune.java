package org.stagecheck.reduce;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/** Drops the declarations no stage names any more (buffers, tensors, groups) and their bindings. */
final class Prune {
    private Prune() {}

    static Candidate unused(Candidate c) {
        Program p = c.program();
        Set<String> buffers = new HashSet<>();
        Set<String> tensors = new HashSet<>();
        Set<String> groups = new HashSet<>();
        for (Stage s : p.stages()) {
            buffers.addAll(s.ins());
            buffers.addAll(s.outs());
            s.kind().internalRefs().forEach(r -> buffers.add(r.buffer()));
            switch (s.kind()) {
                case StageKind.Load l -> {
                    tensors.add(l.tensor());
                    if (l.multicast() != null) {
                        groups.add(l.multicast());
                    }
                }
                case StageKind.Store st -> tensors.add(st.tensor());
                case StageKind.Recv r -> groups.add(r.group());
                case StageKind.AllReduce a -> tensors.add(a.tensor());
                case StageKind.Compute comp -> { }
                case StageKind.Scalar sc -> { }
            }
        }
        Program pruned = new Program(p.name(), p.machine(), p.params(),
                p.tensors().stream().filter(t -> tensors.contains(t.name())).toList(),
                p.buffers().stream().filter(b -> buffers.contains(b.name())).toList(),
                p.groups().stream().filter(g -> groups.contains(g.name())).toList(),
                p.stages());
        Map<String, Tensor> bound = new LinkedHashMap<>();
        c.bound().forEach((name, t) -> {
            if (tensors.contains(name)) {
                bound.put(name, t);
            }
        });
        return new Candidate(pruned, bound, c.params());
    }
}
