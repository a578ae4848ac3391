package org.stagecheck.interp;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.eval.Parallel;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.Program;

/**
 * The reference evaluator (brief, "Reference semantics"; docs/semantics.md): runs the stages of a
 * program in list order on the CPU, in pure Java. Never throws for a bad program or bad bindings:
 * those are faults in the {@link RunResult}, each naming the stage. The run stops at the first
 * stage fault. An instance holds its options and its worker threads (which end when idle) and
 * may run many programs, one at a time or concurrently.
 */
public final class Interpreter implements Backend {
    private final RunOptions options;
    /** Worker threads for output-parallel loops, started on first use and shared by every run of this instance. */
    private final Parallel parallel;
    /** The program {@link #run} prepared last, reused while the same program object is run again. */
    private final AtomicReference<PreparedProgram> last = new AtomicReference<>();

    public Interpreter(RunOptions options) {
        this(Objects.requireNonNull(options, "options"), new Parallel(options.threads()));
    }

    private Interpreter(RunOptions options, Parallel parallel) {
        this.options = options;
        this.parallel = parallel;
    }

    /** The options this interpreter runs with. */
    public RunOptions options() {
        return options;
    }

    @Override
    public String name() {
        return "interp";
    }

    /** Runs with this interpreter's options, except that {@code trace} replaces theirs. */
    @Override
    public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
        return preparedFor(program).run(bound, params, trace, java.util.Set.of());
    }

    /**
     * Runs with this interpreter's options (its trace setting included).
     *
     * @param bound  values for tensors of role input, weight and state (by tensor name); an output
     *               or scratch tensor may be bound too (its initial contents), otherwise it starts zeroed
     * @param params a value for every program parameter
     */
    @Override
    public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params) {
        return preparedFor(program).run(bound, params);
    }

    /**
     * {@link #run(Program, Map, Map, boolean)}: its preparation validates and checks the bindings
     * as {@link Backend#runChecked}'s does, and is kept, so a tool that runs the same program
     * object many times (a law, an oracle) prepares it once instead of once per run.
     */
    @Override
    public RunResult runChecked(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
        return run(program, bound, params, trace);
    }

    /**
     * {@code program} made ready to run many times with this interpreter's options and threads
     * (see {@link PreparedProgram}). {@link #run} prepares too, and keeps the last program it
     * prepared, so running the same program object again reuses its preparation.
     */
    @Override
    public PreparedProgram prepare(Program program) {
        return new PreparedProgram(Objects.requireNonNull(program, "program"), options, parallel);
    }

    private PreparedProgram preparedFor(Program program) {
        PreparedProgram p = last.get();
        if (p == null || p.program() != program) {
            p = prepare(program);
            last.set(p);
        }
        return p;
    }
}
