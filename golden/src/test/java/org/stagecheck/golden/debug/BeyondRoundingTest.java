package org.stagecheck.golden.debug;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Subjects;
import org.stagecheck.golden.Subjects.Subject;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.backend.MathMode;
import org.stagecheck.golden.testing.Float64Backend;
import org.stagecheck.golden.testing.PlantedBackend;
import org.stagecheck.golden.testing.PlantedBackend.Bug;
import org.stagecheck.golden.testing.Rounding;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;

/**
 * The acceptance of diff's default judgement, stage-derived (docs/debugging.md, "Beyond
 * rounding"): a correct backend that rounds differently from the reference everywhere gets no
 * divergence, from full traces, partial traces, its outputs alone (replay) and bisection; and a
 * bug planted in the last layer or the head, behind such a backend's rounding everywhere else, is
 * named at exactly its stage from a full trace (trace diff and replay), a partial trace, and
 * bisection over its outputs, where {@code exact} stops at the first rounding difference instead.
 * Tiny decode at position 5 (past position 0, where the query's path is masked).
 */
@Tag("slow")
class BeyondRoundingTest {
    private static Subject decode;
    private static Subject decodeTp2;
    private static Subject decodeBf16;

    @BeforeAll
    static void subjects() {
        List<Subject> tiny = Subjects.tinyCuts(false, true);
        decode = atPosition5(tiny.stream().filter(s -> s.name().equals("tiny-decode")).findFirst().orElseThrow());
        decodeTp2 = atPosition5(tiny.stream().filter(s -> s.name().equals("tiny-decode-tp2")).findFirst().orElseThrow());
        decodeBf16 = PlantedBugsTest.bf16Decode();
    }

    private static Subject atPosition5(Subject s) {
        Map<String, Long> params = new LinkedHashMap<>(s.params());
        params.replaceAll((k, v) -> k.equals("pos") ? 5L : v);
        return new Subject(s.name(), s.program(), s.bound(), params);
    }

    private static Subject subject(String name) {
        return switch (name) {
            case "decode" -> decode;
            case "decode-tp2" -> decodeTp2;
            default -> decodeBf16;
        };
    }

    private static Backend correct(String name) {
        return switch (name) {
            case "k-reversed" -> PlantedBackend.correct(Rounding.K_REVERSED);
            case "f64-per-stage" -> PlantedBackend.correct(Rounding.F64_PER_STAGE);
            default -> new Float64Backend();
        };
    }

    static Stream<Arguments> correctBackends() {
        return Stream.of("k-reversed", "f64-per-stage", "f64-run").flatMap(b -> Stream.of("decode", "decode-tp2", "decode-bf16")
                .map(s -> Arguments.of(b, s)));
    }

    /** A partial trace: the stages at every third index, and {@code keep} (the stage a bug is planted in). */
    private static StageTrace partial(Program p, RunResult run, String keep) {
        Set<String> kept = IntStream.range(0, p.stages().size()).filter(i -> i % 3 == 0).mapToObj(i -> p.stages().get(i).id())
                .collect(Collectors.toSet());
        kept.add(keep);
        return StageTrace.of(p, run).onlyStages(kept);
    }

    /** The largest fraction of its bound any judged stage output used. */
    private static double worstUse(DiffResult r) {
        return r.stages().stream().flatMap(v -> v.outputs().stream()).mapToDouble(c -> c.minimal().derivedScale())
                .filter(Double::isFinite).max().orElse(0);
    }

    @ParameterizedTest(name = "{0} on {1}: no divergence")
    @MethodSource("correctBackends")
    void aCorrectButDifferentlyRoundedBackendHasNoDivergence(String backendName, String subjectName) throws Exception {
        Subject s = subject(subjectName);
        Backend backend = correct(backendName);
        Program p = s.program();
        RunResult ref = new Interpreter(RunOptions.defaults().withTrace(true)).run(p, s.bound(), s.params());
        RunResult back = backend.run(p, s.bound(), s.params(), true);
        assertThat(back.ok()).isTrue();

        // it does round differently: exact finds a first difference
        DiffResult exact = TraceDiff.diff(p, StageTrace.of(p, ref), StageTrace.of(p, back), new Policy.Exact(), s.params(), MathMode.PRECISE);
        assertThat(exact.agrees()).isFalse();

        DiffResult traces = TraceDiff.diff(p, StageTrace.of(p, ref), StageTrace.of(p, back), Judge.defaults(), s.params(), MathMode.PRECISE);
        DiffResult replay = Replay.replay(p, s.bound(), s.params(), StageTrace.of(p, back), Judge.defaults(), MathMode.PRECISE);
        DiffResult partial = Replay.replay(p, s.bound(), s.params(), partial(p, back, p.stages().get(1).id()), Judge.defaults(), MathMode.PRECISE);
        DiffResult partialTraces = TraceDiff.diff(p, StageTrace.of(p, ref), partial(p, back, p.stages().get(1).id()), Judge.defaults(),
                s.params(), MathMode.PRECISE);
        DiffResult outputs = Replay.replay(p, s.bound(), s.params(), StageTrace.finalOnly(p, back), Judge.defaults(), MathMode.PRECISE);
        DiffResult bisect = CutBisect.bisect(p, s.bound(), s.params(), backend, Judge.defaults(), MathMode.PRECISE);
        for (DiffResult r : List.of(traces, replay, partial, partialTraces, outputs, bisect)) {
            assertThat(r.agrees()).as(r.mode() + ": " + DiffText.of(r)).isTrue();
            assertThat(r.judge()).isEqualTo(new Judge.StageDerived(1));
        }
        assertThat(worstUse(replay)).isLessThanOrEqualTo(1);
        System.out.printf(Locale.ROOT, "stage-derived | %s on %s | exact: first difference #%d %s | no divergence; worst use of a bound %.3f (replay), "
                        + "%.3f (trace diff); bisection %d runs over %d stages%n", backendName, s.name(), exact.divergence().stageIndex(),
                exact.divergence().kind(), worstUse(replay), worstUse(traces), bisect.backendRuns(), p.stages().size());
    }

    static Stream<Arguments> plantedBugs() {
        return Stream.of(
                Arguments.of(Bug.NORM_EPSILON, "decode", "attn_norm.l1_2", "norm"),
                Arguments.of(Bug.NORM_EPSILON, "decode", "final_norm_2", "norm (head)"),
                Arguments.of(Bug.MATMUL_SCALED, "decode", "v.l1.t2_2", "q/k/v"),
                Arguments.of(Bug.GENERIC_WRONG_SIGN, "decode", "k.l1.rot_lo_2", "rotary"),
                Arguments.of(Bug.SLICE_OFF_BY_ONE, "decode", "attn.l1.k1_2", "attention"),
                Arguments.of(Bug.MATMUL_SCALED, "decode", "attn.l1.qk5_2", "attention scores"),
                Arguments.of(Bug.MATMUL_SCALED, "decode", "o.l1.t3_2", "projection"),
                Arguments.of(Bug.RESIDUAL_TWICE, "decode", "resid2.l1_2", "residual"),
                Arguments.of(Bug.MATMUL_SCALED, "decode", "logits.t1_2", "logits (head)"),
                Arguments.of(Bug.ALLREDUCE_DROPPED_MEMBER, "decode-tp2", "allreduce_o.l1_3", "projection all-reduce"),
                Arguments.of(Bug.BF16_TRUNCATION, "decode-bf16", "attn.l1.p7_2", "attention weights, bf16"));
    }

    @ParameterizedTest(name = "{0} at {2} ({3}) in {1}, rounded differently elsewhere")
    @MethodSource("plantedBugs")
    void aBugBehindRoundingIsNamedAtItsStage(Bug bug, String subjectName, String target, String where) throws Exception {
        Subject s = subject(subjectName);
        Program p = s.program();
        assertThat(PlantedBackend.targets(p, bug)).contains(target);
        int index = IntStream.range(0, p.stages().size()).filter(i -> p.stages().get(i).id().equals(target)).findFirst().orElseThrow();
        PlantedBackend backend = PlantedBackend.at(bug, target).roundedElsewhere(Rounding.F64_PER_STAGE);
        RunResult ref = new Interpreter(RunOptions.defaults().withTrace(true)).run(p, s.bound(), s.params());
        RunResult back = backend.run(p, s.bound(), s.params(), true);

        // exact stops at the first rounding difference, well before the bug
        DiffResult exact = TraceDiff.diff(p, StageTrace.of(p, ref), StageTrace.of(p, back), new Policy.Exact(), s.params(), MathMode.PRECISE);
        assertThat(exact.divergence().stageIndex()).isLessThan(index);

        DiffResult traces = TraceDiff.diff(p, StageTrace.of(p, ref), StageTrace.of(p, back), Judge.defaults(), s.params(), MathMode.PRECISE);
        DiffResult replay = Replay.replay(p, s.bound(), s.params(), StageTrace.of(p, back), Judge.defaults(), MathMode.PRECISE);
        for (DiffResult r : List.of(traces, replay)) {
            assertThat(r.divergence()).as(r.mode() + ": " + DiffText.headline(r)).isNotNull();
            assertThat(r.divergence().stageId()).as(r.mode().words()).isEqualTo(target);
            assertThat(r.divergence().pinned()).isTrue();
            // each stage judged on its own inputs: the bug's effect downstream is not a divergence
            assertThat(r.stages().stream().filter(v -> v.verdict() == StageVerdict.Verdict.DIVERGES)).hasSize(1);
            assertThat(r.threeWay().classification()).isEqualTo(ThreeWay.Classification.BEYOND_BOUND);
        }

        DiffResult partial = Replay.replay(p, s.bound(), s.params(), partial(p, back, target), Judge.defaults(), MathMode.PRECISE);
        DiffResult partialTraces = TraceDiff.diff(p, StageTrace.of(p, ref), partial(p, back, target), Judge.defaults(), s.params(),
                MathMode.PRECISE);
        for (DiffResult r : List.of(partial, partialTraces)) {
            assertThat(r.divergence().stageId()).as(r.mode() + ": " + DiffText.headline(r)).isEqualTo(target);
            assertThat(r.divergence().suspects()).contains(target);
        }

        DiffResult bisect = CutBisect.bisect(p, s.bound(), s.params(), backend, Judge.defaults(), MathMode.PRECISE);
        assertThat(bisect.divergence()).as(DiffText.of(bisect)).isNotNull();
        assertThat(bisect.divergence().stageId()).isEqualTo(target);
        assertThat(bisect.divergence().confirmed()).isTrue();
        assertThat(bisect.threeWay().classification()).isEqualTo(ThreeWay.Classification.BEYOND_BOUND);
        int log2 = 32 - Integer.numberOfLeadingZeros(p.stages().size());
        // f32 live values keep a segment's bound tight for long stretches; bf16 ones do not (docs/debugging.md)
        assertThat(bisect.backendRuns()).isLessThanOrEqualTo(subjectName.equals("decode-bf16") ? p.stages().size() / 4 : 2 * log2);

        Comparison own = replay.stages().get(index).outputs().stream().filter(c -> !c.passed()).findFirst().orElseThrow();
        System.out.printf(Locale.ROOT, "stage-derived | %s | %s | #%d %s (%s) | exact stops at #%d | error %.3g, %.3g times its bound | "
                        + "partial trace: %d suspect(s) | bisection: %d runs over %d stages%n", bug, where, index, target, traces.divergence().kind(),
                exact.divergence().stageIndex(), own.maxAbs().absError(), own.minimal().derivedScale(), partial.divergence().suspects().size(),
                bisect.backendRuns(), p.stages().size());
    }

    /**
     * exp(s + max) for exp(s - max) in one head's softmax: the stage departs from its definition,
     * and the traces name it, but the softmax's output is the same to rounding (the shift cancels in
     * the division, as when a softmax skips subtracting the max), so the outputs show nothing and
     * bisection rightly finds no divergence.
     */
    @ParameterizedTest(name = "a softmax shifted the other way at {0}")
    @MethodSource("softmaxExps")
    void aShiftedSoftmaxIsNamedFromTracesAndInvisibleInTheOutputs(String target) throws Exception {
        Program p = decode.program();
        PlantedBackend backend = PlantedBackend.at(Bug.GENERIC_WRONG_SIGN, target).roundedElsewhere(Rounding.F64_PER_STAGE);
        RunResult back = backend.run(p, decode.bound(), decode.params(), true);
        DiffResult replay = Replay.replay(p, decode.bound(), decode.params(), StageTrace.of(p, back), Judge.defaults(), MathMode.PRECISE);
        assertThat(replay.divergence().stageId()).isEqualTo(target);
        assertThat(replay.stages().stream().filter(v -> v.verdict() == StageVerdict.Verdict.DIVERGES)).hasSize(1);
        // a backend that fused the exp and its sum into the division traces nothing wrong
        Set<String> fused = new java.util.HashSet<>(back.trace().keySet());
        fused.remove(target);
        fused.remove(target.replace("exp", "sum"));
        assertThat(Replay.replay(p, decode.bound(), decode.params(), StageTrace.of(p, back).onlyStages(fused), Judge.defaults(),
                MathMode.PRECISE).agrees()).isTrue();
        assertThat(CutBisect.bisect(p, decode.bound(), decode.params(), backend, Judge.defaults(), MathMode.PRECISE).agrees()).isTrue();
    }

    static Stream<String> softmaxExps() {
        return Stream.of("attn.l1.exp5_2", "attn.l0.exp2_2");
    }

    @ParameterizedTest(name = "the reversed k loop at {0} is rounding")
    @MethodSource("kReversedTargets")
    void aReversedKLoopInTheLastLayerIsNotADivergence(String target) throws Exception {
        Program p = decode.program();
        PlantedBackend backend = PlantedBackend.at(Bug.MATMUL_K_REVERSED, target).roundedElsewhere(Rounding.F64_PER_STAGE);
        RunResult back = backend.run(p, decode.bound(), decode.params(), true);
        DiffResult replay = Replay.replay(p, decode.bound(), decode.params(), StageTrace.of(p, back), Judge.defaults(), MathMode.PRECISE);
        assertThat(replay.agrees()).as(DiffText.of(replay)).isTrue();
        assertThat(CutBisect.bisect(p, decode.bound(), decode.params(), backend, Judge.defaults(), MathMode.PRECISE).agrees()).isTrue();
    }

    static Stream<String> kReversedTargets() {
        return Stream.of("q.l1.t1_2", "down.l1.t2_2", "logits.t3_2");
    }
}
