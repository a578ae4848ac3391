package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import org.stagecheck.reduce.ReduceResult;
import org.stagecheck.reduce.ReducedFiles;

/**
 * What {@code stagecheck reduce} prints on stdout: text, or with {@code --json} one document for
 * every outcome (reduced, nothing to reduce, bad input). Progress lines go to stderr, never here.
 */
final class ReduceReport {
    private final boolean json;
    private final Path out;

    ReduceReport(boolean json, Path out) {
        this.json = json;
        this.out = out;
    }

    /** Exit 0: the shrink, the failure kept, the work and where the files are. */
    void reduced(PrintWriter o, ReduceResult r, String oracle, String caseProblem) {
        Path dir = out.toAbsolutePath().normalize();
        if (json) {
            Json.print(o, g -> {
                g.writeStartObject();
                g.writeStringField("command", "reduce");
                g.writeBooleanField("holds", true);
                g.writeNumberField("exitCode", ExitCode.OK);
                g.writeStringField("outcome", "reduced");
                g.writeStringField("oracle", oracle);
                g.writeStringField("failure", r.failure().signature());
                g.writeStringField("detail", r.failure().detail());
                g.writeObjectFieldStart("before");
                g.writeNumberField("stages", r.original().size().stages());
                g.writeNumberField("elements", r.original().size().elements());
                g.writeEndObject();
                g.writeObjectFieldStart("after");
                g.writeNumberField("stages", r.minimal().size().stages());
                g.writeNumberField("elements", r.minimal().size().elements());
                g.writeEndObject();
                g.writeNumberField("tries", r.tries());
                g.writeNumberField("accepted", r.accepted());
                g.writeNumberField("refusedByValidator", r.invalid());
                g.writeNumberField("failedDifferently", r.failedDifferently());
                g.writeNumberField("passed", r.passed());
                g.writeNumberField("millis", r.millis());
                g.writeBooleanField("budgetExhausted", r.budgetExhausted());
                g.writeArrayFieldStart("steps");
                for (String s : r.steps()) {
                    g.writeString(s);
                }
                g.writeEndArray();
                g.writeStringField("program", dir.resolve("program.json").toString());
                g.writeStringField("inputs", dir.toString());
                if (caseProblem == null) {
                    g.writeStringField("goldenCase", dir.resolve(ReducedFiles.CASE_DIR).toString());
                } else {
                    g.writeNullField("goldenCase");
                    g.writeStringField("goldenCaseNotWritten", caseProblem);
                }
                g.writeEndObject();
            });
            return;
        }
        o.println(r.summary());
        o.printf(Locale.ROOT, "  before: %s; after: %s; %d steps accepted in %.1f s (oracle: %s)%n", r.original().size(), r.minimal().size(),
                r.steps().size(), r.millis() / 1000.0, oracle);
        o.println("  " + out.resolve("program.json") + "  (run: stagecheck run " + out.resolve("program.json") + " --inputs " + out + " --out OUT)");
        if (caseProblem == null) {
            o.println("  " + out.resolve(ReducedFiles.CASE_DIR) + "  (the regression test: stagecheck golden check " + out.resolve(ReducedFiles.CASE_DIR)
                    + " --backend NAME)");
        } else {
            o.println("  no golden case: " + caseProblem);
        }
        o.flush();
    }

    /** Exit 1: the program does not fail (that way). */
    void nothing(PrintWriter o, String message) {
        if (json) {
            Json.print(o, g -> {
                g.writeStartObject();
                g.writeStringField("command", "reduce");
                g.writeBooleanField("holds", false);
                g.writeNumberField("exitCode", ExitCode.CHECK_FAILED);
                g.writeStringField("outcome", "not-failing");
                g.writeStringField("message", message);
                g.writeEndObject();
            });
        } else {
            o.println(message);
            o.flush();
        }
    }
}
