package org.stagecheck.author.laws;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/** The four laws on the tiny model, and the broken passes they must catch. */
@Tag("slow")
class LawsTest {
    private static final ModelSpec TINY = ModelSpec.tiny();
    private static final int[][] HISTORIES = {{5, 9}, {1}, {3, 4, 6, 60}, {12, 12, 12}};

    private final Laws laws = new Laws(TINY);

    @ParameterizedTest
    @CsvSource({"4, 1", "8, 3", "16, 6"})
    void decodeCompositionIsBitExact(int ctx, int steps) {
        LawResult r = laws.decodeComposition(ctx, tokens(steps));
        assertThat(r.holds()).as(r.toString()).isTrue();
        assertThat(r.bitExact()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"4, 1", "8, 5", "16, 16"})
    void prefillCompositionIsBitExact(int ctx, int rows) {
        LawResult r = laws.prefillComposition(ctx, tokens(rows));
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"4, 1", "8, 2", "8, 4"})
    void batchCompositionIsBitExact(int ctx, int rows) {
        LawResult r = laws.batchComposition(ctx, java.util.Arrays.copyOf(HISTORIES, rows));
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }

    @Test
    void forwardCompositionIsBitExact() {
        LawResult r = laws.forwardComposition(33);
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"1", "8"})
    void forwardEqualsTheFirstDecodeStep(int ctx) {
        LawResult r = laws.forwardDecodeAgreement(ctx, 42);
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"4, 1", "4, 4", "8, 3", "16, 7"})
    void prefillEqualsDecodeStepsBitForBit(int ctx, int rows) {
        LawResult r = laws.prefillDecodeConsistency(ctx, tokens(rows));
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"4, 1", "4, 3", "8, 4"})
    void eachBatchRowEqualsItsSequenceDecodedAlone(int ctx, int rows) {
        LawResult r = laws.batchInvariance(ctx, java.util.Arrays.copyOf(HISTORIES, rows));
        assertThat(r.bitExact()).as(r.toString()).isTrue();
    }

    @ParameterizedTest
    @CsvSource({"2", "4"})
    void splitDecodeEqualsUnsplitWithinTolerance(int tp) {
        Map<String, Tensor> state = new java.util.LinkedHashMap<>(laws.decodeState(8, new int[] {4, 5, 6}));
        state.put("tokens", Tensor.fromInts(org.stagecheck.spec.ir.Shape.of(1), new int[] {7}));
        LawResult r = laws.splitEquivalence(Cut.decode(8), tp, state, Map.of("pos", 3L));
        assertThat(r.holds()).as(r.toString()).isTrue();
        assertThat(r.maxAbsDiff()).isLessThan(Laws.SPLIT_RELATIVE_TOLERANCE);
    }

    @ParameterizedTest
    @CsvSource({"2", "4"})
    void splitBatchAndLayersEqualUnsplit(int tp) {
        List<LawResult> results = List.of(
                laws.splitEquivalence(Cut.batch(3, 8), tp, laws.batchInputs(8, java.util.Arrays.copyOf(HISTORIES, 3)), Map.of()),
                laws.splitEquivalence(Cut.decodeLayer(1, 8), tp),
                laws.splitEquivalence(Cut.batchLayer(0, 2, 4), tp));
        assertThat(results).allSatisfy(r -> assertThat(r.holds()).as(r.toString()).isTrue());
    }

    @Test
    void theStandardSuiteHoldsOnTiny() {
        List<LawResult> suite = laws.standardSuite(8);
        assertThat(suite).hasSize(7 + 8);
        assertThat(suite).allSatisfy(r -> assertThat(r.holds()).as(r.toString()).isTrue());
        assertThat(suite.stream().filter(r -> !r.law().equals("split-equivalence"))).allSatisfy(r -> assertThat(r.bitExact()).isTrue());
    }

    @Test
    void theStandardSuiteHoldsWithBf16Weights() {
        Laws bf16 = new Laws(TINY, AuthorOptions.single().withWeights(org.stagecheck.spec.ir.DType.BF16),
                CutCompiler.identity(), new Interpreter(RunOptions.defaults()));
        assertThat(bf16.standardSuite(6)).allSatisfy(r -> assertThat(r.holds()).as(r.toString()).isTrue());
    }

    @Test
    void splitOfAnUnsplittableCutFailsWithTheRefusal() {
        LawResult r = laws.splitEquivalence(Cut.prefill(2, 4), 2);
        assertThat(r.holds()).isFalse();
        assertThat(r.explanation()).contains("CUT_NOT_SPLITTABLE");
    }

    // ------------------------------------------------------------------ the gates catch broken passes

    @Test
    void compositionCatchesAPassThatChangesOneLayerCut() {
        // a "pass" that perturbs the RMSNorm epsilon only in the layer cuts
        CutCompiler broken = (cut, p) -> cut.cliName().equals("decode-layer") ? mapExprs(p, LawsTest::bumpEps) : p;
        LawResult r = new Laws(TINY, AuthorOptions.single(), broken, new Interpreter(RunOptions.defaults())).decodeComposition(8, tokens(2));
        assertThat(r.holds()).isFalse();
        assertThat(r.explanation()).contains("first difference: step 0 logits[");
    }

    @Test
    void theLawsHoldABackendToThemToo() {
        // any Backend runs the laws: the interpreter through the interface passes, and a backend
        // that moves the first hidden value of each part program by one ULP is caught
        Backend reference = new org.stagecheck.interp.Interpreter(RunOptions.defaults());
        assertThat(new Laws(TINY, AuthorOptions.single(), CutCompiler.identity(), reference).decodeComposition(8, tokens(2)).holds()).isTrue();
        Backend sloppy = new Backend() {
            @Override
            public String name() {
                return "sloppy";
            }

            @Override
            public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
                RunResult r = reference.run(program, bound, params, trace);
                Map<String, Tensor> out = new java.util.LinkedHashMap<>(r.tensors());
                Tensor h = out.get("h_out");
                if (h != null) {
                    float[] v = h.toFloats();
                    v[0] = Math.nextUp(v[0]);
                    out.put("h_out", Tensor.fromFloats(h.dtype(), h.shape(), v));
                }
                return new RunResult(out, r.trace(), r.faults(), r.stoppedAtStage());
            }
        };
        LawResult r = new Laws(TINY, AuthorOptions.single(), CutCompiler.identity(), sloppy).decodeComposition(8, tokens(2));
        assertThat(r.holds()).as(r.toString()).isFalse();
    }

    @Test
    void prefillConsistencyCatchesAMaskThatIgnoresTheRow() {
        // the classic prefill bug: every row masked at the chunk's start position
        CutCompiler broken = (cut, p) -> cut.cliName().equals("prefill") ? mapExprs(p, LawsTest::dropRowFromMask) : p;
        LawResult r = new Laws(TINY, AuthorOptions.single(), broken, new Interpreter(RunOptions.defaults())).prefillDecodeConsistency(8, tokens(4));
        assertThat(r.holds()).as(r.toString()).isFalse();
    }

    @Test
    void batchInvarianceCatchesAStrictMask() {
        CutCompiler broken = (cut, p) -> cut.cliName().equals("batch") ? mapExprs(p, e -> swapFn(e, Fn.LE, Fn.LT)) : p;
        LawResult r = new Laws(TINY, AuthorOptions.single(), broken, new Interpreter(RunOptions.defaults()))
                .batchInvariance(8, java.util.Arrays.copyOf(HISTORIES, 3));
        assertThat(r.holds()).as(r.toString()).isFalse();
    }

    @Test
    void splitEquivalenceCatchesAnAllReduceThatKeepsOneChip() {
        CutCompiler broken = (cut, p) -> p.withStages(p.stages().stream().map(s -> s.kind() instanceof StageKind.AllReduce a
                ? new Stage(s.id(), s.site(), s.ins(), s.outs(), new StageKind.AllReduce(a.pool(), a.tensor(), new ComputeOp.Generic(Expr.in(0))))
                : s).toList());
        LawResult r = new Laws(TINY, AuthorOptions.single(), broken, new Interpreter(RunOptions.defaults())).splitEquivalence(Cut.decodeLayer(0, 4), 2);
        assertThat(r.holds()).as(r.toString()).isFalse();
    }

    @Test
    void aPassThatThrowsFailsTheLawInsteadOfCrashingIt() {
        CutCompiler throwing = (cut, p) -> {
            throw new IllegalStateException("pass bug");
        };
        LawResult r = new Laws(TINY, AuthorOptions.single(), throwing, new Interpreter(RunOptions.defaults())).forwardComposition(1);
        assertThat(r.holds()).isFalse();
        assertThat(r.explanation()).endsWith("first difference: the compiler under test threw on forward: java.lang.IllegalStateException: pass bug");
    }

    @Test
    void missingInputsFailTheSplitLaw() {
        LawResult r = laws.splitEquivalence(Cut.decode(4), 2, Map.of(), Map.of("pos", 0L));
        assertThat(r.holds()).isFalse();
        assertThat(r.explanation()).contains("no value for bound tensor 'tokens'");
    }

    // ------------------------------------------------------------------ helpers

    private static int[] tokens(int n) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) {
            t[i] = (11 * i + 5) % TINY.vocab();
        }
        return t;
    }

    private static Program mapExprs(Program p, java.util.function.UnaryOperator<Expr> f) {
        return p.withStages(p.stages().stream().map(s -> s.kind() instanceof StageKind.Compute(ComputeOp.Generic g)
                ? new Stage(s.id(), s.site(), s.ins(), s.outs(), new StageKind.Compute(new ComputeOp.Generic(f.apply(g.expr()))))
                : s).toList());
    }

    private static Expr bumpEps(Expr e) {
        return rewrite(e, x -> x instanceof Expr.FloatConst c && c.value() == TINY.normEps() ? Expr.f(0.5) : x);
    }

    private static Expr dropRowFromMask(Expr e) {
        return rewrite(e, x -> x instanceof Expr.Apply a && a.fn() == Fn.ADD
                && a.args().getFirst() instanceof Expr.ParamRef pr && a.args().get(1) instanceof Expr.Index ? a.args().getFirst() : x);
    }

    private static Expr swapFn(Expr e, Fn from, Fn to) {
        return rewrite(e, x -> x instanceof Expr.Apply a && a.fn() == from ? new Expr.Apply(to, a.args()) : x);
    }

    /** Applies {@code rule} bottom-up to every node. */
    private static Expr rewrite(Expr e, java.util.function.UnaryOperator<Expr> rule) {
        Expr inner = switch (e) {
            case Expr.Apply a -> new Expr.Apply(a.fn(), a.args().stream().map(x -> rewrite(x, rule)).toList());
            case Expr.Cast c -> new Expr.Cast(c.dtype(), rewrite(c.arg(), rule));
            case Expr.In in -> in;
            case Expr.FloatConst c -> c;
            case Expr.IntConst c -> c;
            case Expr.ParamRef pr -> pr;
            case Expr.Index ix -> ix;
        };
        return rule.apply(inner);
    }
}
