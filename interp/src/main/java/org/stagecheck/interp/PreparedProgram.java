package org.stagecheck.interp;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import org.stagecheck.backend.BindingProblem;
import org.stagecheck.backend.Bindings;
import org.stagecheck.backend.FaultCode;
import org.stagecheck.backend.Prepared;
import org.stagecheck.backend.RunResult;
import org.stagecheck.backend.Validation;
import org.stagecheck.interp.eval.BufferArena;
import org.stagecheck.interp.eval.BufferIndex;
import org.stagecheck.interp.eval.Fault;
import org.stagecheck.interp.eval.Parallel;
import org.stagecheck.interp.eval.RunState;
import org.stagecheck.interp.eval.ShapeCache;
import org.stagecheck.interp.eval.StageEvaluator;
import org.stagecheck.interp.eval.StagePlans;
import org.stagecheck.tensor.Storage;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * A program made ready to run many times (a decode step token after token, a property test's
 * tries): its declarations by name, the buffer-size check and the index arrays that depend only
 * on shapes are made once here and shared by every run, which pays only for the stages. The
 * regions of access patterns with constant offsets are resolved and bounds-checked by a stage's
 * first run and kept ({@link StagePlans}); the storage of the values stages write is kept from
 * run to run in a {@link BufferArena}, lent to one run at a time (a run that finds it lent out,
 * running concurrently, makes its own; a traced run, which keeps its stage values, uses none).
 * Made by {@link Interpreter#prepare}; runs like {@link Interpreter#run} with that interpreter's
 * options and threads, and may run concurrently with itself. The program is validated once, here
 * (never per run): one the validator rejects is {@linkplain #refusal() refused} and every run
 * answers with the validator's findings, as every backend does.
 */
public final class PreparedProgram implements Prepared {
    private final Program program;
    private final RunOptions options;
    private final Parallel parallel;
    private final BufferIndex buffers;
    private final Map<String, TensorDecl> tensors;
    private final Map<String, Group> groups;
    private final List<Diagnostic> refusal;
    private final ShapeCache shapes = new ShapeCache();
    private final StagePlans plans;
    /** The arena between runs; a run takes it (leaving null) and puts it back when done. */
    private final AtomicReference<BufferArena> idleArena = new AtomicReference<>();
    /** Runs so far: past {@link #WARM_RUNS} the program counts as run again and again (a decode loop, a property test). */
    private final java.util.concurrent.atomic.AtomicLong runs = new java.util.concurrent.atomic.AtomicLong();
    /**
     * Runs after which small products take the compiled vector kernel: a program run this often
     * pays its warm-up back, a program run once or twice does not (the values are the same).
     */
    private static final int WARM_RUNS = 20;

    PreparedProgram(Program program, RunOptions options, Parallel parallel) {
        this.program = program;
        this.options = options;
        this.parallel = parallel;
        this.refusal = Validation.findings(program);
        this.buffers = new BufferIndex(program.buffersByName());
        this.tensors = java.util.Collections.unmodifiableMap(program.tensorsByName());
        this.groups = Map.copyOf(program.groupsByName());
        this.plans = new StagePlans(program.stages().size());
    }

    @Override
    public Program program() {
        return program;
    }

    @Override
    public List<Diagnostic> refusal() {
        return refusal;
    }

    /** Nothing to release: the arena and the plans are heap memory. */
    @Override
    public void close() {
    }

    /**
     * Runs the program with its interpreter's options (the trace setting included).
     *
     * @param bound  values for tensors of role input, weight and state (by tensor name); an output
     *               or scratch tensor may be bound too (its initial contents), otherwise it starts zeroed
     * @param params a value for every program parameter
     */
    @Override
    public RunResult run(Map<String, Tensor> bound, Map<String, Long> params) {
        return run(bound, params, options.trace(), Set.of());
    }

    /**
     * Runs as {@link #run(Map, Map)}, with the tensors bound under the names in {@code donated}
     * handed over to the run: it may update them in place instead of copying them before their
     * first store, as a decode loop updates its KV cache in place (JAX's donated arguments). The
     * caller gives them up: after the run it reads the result's tensors, never the donated
     * objects, whose contents are then unspecified (on a faulting run too). The values computed
     * are the same as without donation. A donated tensor whose storage is also bound under
     * another name, or donated but unbound, is copied as usual (donation is only a permission).
     */
    public RunResult run(Map<String, Tensor> bound, Map<String, Long> params, Set<String> donated) {
        return run(bound, params, options.trace(), donated);
    }

    /** Runs as {@link #run(Map, Map, Set)}, with {@code trace} in place of the interpreter's trace setting. */
    @Override
    public RunResult run(Map<String, Tensor> bound, Map<String, Long> params, boolean trace, Set<String> donated) {
        if (!refusal.isEmpty()) {
            return new RunResult(Map.of(), Map.of(), refusal, null);
        }
        List<BindingProblem> problems = Bindings.check(program, bound, params,
                options.precision() == Precision.F64 ? Bindings.Float64.ACCEPTED : Bindings.Float64.REFUSED);
        List<Diagnostic> faults = new ArrayList<>(problems.stream().map(BindingProblem::toDiagnostic).toList());
        Map<String, Tensor> initial = bindTensors(bound, problems);
        if (!faults.isEmpty()) {
            return new RunResult(initial, Map.of(), faults, null);
        }
        BufferArena arena = null;
        if (!trace) {
            arena = idleArena.getAndSet(null);
            if (arena == null) {
                arena = new BufferArena(program.stages().size(), BufferArena.defaultBudget());
            }
        }
        try {
            return run(bound, params, initial, arena, ownedByRun(bound, donated), trace);
        } finally {
            if (arena != null) {
                // nothing of this run's stage values is reachable from its result: the next run may overwrite them
                idleArena.set(arena);
            }
        }
    }

    /**
     * The donated names whose bound tensor the run may update in place: each one's backing array
     * is bound under no other name (two names over one array would see each other's stores).
     */
    private static Set<String> ownedByRun(Map<String, Tensor> bound, Set<String> donated) {
        if (donated.isEmpty()) {
            return Set.of();
        }
        Map<Object, Integer> uses = new IdentityHashMap<>();
        for (Tensor t : bound.values()) {
            if (t != null) { // a null binding is no value (a tensor that starts zeroed), as in bindTensors
                uses.merge(backingArray(t), 1, Integer::sum);
            }
        }
        Set<String> owned = new HashSet<>();
        for (String name : donated) {
            Tensor t = bound.get(name);
            if (t != null && uses.get(backingArray(t)) == 1) {
                owned.add(name);
            }
        }
        return owned;
    }

    private static Object backingArray(Tensor t) {
        return switch (t.storage()) {
            case Storage.Floats f -> f.values();
            case Storage.Bits16 b -> b.bits();
            case Storage.Bits8 b -> b.bits();
            case Storage.Ints i -> i.values();
            case Storage.Doubles d -> d.values();
        };
    }

    private RunResult run(Map<String, Tensor> bound, Map<String, Long> params, Map<String, Tensor> initial, BufferArena arena,
                          Set<String> owned, boolean trace) {
        Map<String, List<Tensor>> traced = new LinkedHashMap<>();
        RunState state = new RunState(program, buffers, tensors, groups, shapes, arena, plans, options.precision(), parallel,
                params);
        if (runs.incrementAndGet() > WARM_RUNS) {
            state.markWarm();
        }
        for (Map.Entry<String, Tensor> e : initial.entrySet()) {
            if (e.getValue() == bound.get(e.getKey()) && !owned.contains(e.getKey())) {
                state.putSharedTensor(e.getKey(), e.getValue());
            } else {
                state.putTensor(e.getKey(), e.getValue());
            }
        }
        try {
            List<Stage> stages = program.stages();
            for (int i = 0; i < stages.size(); i++) {
                Stage st = stages.get(i);
                state.enterStage(i);
                try {
                    StageEvaluator.run(st, state);
                    if (!trace && !options.stopAtNonFinite()) {
                        // nothing looks at the outputs here: a Load's view stays uncopied for its reader
                        continue;
                    }
                    List<Tensor> outs = new ArrayList<>();
                    for (String out : st.outs()) {
                        outs.add(state.read(out));
                    }
                    if (trace) {
                        traced.put(st.id(), List.copyOf(outs));
                    }
                    if (options.stopAtNonFinite()) {
                        Diagnostic nf = NonFinite.check(i, st, outs, options.stopAt());
                        if (nf != null) {
                            return new RunResult(state.tensors(), traced, List.of(nf), st.id());
                        }
                    }
                } catch (Fault f) {
                    return new RunResult(state.tensors(), traced, List.of(diagnostic(i, st, f)), st.id());
                } catch (StackOverflowError e) {
                    // the one recursion of the evaluator is over the expression tree (Generic, Scalar, combine)
                    Diagnostic d = FaultCode.EXPR_TOO_DEEP.atStage(i, st.id(), "/stages/" + i + "/kind", null,
                            "The expression of this stage nests too deeply for the evaluator's stack; run with a larger -Xss or flatten it.");
                    return new RunResult(state.tensors(), traced, List.of(d), st.id());
                } catch (OutOfMemoryError e) {
                    Diagnostic d = FaultCode.OUT_OF_MEMORY.atStage(i, st.id(), "/stages/" + i, null,
                            "The Java heap ran out while evaluating this stage; run with a larger -Xmx or smaller shapes.");
                    return new RunResult(state.tensors(), traced, List.of(d), st.id());
                } catch (RuntimeException e) {
                    // a defect of the evaluator itself: still a diagnostic naming the stage, never a crash
                    Diagnostic d = FaultCode.INTERNAL.atStage(i, st.id(), "/stages/" + i, null,
                            "The evaluator failed on this stage (" + e + "); this is a bug in stagecheck-interp.");
                    return new RunResult(state.tensors(), traced, List.of(d), st.id());
                }
            }
            return new RunResult(state.tensors(), traced, List.of(), null);
        } finally {
            state.releaseScratch();
        }
    }

    private static Diagnostic diagnostic(int index, Stage st, Fault f) {
        String field = "/stages/" + index + (f.field() == null ? "" : "/" + f.field());
        return f.code().atStage(index, st.id(), field, f.buffer(), f.getMessage());
    }

    /**
     * Every DRAM tensor's initial value, from the bindings (shared, copied on write) or zeroed;
     * a tensor {@link Bindings#check} refused (its {@code problems}) gets none.
     */
    private Map<String, Tensor> bindTensors(Map<String, Tensor> bound, List<BindingProblem> problems) {
        Map<String, TensorDecl> decls = tensors;
        Map<String, Tensor> out = new LinkedHashMap<>();
        Set<String> refused = new HashSet<>();
        for (BindingProblem p : problems) {
            if (!p.code().isParam()) {
                refused.add(p.subject());
            }
        }
        boolean f64 = options.precision() == Precision.F64;
        for (TensorDecl d : decls.values()) {
            Tensor t = bound.get(d.name());
            if (refused.contains(d.name())) {
                continue;
            }
            if (t == null) {
                // fits one array: a larger declaration is the validator's SIZE_TOO_LARGE, refused at prepare
                out.put(d.name(), f64 && d.dtype().isFloating() ? Tensor.zerosFloat64(d.dtype(), d.shape()) : Tensor.zeros(d.dtype(), d.shape()));
                continue;
            }
            // the caller's tensor is shared until a store writes it (copy-on-write in RunState)
            out.put(d.name(), f64 && d.dtype().isFloating() && !t.isFloat64() ? Tensor.wrapDoubles(t.dtype(), t.shape(), t.toDoubles()) : t);
        }
        return out;
    }

}
