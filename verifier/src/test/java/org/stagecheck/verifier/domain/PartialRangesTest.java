package org.stagecheck.verifier.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ProgramBuilder;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;

/**
 * Partials rounded to a format whose range they can exceed (docs/verifier.md, "Ranges of
 * partials"), on {@code y = act(x) @ w} with the contraction (4 long) split over 2 chips, two
 * elements per chip, and the output rounded to f16 or e4m3 by its tensor's dtype in the parent and
 * the split alike (so significand bits, {@code PRECISION_NARROWED}, see no difference). Each
 * verdict is judged on the evaluator with inputs chosen to leave the format's range in a partial
 * while the sum stays inside it.
 */
class PartialRangesTest {
    private static final Interpreter INTERPRETER = new Interpreter(RunOptions.defaults().withThreads(1));

    /**
     * @param partial    the dtype of each chip's partial buffer (the all-reduce sums in f32)
     * @param castTo     when not null, the partial is kept in f32 and cast to this format by an expression before the all-reduce
     * @param output     the output tensor's dtype (parent and split)
     * @param weight     the weight tensor's dtype (parent and split)
     * @param tanh       whether x goes through tanh first (bounding it by 1)
     */
    private record Case(DType partial, DType castTo, DType output, DType weight, boolean tanh) {
        Program split() {
            ProgramBuilder b = new ProgramBuilder("ranges-split", new Machine(2, 1, 1));
            List<String> partials = new ArrayList<>();
            List<String> sums = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                Site core = new Site(c, 0, 0);
                b.tensor(new TensorDecl("x." + c, DType.F32, Shape.of(2, 2), c, TensorRole.INPUT));
                b.tensor(new TensorDecl("w." + c, weight, Shape.of(2, 2), c, TensorRole.WEIGHT));
                b.tensor(new TensorDecl("y." + c, output, Shape.of(2, 2), c, TensorRole.OUTPUT));
                DType sumType = castTo == null ? partial : DType.F32;
                b.buffer("x." + c, DType.F32, core, 2, 2).buffer("w." + c, weight, core, 2, 2).buffer("r." + c, sumType, core, 2, 2);
                b.load("ld_x." + c, core, "x." + c, "x." + c, null, new long[] {0, 0}, 2, 2);
                b.load("ld_w." + c, core, "w." + c, "w." + c, null, new long[] {0, 0}, 2, 2);
                String a = "x." + c;
                if (tanh) {
                    b.buffer("a." + c, DType.F32, core, 2, 2);
                    b.generic("tanh." + c, core, List.of(a), "a." + c, Expr.apply(Fn.TANH, Expr.in(0)));
                    a = "a." + c;
                }
                b.buffer("p." + c, castTo == null ? partial : DType.F32, core, 2, 2);
                b.matmul("mm." + c, core, a, "w." + c, "p." + c, null, null);
                String reduced = "p." + c;
                if (castTo != null) {
                    b.buffer("q." + c, DType.F32, core, 2, 2);
                    b.generic("round." + c, core, List.of("p." + c), "q." + c, new Expr.Cast(castTo, Expr.in(0)));
                    reduced = "q." + c;
                }
                partials.add(reduced);
                sums.add("r." + c);
            }
            b.stage("allreduce", new Site(0, 0, 0), partials, sums, StageKind.AllReduce.of(ReducePool.SUM, "w", 2));
            for (int c = 0; c < 2; c++) {
                Site core = new Site(c, 0, 0);
                String out = "r." + c;
                // the sum rounded to the output's format by a copy into a buffer of that dtype, as the parent does
                b.buffer("o." + c, output, core, 2, 2);
                b.generic("out." + c, core, List.of(out), "o." + c, Expr.in(0));
                b.store("st_y." + c, core, "o." + c, "y." + c, 2, 2);
            }
            return b.build();
        }

        Certificate certificate() {
            List<ShardDecl> shards = new ArrayList<>();
            for (int c = 0; c < 2; c++) {
                shards.add(new ShardDecl("x." + c, "x", 1, 2L * c, 2L * c + 2, 4));
                shards.add(new ShardDecl("w." + c, "w", 0, 2L * c, 2L * c + 2, 4));
                shards.add(new ShardDecl("y." + c, "y", 0, 0, 2, 2));
            }
            return new Certificate(shards, null, List.of(Obligation.UNREDUCED_SHARD));
        }

        /** The unsplit program: the whole contraction in f32, or (roundsPartials) its two halves each rounded to {@code partial} first. */
        Program parent(boolean roundsPartials) {
            ProgramBuilder b = new ProgramBuilder("ranges-unsplit", new Machine(1, 1, 1));
            Site core = new Site(0, 0, 0);
            b.tensor("x", DType.F32, TensorRole.INPUT, 2, 4).tensor("w", weight, TensorRole.WEIGHT, 4, 2).tensor("y", output, TensorRole.OUTPUT, 2, 2);
            b.buffer("x", DType.F32, core, 2, 4).buffer("w", weight, core, 4, 2).buffer("s", DType.F32, core, 2, 2).buffer("o", output, core, 2, 2);
            b.load("ld_x", core, "x", "x", null, new long[] {0, 0}, 2, 4);
            b.load("ld_w", core, "w", "w", null, new long[] {0, 0}, 4, 2);
            String a = "x";
            if (tanh) {
                b.buffer("a", DType.F32, core, 2, 4);
                b.generic("tanh", core, List.of("x"), "a", Expr.apply(Fn.TANH, Expr.in(0)));
                a = "a";
            }
            if (roundsPartials) {
                for (int k = 0; k < 2; k++) {
                    b.buffer("a" + k, DType.F32, core, 2, 2).buffer("w" + k, weight, core, 2, 2).buffer("p" + k, partial, core, 2, 2);
                    b.stage("sl_a" + k, core, List.of(a), List.of("a" + k), new StageKind.Compute(new org.stagecheck.spec.ir.ComputeOp.Slice(List.of(0, 2 * k))));
                    b.stage("sl_w" + k, core, List.of("w"), List.of("w" + k), new StageKind.Compute(new org.stagecheck.spec.ir.ComputeOp.Slice(List.of(2 * k, 0))));
                    b.matmul("mm" + k, core, "a" + k, "w" + k, "p" + k, null, null);
                }
                b.generic("add", core, List.of("p0", "p1"), "s", Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)));
            } else {
                b.matmul("mm", core, a, "w", "s", null, null);
            }
            b.generic("out", core, List.of("s"), "o", Expr.in(0));
            b.store("st_y", core, "o", "y", 2, 2);
            return b.build();
        }

        VerifyReport verify(Program parent) {
            return new Verifier().verify(split(), certificate(), Parent.unsplit(parent));
        }

        /** y[0,0] of the parent and of the split's y.0 on inputs whose rows of x are {@code x} and columns of w are {@code w}. */
        double[] run(Program parent, float[] x, float[] w) {
            float[] xs = new float[8];
            float[] ws = new float[8];
            for (int k = 0; k < 4; k++) {
                xs[k] = x[k];
                xs[4 + k] = x[k];
                ws[2 * k] = w[k];
                ws[2 * k + 1] = w[k];
            }
            RunResult ref = INTERPRETER.run(parent, Map.of("x", Tensor.fromFloats(DType.F32, Shape.of(2, 4), xs),
                    "w", Tensor.fromFloats(weight, Shape.of(4, 2), ws)), Map.of());
            Map<String, Tensor> bound = new LinkedHashMap<>();
            for (int c = 0; c < 2; c++) {
                bound.put("x." + c, Tensor.fromFloats(DType.F32, Shape.of(2, 2), new float[] {x[2 * c], x[2 * c + 1], x[2 * c], x[2 * c + 1]}));
                bound.put("w." + c, Tensor.fromFloats(weight, Shape.of(2, 2), new float[] {w[2 * c], w[2 * c], w[2 * c + 1], w[2 * c + 1]}));
            }
            RunResult split = INTERPRETER.run(split(), bound, Map.of());
            assertThat(ref.ok()).as("the parent runs").isTrue();
            return new double[] {ref.tensor("y").getDouble(0), split.ok() ? split.tensor("y.0").getDouble(0) : Double.NaN};
        }
    }

    private static final float[] ONES = {1, 1, 1, 1};
    /** With x all ones, partials 70000 and -60000: the first past f16's 65504, their sum 10000 well inside. */
    private static final float[] PAST_F16 = {35000, 35000, -30000, -30000};

    @Test
    void f32_partials_summed_then_rounded_to_f16_as_the_parent_rounds_are_accepted() {
        Case c = new Case(DType.F32, null, DType.F16, DType.F32, false);
        assertThat(c.verify(c.parent(false)).codes()).as("%s", c.verify(c.parent(false)).diagnostics()).isEmpty();
        double[] y = c.run(c.parent(false), ONES, PAST_F16);
        assertThat(y[1]).isEqualTo(y[0]).isEqualTo(10000);
    }

    @Test
    void partials_rounded_to_f16_before_the_sum_overflow_where_the_parent_rounds_only_the_sum() {
        Case c = new Case(DType.F16, null, DType.F16, DType.F32, false);
        VerifyReport r = c.verify(c.parent(false));
        assertThat(r.codes()).containsOnly("PARTIAL_RANGE_NARROWED");
        Diagnostic d = r.diagnostics().getFirst();
        assertThat(d.stageId()).isEqualTo("mm.0");
        assertThat(d.field()).matches("/stages/\\d+/outs/0");
        assertThat(d.message()).contains("partial of w over [0,2)").contains("f16").contains("overflows to infinity past 65504");
        // before the range rule: f16 on both sides, so the significand check is silent
        assertThat(new Verifier().verify(c.split(), c.certificate(), Parent.unsplit(c.parent(false))).codes()).doesNotContain("PRECISION_NARROWED");
        double[] y = c.run(c.parent(false), ONES, PAST_F16);
        assertThat(y[0]).isEqualTo(10000);
        assertThat(y[1]).as("the split's y").isNotEqualTo(y[0]);
    }

    @Test
    void a_cast_of_the_partial_to_f16_in_an_expression_is_the_same_finding() {
        Case c = new Case(null, DType.F16, DType.F16, DType.F32, false);
        VerifyReport r = c.verify(c.parent(false));
        assertThat(r.codes()).containsOnly("PARTIAL_RANGE_NARROWED");
        assertThat(r.diagnostics().getFirst().stageId()).isEqualTo("round.0");
        double[] y = c.run(c.parent(false), ONES, PAST_F16);
        assertThat(y[1]).isNotEqualTo(y[0]);
    }

    @Test
    void partials_saturated_at_e4m3s_448_before_the_sum_are_a_finding() {
        Case c = new Case(DType.E4M3, null, DType.E4M3, DType.F32, false);
        VerifyReport r = c.verify(c.parent(false));
        assertThat(r.codes()).containsOnly("PARTIAL_RANGE_NARROWED");
        assertThat(r.diagnostics().getFirst().message()).contains("saturates at 448");
        // 500 saturates to 448 and -100 rounds to -96: 352, where the parent rounds 400 to 384
        double[] y = c.run(c.parent(false), ONES, new float[] {250, 250, -50, -50});
        assertThat(y[0]).isEqualTo(384);
        assertThat(y[1]).isEqualTo(352);
    }

    @Test
    void partials_the_parent_rounds_the_same_way_are_accepted() {
        Case c = new Case(DType.F16, null, DType.F16, DType.F32, false);
        Program parent = c.parent(true);
        assertThat(c.verify(parent).codes()).isEmpty();
        double[] y = c.run(parent, ONES, new float[] {1, 2, 2, 3});
        assertThat(y[1]).isEqualTo(y[0]).isEqualTo(8);
        double[] past = c.run(parent, ONES, PAST_F16);
        assertThat(past[1]).isEqualTo(past[0]).isInfinite();
    }

    @Test
    void a_partial_whose_range_fits_the_format_is_accepted() {
        // tanh bounds x by 1 and the e4m3 weight by 448: each partial (2 products) lies within 896, inside f16
        Case c = new Case(DType.F16, null, DType.F16, DType.E4M3, true);
        assertThat(c.verify(c.parent(false)).codes()).as("%s", c.verify(c.parent(false)).diagnostics()).isEmpty();
        // and e4m3 weights with f32 inputs (no tanh) can leave f16: the finding
        Case wide = new Case(DType.F16, null, DType.F16, DType.E4M3, false);
        assertThat(wide.verify(wide.parent(false)).codes()).containsOnly("PARTIAL_RANGE_NARROWED");
        double[] y = wide.run(wide.parent(false), new float[] {200, 0, -150, 0}, new float[] {448, 448, 448, 448});
        assertThat(y[0]).isEqualTo(22400);
        assertThat(y[1]).as("89600 overflows f16 on chip 0").isNotEqualTo(y[0]);
        double[] exact = c.run(c.parent(false), new float[] {20, 20, -20, -20}, new float[] {224, 224, 128, 128});
        assertThat(exact[1]).isEqualTo(exact[0]).isEqualTo(192);
    }
}
