package org.stagecheck.spec.ir;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * A stage program: declarations plus the ordered list of stages. The list order is the reference
 * order in which the interpreter runs the stages (brief, "Stages").
 */
public record Program(
        String name,
        Machine machine,
        List<Param> params,
        List<TensorDecl> tensors,
        List<BufferDecl> buffers,
        List<Group> groups,
        List<Stage> stages) {

    public Program {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(machine, "machine");
        params = List.copyOf(params);
        tensors = List.copyOf(tensors);
        buffers = List.copyOf(buffers);
        groups = List.copyOf(groups);
        stages = List.copyOf(stages);
    }

    /** Tensors by name; the first declaration wins when names repeat (the validator reports it). */
    public Map<String, TensorDecl> tensorsByName() {
        Map<String, TensorDecl> m = new LinkedHashMap<>();
        tensors.forEach(t -> m.putIfAbsent(t.name(), t));
        return m;
    }

    public Map<String, BufferDecl> buffersByName() {
        Map<String, BufferDecl> m = new LinkedHashMap<>();
        buffers.forEach(b -> m.putIfAbsent(b.name(), b));
        return m;
    }

    public Map<String, Group> groupsByName() {
        Map<String, Group> m = new LinkedHashMap<>();
        groups.forEach(g -> m.putIfAbsent(g.name(), g));
        return m;
    }

    public Map<String, Param> paramsByName() {
        Map<String, Param> m = new LinkedHashMap<>();
        params.forEach(p -> m.putIfAbsent(p.name(), p));
        return m;
    }

    /**
     * The program with buffers renamed: names in {@code map} become their image, others stay.
     * Declarations, ports and kind-internal references are all renamed.
     */
    public Program remapBuffers(Map<String, String> map) {
        UnaryOperator<String> f = n -> map.getOrDefault(n, n);
        return new Program(name, machine, params, tensors,
                buffers.stream().map(b -> b.withName(f.apply(b.name()))).toList(),
                groups,
                stages.stream().map(s -> s.remapBuffers(f)).toList());
    }

    public Program withStages(List<Stage> newStages) {
        return new Program(name, machine, params, tensors, buffers, groups, newStages);
    }

    public Program withParams(List<Param> newParams) {
        return new Program(name, machine, newParams, tensors, buffers, groups, stages);
    }

    public Program withBuffers(List<BufferDecl> newBuffers) {
        return new Program(name, machine, params, tensors, newBuffers, groups, stages);
    }
}
