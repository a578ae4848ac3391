package org.stagecheck.reduce;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.GoldenException;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.debug.DiffReports;
import org.stagecheck.golden.debug.DiffResult;
import org.stagecheck.golden.debug.Judge;
import org.stagecheck.golden.debug.StageTrace;
import org.stagecheck.golden.debug.TraceDiff;
import org.stagecheck.backend.MathMode;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * The reports a failing {@code golden check --json} and {@code diff --json} print, made through
 * the same library calls the commands make, for tests of {@code fails-like}.
 */
final class Reports {
    private Reports() {}

    static String hash(Candidate c) {
        return new ProgramCodec().hash(c.program());
    }

    /** Records {@code c} as a golden case under {@code dir/case}, checks {@code backend} against it, writes the report to {@code dir/report.json}. */
    static Path goldenCheck(Candidate c, Backend backend, RecordOptions options, Path dir) throws IOException, GoldenException {
        Path caseDir = dir.resolve("case");
        Golden.record(c.program(), c.bound(), c.params(), options, caseDir);
        CaseResult r = Golden.check(caseDir, new Actuals.FromBackend(backend));
        Path file = dir.resolve("golden-report.json");
        write(file, g -> {
            g.writeStringField("command", "golden check");
            g.writeBooleanField("holds", r.passed());
            g.writeNumberField("exitCode", CaseResult.exitCode(List.of(r)));
            org.stagecheck.golden.report.JsonReport.write(g, List.of(r));
        });
        return file;
    }

    /** Diffs full traces of {@code backend} and the reference on {@code c} under {@code policy}, writes the report to {@code dir/diff-report.json}. */
    static Path diff(Candidate c, Backend backend, Policy policy, Path dir) throws Exception {
        return diff(c, backend, new Judge.ByPolicy(policy), dir);
    }

    /** Diffs full traces of {@code backend} and the reference on {@code c} judged by {@code judge} (diff's default: stage-derived). */
    static Path diff(Candidate c, Backend backend, Judge judge, Path dir) throws Exception {
        RunResult ref = new Interpreter(RunOptions.defaults()).run(c.program(), c.bound(), c.params(), true);
        RunResult got = backend.run(c.program(), c.bound(), c.params(), true);
        DiffResult r = TraceDiff.diff(c.program(), StageTrace.of(c.program(), ref), StageTrace.of(c.program(), got), judge, c.params(),
                MathMode.PRECISE);
        assertThat(r.agrees()).as("the backend diverges").isFalse();
        Path file = dir.resolve("diff-report.json");
        write(file, g -> {
            g.writeStringField("command", "diff");
            g.writeBooleanField("holds", r.agrees());
            g.writeNumberField("exitCode", r.exitCode());
            DiffReports.json(g, r, backend.name(), hash(c));
        });
        return file;
    }

    interface Fields {
        void write(JsonGenerator g) throws IOException;
    }

    static void write(Path file, Fields fields) throws IOException {
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file); JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            fields.write(g);
            g.writeEndObject();
        }
    }
}
