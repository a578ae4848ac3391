package org.stagecheck.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code stagecheck cuda}: the thin CUDA backend (docs/cuda.md): {@code run}, {@code emit} and {@code check}. */
@Command(name = "cuda", mixinStandardHelpOptions = true,
        description = {"The thin CUDA backend: one generated CUDA C kernel per stage, run on a GPU or in host emulation."},
        subcommands = {CudaRunCommand.class, CudaEmitCommand.class, CudaCheckCommand.class})
final class CudaCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a cuda command is required: run, emit or check");
    }
}
