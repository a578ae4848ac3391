package org.stagecheck.cli;

import java.io.PrintWriter;
import java.util.Map;
import java.util.concurrent.Callable;

import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.CudaBackend;
import org.stagecheck.cuda.CudaOptions;
import org.stagecheck.cuda.CudaSession;
import org.stagecheck.cuda.lower.Kernels;
import org.stagecheck.backend.MathMode;
import org.stagecheck.cuda.runtime.CudaDriver;
import org.stagecheck.cuda.runtime.GraphCounters;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code stagecheck cuda run}: {@code run}'s inputs, outputs and report ({@link RunIoOptions},
 * {@link RunPipeline}), with the program run by the CUDA backend on the GPU, with {@code --emulate}
 * in host emulation, or with {@code --fake-driver} through the driver API on the fake driver. The
 * {@code .npy} files are written exactly as {@code run} writes them, so {@code diff} and golden
 * checks read them the same way. On a machine without a CUDA driver, a run without {@code --emulate} is bad
 * input (exit 2) with one line saying so.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run a program with the CUDA backend and write its output tensors as .npy, as 'run' does.",
                "--emulate runs the same generated kernels on the host (g++), for machines without a GPU."})
final class CudaRunCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    RunIoOptions io;

    @Option(names = "--emulate", description = "host emulation: the generated source compiled by g++ and run on the CPU")
    boolean emulate;

    @Option(names = "--fake-driver", description = "the device path (the CUDA driver API) on the fake driver, which checks the calls"
            + " as the driver does and runs the host-emulation kernels: no GPU needed (backend cuda-fake)")
    boolean fakeDriver;

    @Option(names = "--graphs", description = "capture the stages into segment graphs and replay them (counters are printed)")
    boolean graphs;

    @Option(names = "--math", paramLabel = "MODE", description = "how the generated code computes exp, log, tanh, sigmoid, sin, cos and rsqrt:"
            + " precise (default: the double functions rounded once to f32) or fast (the f32 functions expf, logf, ...)."
            + " Not the --math of golden record and diff, which sets the function budgets a derived tolerance allows:"
            + " their precise budgets are the published errors of these f32 functions, their fast budgets (the intrinsics') are wider.")
    String math = "precise";

    @Option(names = "--kernels", paramLabel = "MODE", description = KernelsOption.DESCRIPTION)
    String kernels = "exact";

    @Option(names = "--segment", paramLabel = "STAGES", description = "stages per graph segment (default 64)")
    int segment = 64;

    @Override
    public Integer call() {
        String backend = CudaOptions.emulation().withTarget(target()).backendName();
        return new RunPipeline(spec, io, false, backend + ", " + math + " math"
                + ("exact".equalsIgnoreCase(kernels) ? "" : ", " + kernels + " kernels") + (graphs ? ", graphs" : ""))
                .call(new RunPipeline.Execution() {
                    @Override
                    public void checkOptions() throws BadInputException {
                        // --math and --segment are checked as the run starts, after the inputs (the order the
                        // command has always reported in); --kernels, newer, before anything is read
                        KernelsOption.parse(kernels);
                    }

                    @Override
                    public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params) throws BadInputException {
                        return execute(program, bound, params);
                    }
                });
    }

    private RunResult execute(Program program, Map<String, Tensor> bound, Map<String, Long> params) throws BadInputException {
        MathMode mode = MathModeOption.parse(math);
        Kernels kernelMode = KernelsOption.parse(kernels);
        if (segment < 1) {
            throw new BadInputException("--segment must be at least 1");
        }
        if (emulate && fakeDriver) {
            throw new BadInputException("--emulate and --fake-driver choose different targets: give one");
        }
        try {
            switch (target()) {
                case DEVICE -> CudaDriver.system();
                case FAKE_DRIVER -> CudaDriver.fake();
                case EMULATION -> {
                    // host emulation needs no driver
                }
            }
        } catch (LaunchException e) {
            throw new BadInputException(e.getMessage() + switch (target()) {
                case DEVICE -> "; add --emulate to run in host emulation, or --fake-driver for the driver path on the fake driver";
                case FAKE_DRIVER -> "; the fake driver needs a C compiler (cc or gcc, or $STAGECHECK_CC); --emulate runs in host emulation";
                case EMULATION -> "";
            });
        }
        CudaOptions o = CudaOptions.device().withTarget(target()).withMath(mode).withKernels(kernelMode).withGraphs(graphs).withSegmentStages(segment);
        CudaBackend backend = new CudaBackend(o);
        try (CudaSession s = backend.prepare(program)) {
            if (!s.refusal().isEmpty()) {
                // the backend could not be set up for this program (a driver error, no code for this GPU): nothing ran
                throw new BadInputException(s.refusal().stream().map(org.stagecheck.spec.diag.Diagnostic::render)
                        .collect(java.util.stream.Collectors.joining("; ")));
            }
            RunResult r = s.step(bound, params, io.trace);
            if (graphs && s.refusal().isEmpty()) {
                PrintWriter err = spec.commandLine().getErr();
                GraphCounters c = s.counters();
                err.println("graphs: " + c.summary());
                c.notes().forEach(n -> err.println("graphs: " + n));
                err.flush();
            }
            return r;
        }
    }

    private CudaOptions.Target target() {
        return emulate ? CudaOptions.Target.EMULATION : fakeDriver ? CudaOptions.Target.FAKE_DRIVER : CudaOptions.Target.DEVICE;
    }
}
