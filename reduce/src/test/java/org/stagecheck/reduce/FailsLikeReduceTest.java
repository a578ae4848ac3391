package org.stagecheck.reduce;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backend;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.debug.Judge;
import org.stagecheck.backend.MathMode;
import org.stagecheck.golden.testing.PlantedBackend;
import org.stagecheck.golden.testing.PlantedBackend.Bug;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;

/**
 * The acceptance of {@code reduce --fails-like}: each of the five planted bugs, in the tiny model's
 * decode step, is reported by golden check or diff (through the same library calls those commands
 * make), the report is read back, and the reduction under it keeps the reported failure down to a
 * few stages; the result's golden case fails on the buggy backend and passes on the reference.
 * Prints one line per bug: the figures of docs/debugging.md's table.
 */
@Tag("slow")
class FailsLikeReduceTest {
    private static final Backend REFERENCE = new Interpreter(RunOptions.defaults());

    @TempDir
    Path dir;

    /** Which report shows the failure: a golden check under the default (derived) policy, or a diff under exact. */
    enum Report { GOLDEN_CHECK_DERIVED, DIFF_EXACT, DIFF_STAGE_DERIVED }

    static Stream<Arguments> plantedBugs() {
        return Stream.of(
                Arguments.of(Bug.SLICE_OFF_BY_ONE, "decode", Report.GOLDEN_CHECK_DERIVED, "diverges at Compute/Slice"),
                Arguments.of(Bug.GENERIC_WRONG_SIGN, "decode", Report.GOLDEN_CHECK_DERIVED, "diverges at Compute/Generic"),
                Arguments.of(Bug.ALLREDUCE_DROPPED_MEMBER, "decode-tp2", Report.GOLDEN_CHECK_DERIVED, "diverges at AllReduce"),
                Arguments.of(Bug.BF16_TRUNCATION, "decode-bf16", Report.DIFF_EXACT, "diverges at Compute/Generic"),
                Arguments.of(Bug.MATMUL_K_REVERSED, "decode", Report.DIFF_EXACT, "diverges at Compute/MatMul"),
                // diff's default report: stages judged beyond their own rounding
                Arguments.of(Bug.GENERIC_WRONG_SIGN, "decode", Report.DIFF_STAGE_DERIVED, "diverges at Compute/Generic"),
                Arguments.of(Bug.RESIDUAL_TWICE, "decode", Report.DIFF_STAGE_DERIVED, "diverges at Compute/Generic"));
    }

    static Candidate subject(String name) {
        return switch (name) {
            case "decode" -> ReducerTest.tinyDecode(1);
            case "decode-tp2" -> ReducerTest.tinyDecode(2);
            default -> bf16Decode();
        };
    }

    /**
     * The tiny decode step with bf16 weights and bf16 activations into the matmuls: every Generic
     * whose output only MatMuls read (the normalised hidden state, the attention and MLP outputs
     * before their projections) writes bf16, rounded once by the stage as the reference rounds.
     */
    static Candidate bf16Decode() {
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(ModelSpec.tiny(), Cut.decode(16),
                AuthorOptions.single().withWeights(DType.BF16));
        Program p = a.program();
        Set<String> intoMatMuls = new java.util.HashSet<>();
        for (Stage s : p.stages()) {
            if (s.kind() instanceof StageKind.Compute(ComputeOp.Generic g) && s.outs().size() == 1
                    && p.buffersByName().get(s.outs().getFirst()).dtype() == DType.F32
                    && readers(p, s.outs().getFirst()).stream().allMatch(r -> r.kind() instanceof StageKind.Compute(ComputeOp.MatMul m))
                    && !readers(p, s.outs().getFirst()).isEmpty()) {
                intoMatMuls.add(s.outs().getFirst());
            }
        }
        List<BufferDecl> buffers = p.buffers().stream()
                .map(b -> intoMatMuls.contains(b.name()) ? new BufferDecl(b.name(), DType.BF16, b.shape(), b.site()) : b).toList();
        Program bf16 = p.withBuffers(buffers);
        assertThat(intoMatMuls).isNotEmpty();
        assertThat(new Validator().validate(bf16)).isEmpty();
        Map<String, Tensor> bound = new LinkedHashMap<>(a.weights());
        bound.putAll(a.inputs());
        Map<String, Long> params = new LinkedHashMap<>(a.params());
        params.replaceAll((k, v) -> k.equals("pos") ? 5L : v);
        return new Candidate(bf16, bound, params);
    }

    private static List<Stage> readers(Program p, String buffer) {
        return p.stages().stream().filter(s -> s.ins().contains(buffer)).toList();
    }

    private Path report(Report kind, Candidate c, Backend backend) throws Exception {
        return switch (kind) {
            case GOLDEN_CHECK_DERIVED -> Reports.goldenCheck(c, backend, RecordOptions.defaults(), dir.resolve("reported"));
            case DIFF_EXACT -> Reports.diff(c, backend, new Policy.Exact(), dir.resolve("reported"));
            case DIFF_STAGE_DERIVED -> Reports.diff(c, backend, Judge.defaults(), dir.resolve("reported"));
        };
    }

    @ParameterizedTest(name = "{0} in {1}, reported by {2}")
    @MethodSource("plantedBugs")
    void eachPlantedFailureShrinksToAFewStagesFailingLikeTheReport(Bug bug, String subjectName, Report kind, String signature) throws Exception {
        Candidate decode = subject(subjectName);
        Backend buggy = PlantedBackend.everywhere(bug);
        FailureReport report = FailureReport.read(report(kind, decode, buggy), Reports.hash(decode), MathMode.FAST);
        FailsLikeOracle oracle = new FailsLikeOracle(REFERENCE, buggy, report.judging());
        Verdict first = oracle.judge(decode);
        assertThat(first).isInstanceOf(Verdict.Fails.class);
        assertThat(report.disagreement((Verdict.Fails) first)).isNull();

        List<String> log = new ArrayList<>();
        ReduceResult r = new Reducer(oracle, REFERENCE, new Budget(3_000, Duration.ofMinutes(5)), log::add).reduce(decode);
        System.out.printf(Locale.ROOT, "fails-like | %s | %s | %s | %s | %s | %d | %.1f s%n", bug, subjectName, report.judging().spelling(),
                r.original().size(), r.minimal().size(), r.tries(), r.millis() / 1000.0);

        assertThat(r.failure().signature()).isEqualTo(signature);
        assertThat(r.minimal().program().stages().size()).as(r.summary()).isLessThanOrEqualTo(5);
        assertThat(r.minimal().size().elements()).isLessThan(decode.size().elements() / 10);
        assertThat(new Validator().validate(r.minimal().program())).isEmpty();
        assertThat(oracle.judge(r.minimal()).sameFailureAs(r.failure())).isTrue();
        assertThat(r.budgetExhausted()).isFalse();

        // the golden case written next to the minimal program fails on the buggy backend and passes on the reference
        Path out = Files.createDirectories(dir.resolve("min"));
        assertThat(ReducedFiles.write(r.minimal(), oracle.observable(r.minimal()), RecordOptions.defaults().withPolicy(report.judging().policy()), out)).isNull();
        assertThat(out.resolve("program.json")).isRegularFile();
        assertThat(out.resolve("case/manifest.json")).isRegularFile();
        assertThat(Golden.check(out.resolve("case"), new Actuals.FromBackend(buggy)).passed()).isFalse();
        assertThat(Golden.check(out.resolve("case"), new Actuals.FromBackend(REFERENCE)).passed()).isTrue();
    }

    @Test
    void theReversedKLoopFailsOnlyUnderAnExactPolicy() throws Exception {
        Candidate decode = ReducerTest.tinyDecode(1);
        Path caseDir = dir.resolve("derived");
        Golden.record(decode.program(), decode.bound(), decode.params(), RecordOptions.defaults(), caseDir);
        assertThat(Golden.check(caseDir, new Actuals.FromBackend(PlantedBackend.everywhere(Bug.MATMUL_K_REVERSED))).passed())
                .as("within the derived tolerance: rounding, not a bug").isTrue();
        assertThat(Golden.check(caseDir, new Actuals.FromBackend(PlantedBackend.everywhere(Bug.MATMUL_K_REVERSED)), new Policy.Exact()).passed()).isFalse();
    }

    @Test
    void aCandidateFailingDifferentlyFromTheReportIsRejected() throws Exception {
        // Two bugs: every Slice off by one, and (in programs without a Slice) every Generic's first
        // add a sub. Cutting past the slices leaves programs that still fail, at a Generic: the
        // oracle says so, and the reducer refuses them, keeping the reported failure.
        Candidate decode = ReducerTest.tinyDecode(1);
        Backend slice = PlantedBackend.everywhere(Bug.SLICE_OFF_BY_ONE);
        Backend sign = PlantedBackend.everywhere(Bug.GENERIC_WRONG_SIGN);
        Backend both = new Backend() {
            @Override
            public String name() {
                return "two bugs";
            }

            @Override
            public org.stagecheck.backend.RunResult run(Program p, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
                boolean hasSlice = p.stages().stream().anyMatch(s -> s.kind() instanceof StageKind.Compute(ComputeOp.Slice sl));
                return (hasSlice ? slice : sign).run(p, bound, params, trace);
            }
        };
        FailureReport report = FailureReport.read(Reports.diff(decode, both, new Policy.Exact(), dir), Reports.hash(decode), MathMode.FAST);
        assertThat(report.expected()).isEqualTo("diverges at Compute/Slice");
        FailsLikeOracle oracle = new FailsLikeOracle(REFERENCE, both, report.judging());
        ReduceResult r = new Reducer(oracle, REFERENCE, new Budget(3_000, Duration.ofMinutes(5)), s -> { }).reduce(decode);
        assertThat(r.failure().signature()).isEqualTo("diverges at Compute/Slice");
        assertThat(r.failedDifferently()).as("candidates failing at a Generic were tried and refused").isPositive();
        assertThat(oracle.judge(r.minimal())).matches(v -> v.sameFailureAs(r.failure()));
        assertThat(report.disagreement(new Verdict.Fails("diverges at Compute/Generic", "")))
                .contains("it fails with 'diverges at Compute/Generic'").contains("the report with 'diverges at Compute/Slice'");
    }

    @Test
    void theReducerAcceptsNoCandidateThatFailsDifferently() {
        // An oracle under which the original fails one way and every smaller candidate another:
        // nothing may be accepted, whatever the moves try.
        Candidate decode = ReducerTest.tinyDecode(1);
        FailureOracle oracle = c -> c == decode
                ? new Verdict.Fails("diverges at Compute/Slice", "the original")
                : new Verdict.Fails("diverges at Compute/Generic", "a smaller candidate");
        ReduceResult r = new Reducer(oracle, REFERENCE, new Budget(200, Duration.ofMinutes(2)), s -> { }).reduce(decode);
        assertThat(r.accepted()).isZero();
        assertThat(r.minimal()).isEqualTo(decode);
        assertThat(r.failedDifferently()).isEqualTo(r.tries() - 1).isPositive();
    }

    @Test
    void aReportIsTiedToItsProgramAndToAFailure() throws Exception {
        Candidate decode = ReducerTest.tinyDecode(1);
        Path failing = Reports.goldenCheck(decode, PlantedBackend.everywhere(Bug.SLICE_OFF_BY_ONE), RecordOptions.defaults(), dir.resolve("failing"));
        FailureReport r = FailureReport.read(failing, Reports.hash(decode), MathMode.FAST);
        assertThat(r.source()).isEqualTo("golden check");
        assertThat(r.backend()).isEqualTo("planted-slice_off_by_one");
        assertThat(r.actuals()).as("the report says a backend ran, so it can be run again").isEqualTo(Actuals.Kind.BACKEND);
        assertThat(r.backendRerunnable()).isTrue();
        assertThat(r.judging().policy()).isEqualTo(new Policy.Derived(1));
        assertThat(r.expected()).isEqualTo("diverges");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> FailureReport.read(failing, "0123", MathMode.FAST))
                .isInstanceOf(FailureReport.ReportException.class)
                .hasMessageContaining("a report for another program: its case(s) were recorded for program hash " + Reports.hash(decode))
                .hasMessageContaining("the program hashes to 0123");
        Path passing = Reports.goldenCheck(decode, REFERENCE, RecordOptions.defaults(), dir.resolve("passing"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> FailureReport.read(passing, Reports.hash(decode), MathMode.FAST))
                .isInstanceOf(FailureReport.ReportException.class).hasMessageContaining("(status pass) did not fail");
        Path garbled = Files.writeString(dir.resolve("garbled.json"), "[1, 2");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> FailureReport.read(garbled, Reports.hash(decode), MathMode.FAST))
                .isInstanceOf(FailureReport.ReportException.class).hasMessageContaining("not a JSON report");
    }
}
