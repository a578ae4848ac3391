package org.stagecheck.cli;

import java.util.Map;
import java.util.concurrent.Callable;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.NonFiniteStop;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code stagecheck run}: the reference evaluation of a program. The reading of inputs, the
 * binding of parameters, the writing of {@code .npy} files and the report are shared with
 * {@code stagecheck cuda run} ({@link RunIoOptions}, {@link RunPipeline}); the options here are the
 * interpreter's own.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run a program on the reference interpreter and write its output and state tensors as .npy,",
                "with their index OUT/tensors.json. Bound tensors (input, weight, state) come from --bind, --state-from DIR",
                "(a previous run's OUT), --inputs DIR (DIR/inputs.json, else DIR/<tensor>.npy), or are generated",
                "deterministically from --random SEED. Exit 0 on success, 1 on a runtime fault, 2 on bad input."})
final class RunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RunIoOptions io;

    @Option(names = "--f64", description = "evaluate every operation in float64 (the 'true value' mode)")
    boolean f64;

    @Option(names = "--stop-at-nonfinite", paramLabel = "nan|inf|any", arity = "0..1", fallbackValue = "nan",
            description = {"stop at the first stage that writes such a value, and name it: nan (the default when the",
                    "flag is bare: a causal mask's -inf is intended), inf, or any (NaN or infinity)"})
    String stopAtNonFinite;

    @Option(names = "--threads", paramLabel = "N", description = "worker threads (results are identical for every N); default: all cores")
    Integer threads;

    @Override
    public Integer call() {
        return new RunPipeline(spec, io, f64, f64 ? "f64" : "f32 reference").call(new RunPipeline.Execution() {
            private Backend reference;

            @Override
            public void checkOptions() throws BadInputException {
                NonFiniteStop stopAt = stopMode();
                if (threads != null && threads < 1) {
                    throw new BadInputException("--threads must be at least 1");
                }
                RunOptions o = RunOptions.defaults().withTrace(io.trace).withPrecision(f64 ? Precision.F64 : Precision.F32).withStopAt(stopAt);
                // found before the timed run: the registry's first lookup loads the providers
                reference = Backends.reference(threads == null ? o : o.withThreads(threads));
            }

            @Override
            public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params) {
                return reference.run(program, bound, params);
            }
        });
    }

    private NonFiniteStop stopMode() throws BadInputException {
        if (stopAtNonFinite == null) {
            return NonFiniteStop.NONE;
        }
        NonFiniteStop m = NonFiniteStop.parse(stopAtNonFinite);
        if (m == null) {
            throw new BadInputException("--stop-at-nonfinite takes nan, inf, any or none, not '" + stopAtNonFinite + "'");
        }
        return m;
    }
}
