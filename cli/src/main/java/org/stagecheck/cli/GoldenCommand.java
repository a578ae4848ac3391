package org.stagecheck.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code stagecheck golden record | check}: golden cases (docs/golden.md). */
@Command(name = "golden", mixinStandardHelpOptions = true,
        description = "Record golden cases from the reference and check backends against them.",
        subcommands = {GoldenRecordCommand.class, GoldenCheckCommand.class})
final class GoldenCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: record or check");
    }
}
