package org.stagecheck.conformance;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * The conformance runner: runs every case on a {@link Backend} and compares the final DRAM tensors
 * with the hand-worked expectations (docs/conformance.md). Modelled on the ONNX backend test
 * runner: one case per rule, per-case names, and a skip list of name patterns with reasons, so a
 * backend that does not support something yet says so instead of failing.
 *
 * <pre>{@code
 * List<CaseResult> results = Conformance.suite().run(myBackend);
 * }</pre>
 *
 * Only final tensors are compared (every backend produces them); traces are not used.
 */
public final class Conformance {
    private final List<ConformanceCase> cases;
    private final Map<Pattern, String> skips;

    /** A runner over the whole suite, skipping nothing: the same as {@link #suite()}. */
    public Conformance() {
        this(allCases(), Map.of());
    }

    private Conformance(List<ConformanceCase> cases, Map<Pattern, String> skips) {
        this.cases = List.copyOf(cases);
        this.skips = new LinkedHashMap<>(skips);
    }

    /** The whole suite: every family's cases, in family order. */
    public static Conformance suite() {
        return of(allCases());
    }

    /** A runner over the given cases. */
    public static Conformance of(List<ConformanceCase> cases) {
        return new Conformance(cases, Map.of());
    }

    /** Every case of every family, in the order of {@link Family}. */
    public static List<ConformanceCase> allCases() {
        List<ConformanceCase> all = new ArrayList<>();
        for (Family f : Family.values()) {
            all.addAll(casesOf(f));
        }
        return all;
    }

    /** The cases of one family. */
    public static List<ConformanceCase> casesOf(Family family) {
        return switch (family) {
            case LOAD -> LoadCases.cases();
            case STORE -> StoreCases.cases();
            case RECV -> RecvCases.cases();
            case ALL_REDUCE -> AllReduceCases.cases();
            case GENERIC -> GenericCases.cases();
            case FUNCTION -> FunctionCases.cases();
            case MATMUL -> MatMulCases.cases();
            case REDUCE -> ReduceCases.cases();
            case LAYOUT -> LayoutCases.cases();
            case SCALAR -> ScalarCases.cases();
            case DTYPE -> DTypeCases.cases();
        };
    }

    public List<ConformanceCase> cases() {
        return cases;
    }

    /**
     * This runner, also skipping every case whose name contains a match of {@code regex}
     * (ONNX-style: {@code "^matmul/"} skips a family, a full name one case) for {@code reason}.
     */
    public Conformance skipping(String regex, String reason) {
        Map<Pattern, String> more = new LinkedHashMap<>(skips);
        more.put(Pattern.compile(regex), reason);
        return new Conformance(cases, more);
    }

    /** Runs every case in order, skipping those the skip list names. */
    public List<CaseResult> run(Backend backend) {
        List<CaseResult> out = new ArrayList<>();
        for (ConformanceCase c : cases) {
            Optional<String> skip = skipReason(c);
            out.add(skip.isPresent() ? new CaseResult(c.name(), CaseResult.Status.SKIPPED, skip.get()) : check(backend, c));
        }
        return out;
    }

    /** Why {@code c} is skipped, or empty when it runs. */
    public Optional<String> skipReason(ConformanceCase c) {
        for (Map.Entry<Pattern, String> e : skips.entrySet()) {
            if (e.getKey().matcher(c.name()).find()) {
                return Optional.of(e.getValue());
            }
        }
        return Optional.empty();
    }

    /**
     * Runs one case and compares every expected tensor. Fails, with a message that names the case,
     * when the backend throws, reports a fault, changes a bound tensor, or returns a tensor that
     * differs: the message then names the tensor, the stages that store into it, the element, and
     * the expected and actual values with their bits.
     */
    public static CaseResult check(Backend backend, ConformanceCase c) {
        // the backend gets copies, so that one which writes into its bindings cannot spoil the case
        Map<String, Tensor> given = new LinkedHashMap<>();
        c.bound().forEach((name, t) -> given.put(name, t.copy()));
        RunResult result;
        try {
            result = backend.runChecked(c.program(), java.util.Collections.unmodifiableMap(given), c.params(), false);
        } catch (RuntimeException e) {
            return failed(c, "backend '" + backend.name() + "' threw " + e);
        }
        if (result == null) {
            return failed(c, "backend '" + backend.name() + "' returned no result");
        }
        if (!result.ok()) {
            return failed(c, "backend '" + backend.name() + "' reported " + result.faults().size() + " fault(s), the first: "
                    + result.faults().getFirst().render());
        }
        for (Map.Entry<String, Tensor> e : c.bound().entrySet()) {
            if (!Arrays.equals(e.getValue().littleEndianBytes(), given.get(e.getKey()).littleEndianBytes())) {
                return failed(c, "backend '" + backend.name() + "' modified bound tensor '" + e.getKey() + "'");
            }
        }
        List<String> problems = new ArrayList<>();
        for (Expected x : c.expected()) {
            TensorComparison.mismatch(x, result.tensor(x.tensor()))
                    .ifPresent(m -> problems.add("tensor '" + x.tensor() + "'" + writers(c, x.tensor()) + ": " + m));
        }
        if (!problems.isEmpty()) {
            return failed(c, String.join("\n  ", problems));
        }
        return new CaseResult(c.name(), CaseResult.Status.PASSED, "");
    }

    private static CaseResult failed(ConformanceCase c, String why) {
        return new CaseResult(c.name(), CaseResult.Status.FAILED, "case '" + c.name() + "' (" + c.what() + "): " + why);
    }

    /** The stages that store into {@code tensor}, e.g. {@code (stored by stage 'st')}. */
    private static String writers(ConformanceCase c, String tensor) {
        List<String> ids = new ArrayList<>();
        for (Stage s : c.program().stages()) {
            if (s.kind() instanceof StageKind.Store st && st.tensor().equals(tensor)) {
                ids.add("'" + s.id() + "'");
            }
        }
        return ids.isEmpty() ? " (no stage stores into it)" : " (stored by stage " + String.join(", ", ids) + ")";
    }

    /** One line per failed case and a count of passed, failed and skipped: for logs and CI. */
    public static String summary(List<CaseResult> results) {
        StringBuilder sb = new StringBuilder();
        long passed = results.stream().filter(CaseResult::passed).count();
        long failed = results.stream().filter(CaseResult::failed).count();
        long skipped = results.size() - passed - failed;
        for (CaseResult r : results) {
            if (r.failed()) {
                sb.append("FAILED ").append(r.message()).append('\n');
            }
        }
        sb.append(passed).append(" passed, ").append(failed).append(" failed, ").append(skipped).append(" skipped of ")
                .append(results.size()).append(" cases");
        return sb.toString();
    }
}
