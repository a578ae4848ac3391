package org.stagecheck.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.golden.bench.RecordBench;
import org.stagecheck.golden.derive.DerivedBounds;
import org.stagecheck.golden.derive.Ensemble;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck bench record}: the cost of the derived tolerance's ensemble against a plain record. */
@Command(name = "record", mixinStandardHelpOptions = true,
        description = "Time golden record's tolerance with and without the conforming ensemble on the tiny and small decode steps, side by side.")
final class BenchRecordCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--repeats", paramLabel = "N", defaultValue = "3", description = "timed repetitions of each, the best kept (default 3)")
    int repeats;

    @Option(names = "--json", description = "one JSON document on standard output")
    boolean json;

    @Override
    public Integer call() throws DerivedBounds.BoundException {
        if (repeats < 1 || repeats > BenchCommand.MAX_REPEATS) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--repeats is between 1 and " + BenchCommand.MAX_REPEATS + ", not " + repeats);
        }
        List<RecordBench.Subject> subjects = new ArrayList<>();
        subjects.add(decode("tiny (ctx 16, pos 9)", ModelSpec.tiny(), 16, 9));
        subjects.add(decode("small (ctx 32, pos 7)", ModelSpec.small(), 32, 7));
        String report = RecordBench.run(subjects, repeats, Ensemble.Options.defaults(), line -> {
            if (!json) {
                System.err.println(line);
            }
        });
        BenchCommand.emit(spec, json, report);
        return ExitCode.OK;
    }

    private static RecordBench.Subject decode(String name, ModelSpec model, int ctx, int pos) {
        AuthorOutcome o = Author.author(model, Cut.decode(ctx), AuthorOptions.single());
        if (!(o instanceof AuthorOutcome.Authored a)) {
            throw new IllegalStateException(name + ": " + o);
        }
        Map<String, Long> params = new LinkedHashMap<>(a.params());
        params.put("pos", (long) pos);
        return new RecordBench.Subject(name, a.program(), a.bound(), params);
    }
}
