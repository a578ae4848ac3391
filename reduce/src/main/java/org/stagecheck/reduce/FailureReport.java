package org.stagecheck.reduce;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.stagecheck.golden.Actuals;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.debug.Judge;
import org.stagecheck.backend.MathMode;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;

/**
 * A failure as a report describes it: the JSON document a failing {@code golden check --json} or
 * {@code diff --json} printed, read back for {@code reduce --fails-like} (docs/debugging.md,
 * "Reducing a reported failure"). It gives what a {@link FailsLikeOracle} needs: the backend that
 * failed, the policy it failed under, and what the failure was, so that the program being reduced
 * is first checked to fail that way.
 *
 * <p>A report is tied to one program by the program's hash ({@code programHash}: a golden check
 * report names each case's recorded hash, a diff report the hash of the program it compared); a
 * report for another program is refused.
 *
 * @param source      {@code golden check} or {@code diff}
 * @param backend     what produced the failing values, as the report names it ({@code files DIR} when it read files)
 * @param actuals     whether the report's backend ran ({@link Actuals.Kind#BACKEND}: it can be run again by
 *                    its name) or files were read; null when the report does not say (one written before
 *                    reports said it), in which case {@code backend} is taken as a backend's name
 * @param judging     how a candidate is judged: the report's policies and scope
 * @param expected    the signature the program must fail with ({@code exact}) or its prefix
 * @param exact       whether {@code expected} is the whole signature
 * @param description one line saying what the report recorded
 */
public record FailureReport(String source, String backend, Actuals.Kind actuals, FailsLikeOracle.Judging judging, String expected,
                            boolean exact, String description) {
    private static final Pattern FAULT = Pattern.compile("faulted at stage '.*?': ([A-Z][A-Z0-9_]*)");
    /** How reports written before {@code actuals} named a backend that read files. */
    private static final String LEGACY_FILES_PREFIX = "files ";

    /** A report that cannot be used: unreadable, not a report of a failure, or for another program. */
    public static final class ReportException extends Exception {
        public ReportException(String message) {
            super(message);
        }
    }

    /**
     * Reads {@code file} as the report of a failure of the program hashing to {@code programHash}.
     * Derived tolerances are computed with {@code mathMode} (golden record's default is
     * {@link MathMode#DEFAULT}; the report does not say which a case was recorded with).
     */
    public static FailureReport read(Path file, String programHash, MathMode mathMode) throws ReportException {
        JNode root;
        try {
            root = new JsonReader().read(file);
        } catch (JsonFormatException e) {
            throw new ReportException(file + ": not a JSON report: " + e.getMessage());
        }
        if (!(root instanceof JNode.JObject o)) {
            throw new ReportException(file + ": not a report (a JSON object is expected, not " + root.typeName() + ")");
        }
        String command = string(o, "command");
        if (o.fields().containsKey("error")) {
            throw new ReportException(file + ": the report records bad input (" + string(o, "error") + "), not a failure");
        }
        return switch (command == null ? "" : command) {
            case "golden check" -> goldenCheck(file, o, programHash, mathMode);
            case "diff" -> diff(file, o, programHash, mathMode);
            // the file's "command" field: any other value is bad input
            default -> throw new ReportException(file + ": not the JSON report of 'golden check' or 'diff' ("
                    + (command == null ? "no \"command\" field" : "\"command\": \"" + command + "\"") + ")");
        };
    }

    /** Why {@code failure} is not the failure this report describes, or null when it is. */
    public String disagreement(Verdict.Fails failure) {
        boolean same = exact ? failure.signature().equals(expected) : failure.signature().startsWith(expected);
        return same ? null : "it fails with '" + failure.signature() + "' (" + failure.detail() + "), the report with '" + expected
                + (exact ? "'" : " ...'");
    }

    private static FailureReport goldenCheck(Path file, JNode.JObject o, String programHash, MathMode mathMode) throws ReportException {
        List<JNode.JObject> cases = objects(file, o, "cases");
        List<String> hashes = new ArrayList<>();
        List<String> notFailing = new ArrayList<>();
        for (JNode.JObject c : cases) {
            String hash = string(c, "programHash");
            if (hash == null) {
                throw new ReportException(file + ": case '" + string(c, "name") + "' names no program hash (a report written before"
                        + " reports carried one); run golden check --json again");
            }
            hashes.add(hash);
            if (!hash.equals(programHash)) {
                continue;
            }
            String status = string(c, "status");
            if (!"fail".equals(status)) {
                notFailing.add("'" + string(c, "name") + "' (status " + status + ")");
                continue;
            }
            Map<String, Policy> perOutput = new LinkedHashMap<>();
            Policy first = null;
            for (JNode.JObject out : objects(file, c, "outputs")) {
                Policy p = policy(file, string(out, "policy"));
                perOutput.put(string(out, "tensor"), p);
                if (first == null && out.fields().get("passed") instanceof JNode.JBool b && !b.value()) {
                    first = p;
                }
            }
            if (first == null) {
                first = perOutput.isEmpty() ? new Policy.Derived(1) : perOutput.values().iterator().next();
            }
            String message = string(c, "message");
            Matcher fault = FAULT.matcher(message == null ? "" : message);
            String expected = fault.find() ? "fault " + fault.group(1) : "diverges";
            return new FailureReport("golden check", string(c, "backend"), actuals(file, c), new FailsLikeOracle.Judging(first, perOutput, mathMode),
                    expected, false, "golden check of case '" + string(c, "name") + "' on " + string(c, "backend") + ": " + message);
        }
        if (!notFailing.isEmpty()) {
            throw new ReportException(file + ": no case of this program failed: " + String.join(", ", notFailing)
                    + " did not fail; nothing to reduce like it");
        }
        throw new ReportException(file + ": a report for another program: its case(s) were recorded for program hash "
                + String.join(", ", hashes.stream().distinct().toList()) + ", the program hashes to " + programHash);
    }

    private static FailureReport diff(Path file, JNode.JObject o, String programHash, MathMode mathMode) throws ReportException {
        String hash = string(o, "programHash");
        if (hash == null) {
            throw new ReportException(file + ": names no program hash (a report written before reports carried one); run diff --json again");
        }
        if (!hash.equals(programHash)) {
            throw new ReportException(file + ": a report for another program: it compared a program hashing to " + hash
                    + ", the program hashes to " + programHash);
        }
        if (o.fields().get("agrees") instanceof JNode.JBool b && b.value()) {
            throw new ReportException(file + ": the diff found no divergence: nothing to reduce like it");
        }
        if (!(o.fields().get("firstDivergentStage") instanceof JNode.JObject d)) {
            throw new ReportException(file + ": names no first divergent stage");
        }
        Judge judge = judge(file, string(o, "policy"));
        String kind = string(d, "kind");
        boolean pinned = d.fields().get("pinned") instanceof JNode.JBool p && p.value();
        String expected = kind != null && pinned ? "diverges at " + kind : "diverges";
        String where = kind != null ? "stage '" + string(d, "id") + "' (" + kind + ")" : "tensor '" + string(d, "tensor") + "'";
        return new FailureReport("diff", string(o, "backend"), actuals(file, o), FailsLikeOracle.Judging.of(judge, mathMode),
                expected, kind != null && pinned, "diff (" + string(o, "mode") + ", policy " + judge.spelling() + "): first divergence at " + where);
    }

    private static Policy policy(Path file, String spelling) throws ReportException {
        if (spelling == null) {
            throw new ReportException(file + ": a comparison names no policy");
        }
        try {
            return Policy.parse(spelling);
        } catch (IllegalArgumentException e) {
            throw new ReportException(file + ": policy '" + spelling + "': " + e.getMessage());
        }
    }

    /** A diff's judgement: {@code stage-derived [F]} (diff's default) or a value policy. */
    private static Judge judge(Path file, String spelling) throws ReportException {
        if (spelling == null) {
            throw new ReportException(file + ": a comparison names no policy");
        }
        try {
            return Judge.parse(spelling);
        } catch (IllegalArgumentException e) {
            throw new ReportException(file + ": policy '" + spelling + "': " + e.getMessage());
        }
    }

    /** The report's {@code "actuals"}: what kind of source produced the values; null when it does not say. */
    private static Actuals.Kind actuals(Path file, JNode.JObject o) throws ReportException {
        String spelling = string(o, "actuals");
        if (spelling == null) {
            return null;
        }
        for (Actuals.Kind k : Actuals.Kind.values()) {
            if (k.name().toLowerCase(java.util.Locale.ROOT).equals(spelling)) {
                return k;
            }
        }
        throw new ReportException(file + ": \"actuals\" is '" + spelling + "', not backend, files or tensors");
    }

    /**
     * Whether the report's backend can be run again by its name: it ran. A report written before
     * reports said {@code actuals} names a backend, unless its backend is spelled as such reports
     * spelled files ({@code "files DIR"}).
     */
    public boolean backendRerunnable() {
        if (backend == null) {
            return false;
        }
        return actuals == null ? !backend.startsWith(LEGACY_FILES_PREFIX) : actuals == Actuals.Kind.BACKEND;
    }

    private static String string(JNode.JObject o, String field) {
        return o.fields().get(field) instanceof JNode.JString s ? s.value() : null;
    }

    private static List<JNode.JObject> objects(Path file, JNode.JObject o, String field) throws ReportException {
        if (!(o.fields().get(field) instanceof JNode.JArray a)) {
            throw new ReportException(file + ": no \"" + field + "\" array");
        }
        List<JNode.JObject> out = new ArrayList<>();
        for (JNode n : a.items()) {
            if (!(n instanceof JNode.JObject x)) {
                throw new ReportException(file + ": \"" + field + "\" holds " + n.typeName() + ", not an object");
            }
            out.add(x);
        }
        return out;
    }
}
