package org.stagecheck.golden.debug;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

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
 * A prefix of a program made to show its live values (docs/debugging.md, "Bisecting a backend
 * that writes only its outputs"): the stages up to and including stage {@code k}, then one
 * {@code Store} per buffer that is live after {@code k} (written at or before it and read after
 * it) or written by stage {@code k}, each into a new output tensor of the buffer's dtype and shape;
 * scratch tensors become outputs. A backend runs it like any program and writes these tensors as
 * its outputs: no tracing, and no change to the stages it runs.
 *
 * @param program the prefix program
 * @param k       the last original stage it keeps
 * @param buffers live buffer name to the output tensor that receives it
 * @param tensors the original DRAM tensors the run writes (output, state, scratch), compared too
 */
public record CutProgram(Program program, int k, Map<String, String> buffers, List<String> tensors) {
    public CutProgram {
        buffers = Collections.unmodifiableMap(new LinkedHashMap<>(buffers));
        tensors = List.copyOf(tensors);
    }

    /** The buffers live after stage {@code k} of {@code program}, plus those stage {@code k} writes, sorted by name. */
    public static Set<String> liveAfter(Program program, int k) {
        Map<String, Integer> lastRead = new HashMap<>();
        List<Stage> stages = program.stages();
        for (int i = 0; i < stages.size(); i++) {
            for (String b : stages.get(i).buffersRead()) {
                lastRead.put(b, i);
            }
        }
        Set<String> written = new HashSet<>();
        for (int i = 0; i <= k; i++) {
            written.addAll(Dataflow.written(stages.get(i)));
        }
        Set<String> live = new TreeSet<>(Dataflow.written(stages.get(k)));
        for (String b : written) {
            if (lastRead.getOrDefault(b, -1) > k) {
                live.add(b);
            }
        }
        return live;
    }

    public static CutProgram prefix(Program program, int k) {
        Set<String> names = new HashSet<>();
        program.tensors().forEach(t -> names.add(t.name()));
        program.stages().forEach(s -> names.add(s.id()));
        List<TensorDecl> tensors = new ArrayList<>();
        List<String> compared = new ArrayList<>();
        for (TensorDecl t : program.tensors()) {
            boolean scratch = t.role() == TensorRole.SCRATCH;
            tensors.add(scratch ? new TensorDecl(t.name(), t.dtype(), t.shape(), t.chip(), TensorRole.OUTPUT) : t);
            if (scratch || StageTrace.isWritten(t)) {
                compared.add(t.name());
            }
        }
        List<Stage> stages = new ArrayList<>(program.stages().subList(0, k + 1));
        Map<String, BufferDecl> decls = program.buffersByName();
        Map<String, String> cut = new LinkedHashMap<>();
        for (String b : liveAfter(program, k)) {
            BufferDecl d = decls.get(b);
            if (d == null) {
                continue;
            }
            String tensor = fresh("cut_" + b, names);
            String id = fresh("cut_store_" + b, names);
            List<Offset> origin = new ArrayList<>();
            for (int a = 0; a < d.shape().rank(); a++) {
                origin.add(Offset.constant(0));
            }
            tensors.add(new TensorDecl(tensor, d.dtype(), d.shape(), d.site().chip(), TensorRole.OUTPUT));
            stages.add(new Stage(id, d.site(), List.of(b), List.of(),
                    new StageKind.Store(tensor, new AccessPattern.Block(origin, d.shape()), 1, 1)));
            cut.put(b, tensor);
        }
        Program p = new Program(program.name() + "-cut" + k, program.machine(), program.params(), tensors, program.buffers(),
                program.groups(), stages);
        return new CutProgram(p, k, cut, compared);
    }

    private static String fresh(String base, Set<String> taken) {
        String n = base;
        for (int i = 2; taken.contains(n); i++) {
            n = base + "_" + i;
        }
        taken.add(n);
        return n;
    }

    /**
     * What a backend's run of this cut left in its exported tensors (by exported name), or the
     * reason there is nothing to compare: its fault, or the first exported tensor it did not write.
     */
    record Exported(Map<String, Tensor> values, String fault) {}

    Exported exported(RunResult back, String backend) throws DebugInputException {
        if (!back.ok() && back.stoppedAtStage() == null) {
            // no stage ran: the backend cannot run here (no driver, no device) or refused the program
            throw new DebugInputException("backend " + backend + " could not run the program: " + back.faults().get(0).render());
        }
        if (!back.ok()) {
            return new Exported(Map.of(), back.faults().get(0).message());
        }
        Map<String, Tensor> values = new LinkedHashMap<>();
        List<String> names = new ArrayList<>(buffers.values());
        names.addAll(tensors);
        for (String t : names) {
            Tensor b = back.tensor(t);
            if (b == null) {
                return new Exported(values, "the backend wrote no tensor '" + t + "'");
            }
            values.put(t, b);
        }
        return new Exported(values, null);
    }
}
