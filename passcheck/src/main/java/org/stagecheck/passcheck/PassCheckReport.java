package org.stagecheck.passcheck;

import java.nio.file.Path;
import org.stagecheck.reduce.Candidate;
import org.stagecheck.reduce.ReduceResult;

/**
 * The outcome of a {@link PassCheck} run: how many tries passed, and the first failure if any,
 * with its seed, the law, the shrunk counter-example on disk and the command that replays it.
 */
public record PassCheckReport(String name, int tries, Failure failure) {
    /** The first try that broke a law. */
    public record Failure(int tryIndex, long seed, String origin, Violation violation, Violation minimalViolation,
                          Candidate.Size before, Candidate.Size after, ReduceResult shrink, Path minimal, String replay) {}

    public boolean passed() {
        return failure == null;
    }

    public String text() {
        if (failure == null) {
            return "PassCheck '" + name + "': " + tries + " tries, every law held";
        }
        Failure f = failure;
        StringBuilder sb = new StringBuilder();
        sb.append("PassCheck '").append(name).append("': law '").append(f.violation().law()).append("' broken on try ")
                .append(f.tryIndex() + 1).append(" of ").append(tries).append(", seed ").append(f.seed()).append('\n');
        sb.append("  program: ").append(f.origin()).append('\n');
        sb.append("  ").append(f.violation().message()).append('\n');
        sb.append("  shrunk: ").append(f.before()).append(" -> ").append(f.after());
        if (f.shrink() != null) {
            sb.append(String.format(java.util.Locale.ROOT, " (%d tries, %.1f s)", f.shrink().tries(), f.shrink().millis() / 1000.0));
        }
        sb.append(", still '").append(f.minimalViolation().signature()).append("': ").append(f.minimalViolation().message()).append('\n');
        if (f.minimal() != null) {
            sb.append("  minimal program: ").append(f.minimal().resolve("program.json"))
                    .append(" (stagecheck run ").append(f.minimal().resolve("program.json")).append(" --inputs ").append(f.minimal())
                    .append(" --out OUT)\n");
        }
        sb.append("  replay: ").append(f.replay());
        return sb.toString();
    }
}
