package org.stagecheck.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.tensor.npy.IoMessages;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck bench checkpoint}: authoring and running a decode step of a 1B-class checkpoint, as a user runs them. */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
        description = {"Write a Llama-3.2-1B-class checkpoint (random bf16 weights, about 2.5 GB), then time `stagecheck author --model DIR",
                "--cut decode` and `stagecheck run` of one decode step, on one chip and split over two, each as a child process: wall",
                "time, peak memory, the authored directory's size, and the run's time binding its inputs against executing.",
                "The checkpoint goes to a temporary directory, deleted afterwards, unless --dir names one to keep and reuse."})
final class BenchCheckpointCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "where the checkpoint is written, or found from an earlier run (kept)")
    Path dir;

    @Option(names = "--keep", description = "keep the temporary checkpoint, authored directories and outputs (their place is printed)")
    boolean keep;

    @Option(names = "--ctx", paramLabel = "N", defaultValue = "64", description = "KV-cache positions of the decode step; default 64")
    int ctx;

    @Option(names = "--tp", paramLabel = "N", split = ",", defaultValue = "1,2", description = "the splits measured, e.g. 1 or 1,2; default 1,2")
    List<Integer> tps;

    @Option(names = "--seed", paramLabel = "S", defaultValue = "1", description = "the seed of the random weights; default 1")
    long seed;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public Integer call() {
        if (ctx < 2 || ctx > 131072 || tps.isEmpty() || tps.stream().anyMatch(t -> t != 1 && t != 2 && t != 4)
                || tps.stream().distinct().count() < tps.size()) {
            return Reply.badInput(spec.commandLine(), json, "--ctx must be in [2, 131072] and --tp lists splits of 1, 2 or 4 chips, each once");
        }
        if (dir != null && Files.exists(dir) && !Files.isDirectory(dir)) {
            return Reply.badInput(spec.commandLine(), json, "--dir " + dir + " is not a directory");
        }
        CheckpointBench.Options o = new CheckpointBench.Options(SyntheticCheckpoint.oneBillionClass(seed), dir, keep, ctx, tps, null);
        try {
            String report = CheckpointBench.run(o, new ChildMeasure(ChildMeasure.sameAsThisProcess()), line -> {
                System.err.println("bench checkpoint: " + line);
                System.err.flush();
            });
            BenchCommand.emit(spec, json, report);
            return ExitCode.OK;
        } catch (IOException e) {
            return Reply.badInput(spec.commandLine(), json, "cannot write the checkpoint or the authored files: " + IoMessages.describe(e));
        } catch (BadInputException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage());
        } catch (CheckpointBench.Failure e) {
            return Reply.failure(spec.commandLine(), json, "fault", ExitCode.CHECK_FAILED, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Reply.failure(spec.commandLine(), json, "fault", ExitCode.CHECK_FAILED, "interrupted");
        }
    }
}
