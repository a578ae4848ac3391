package org.stagecheck.verifier.domain;

import org.stagecheck.verifier.Parent;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpSpec;
import org.stagecheck.verifier.shard.SplitEdits;
import org.stagecheck.verifier.soundness.TpRuns;

/**
 * Siblings of the bias-added-twice class (docs/verifier.md, "Sibling rewrites"): rewrites that
 * every chip makes the same way, written by hand, each judged on the evaluator (split against
 * unsplit) and by the checker given the unsplit parent. The model: {@code y = act(x W1) W2 + b2 + m},
 * {@code m} the row maximum of the hidden activation {@code h = x W1}, which the split computes as
 * a max over each chip's columns completed by a max all-reduce.
 */
class SiblingRewritesTest {
    private static final TpSpec S = new TpSpec(2, 4, 8, 2, TpSpec.Act.TANH, false, false, false);

    /** How each chip turns its row maximum {@code m.c} into what it max-all-reduces, and the all-reduce's pool. */
    private record MaxPath(Expr beforeReduce, ReducePool pool) {}

    private static TpCase withRowMax(MaxPath path) {
        SplitEdits e = new SplitEdits(S);
        for (int c = 0; c < S.tp(); c++) {
            e.bufferAt("m." + c, c, S.rows(), 1).bufferAt("mt." + c, c, S.rows(), 1).bufferAt("mx." + c, c, S.rows(), 1);
            e.after("mm1." + c, new Stage("rowmax." + c, e.computeCore(c), List.of("h." + c), List.of("m." + c),
                    new StageKind.Compute(new ComputeOp.Reduce(ReduceFn.MAX, 1))));
            e.after("rowmax." + c, new Stage("pre." + c, e.computeCore(c), List.of("m." + c), List.of("mt." + c),
                    new StageKind.Compute(new ComputeOp.Generic(path.beforeReduce()))));
        }
        e.after("allreduce_w2", new Stage("allreduce_max", e.computeCore(0), List.of("mt.0", "mt.1"), List.of("mx.0", "mx.1"),
                StageKind.AllReduce.of(path.pool(), "w1", 2)));
        for (int c = 0; c < S.tp(); c++) {
            int chip = c;
            Stage old = e.stages().stream().filter(st -> st.id().equals("add_b2." + chip)).findFirst().orElseThrow();
            e.stages().set(e.stages().indexOf(old), new Stage(old.id(), old.site(), List.of(old.ins().get(0), old.ins().get(1), "mx." + c), old.outs(),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), Expr.in(2))))));
        }
        TpCase c = e.asCase();
        return new TpCase(S, Plant.NONE, c.program(), c.certificate(), null, unsplitWithRowMax(c.unsplit()));
    }

    /** The unsplit program with {@code o = r + b2 + max(h, axis 1)}. */
    private static Program unsplitWithRowMax(Program p) {
        Site core = p.stages().getFirst().site();
        List<BufferDecl> buffers = new ArrayList<>(p.buffers());
        buffers.add(new BufferDecl("m.0", DType.F32, Shape.of(S.rows(), 1), core));
        List<Stage> stages = new ArrayList<>();
        for (Stage s : p.stages()) {
            if (s.id().equals("add_b2.0")) {
                stages.add(new Stage(s.id(), s.site(), List.of(s.ins().get(0), s.ins().get(1), "m.0"), s.outs(),
                        new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), Expr.in(2))))));
                continue;
            }
            stages.add(s);
            if (s.id().equals("mm1.0")) {
                stages.add(new Stage("rowmax.0", s.site(), List.of("h.0"), List.of("m.0"), new StageKind.Compute(new ComputeOp.Reduce(ReduceFn.MAX, 1))));
            }
        }
        return p.withBuffers(buffers).withStages(stages);
    }

    private static VerifyReport verify(TpCase c) {
        return new Verifier().verify(c.program(), c.certificate(), Parent.unsplit(c.unsplit()));
    }

    @Test
    void a_max_over_each_chips_columns_completed_by_a_max_all_reduce_is_the_row_max() {
        TpCase right = withRowMax(new MaxPath(Expr.in(0), ReducePool.MAX));
        assertThat(verify(right).codes()).as(verify(right).diagnostics().toString()).isEmpty();
        assertThat(TpRuns.agrees(right)).isTrue();
    }

    @Test
    void a_negated_max_partial_under_a_max_all_reduce_is_not_a_max_partial() {
        // every chip: max(-m_c) over chips = -min_c m_c, not anything the unsplit program computes;
        // -m_c is a min-partial (negation is decreasing), which a max all-reduce does not complete
        TpCase wrong = withRowMax(new MaxPath(Expr.apply(Fn.NEG, Expr.in(0)), ReducePool.MAX));
        assertThat(verify(wrong).codes()).containsExactly("ALLREDUCE_POOL");
        assertThat(TpRuns.agrees(wrong)).isFalse();
    }

    @Test
    void a_max_partial_summed_by_a_sum_all_reduce_is_rejected() {
        TpCase wrong = withRowMax(new MaxPath(Expr.in(0), ReducePool.SUM));
        assertThat(verify(wrong).codes()).containsExactly("ALLREDUCE_POOL");
        assertThat(TpRuns.agrees(wrong)).isFalse();
    }

    @Test
    void a_max_partial_scaled_on_every_chip_before_the_max_all_reduce_is_rejected() {
        // 2 * max(h_c) on every chip is consistent (a positive scale is increasing), and 2 * max(h) is another program
        TpCase scaled = withRowMax(new MaxPath(Expr.apply(Fn.MUL, Expr.in(0), Expr.f(2.0)), ReducePool.MAX));
        assertThat(verify(scaled).codes()).containsOnly("LOGICAL_OUTPUT_DIFFERS");
        assertThat(TpRuns.agrees(scaled)).isFalse();
    }

    @Test
    void a_full_value_added_to_the_max_partial_on_every_chip_is_the_max_plus_it() {
        // max_c(m_c + 1) = max(h) + 1: consistent (accepted alone), right for another program, and the parent shows it
        TpCase shifted = withRowMax(new MaxPath(Expr.apply(Fn.ADD, Expr.in(0), Expr.f(1.0)), ReducePool.MAX));
        assertThat(new Verifier().verify(shifted.program(), shifted.certificate(), Parent.none()).holds()).as("the split alone").isTrue();
        assertThat(verify(shifted).codes()).containsOnly("LOGICAL_OUTPUT_DIFFERS");
        assertThat(TpRuns.agrees(shifted)).isFalse();
    }

    /** Each chip joins its partial with x (a full value) and takes one half back before the all-reduce. */
    private static TpCase concatThenSlice(int takeFrom) {
        SplitEdits e = new SplitEdits(S);
        for (int c = 0; c < S.tp(); c++) {
            e.bufferAt("cat." + c, c, S.rows(), 2 * S.model()).bufferAt("q." + c, c, S.rows(), S.model());
            e.after("mm2." + c, new Stage("cat." + c, e.computeCore(c), List.of("x." + c, "p." + c), List.of("cat." + c),
                    new StageKind.Compute(new ComputeOp.Concat(1))));
            e.after("cat." + c, new Stage("take." + c, e.computeCore(c), List.of("cat." + c), List.of("q." + c),
                    new StageKind.Compute(new ComputeOp.Slice(List.of(0, takeFrom)))));
            e.rewire("allreduce_w2", "p." + c, "q." + c);
        }
        return e.asCase();
    }

    /**
     * A documented limit (docs/verifier.md, "What the checker does not prove"): a partial's summands
     * are not tracked per region, so x joined to the partial stays a whole summand of the half that
     * holds only the partial. The right program is rejected (never a wrong one accepted).
     */
    @Test
    void a_concat_with_a_full_value_then_sliced_back_is_rejected_though_right_and_the_full_half_is_rejected() {
        TpCase right = concatThenSlice(S.model());
        assertThat(verify(right).codes()).containsExactly("PARTIAL_PLUS_FULL");
        assertThat(TpRuns.agrees(right)).isTrue();
        TpCase wrong = concatThenSlice(0); // x, a full value, summed once per chip
        assertThat(verify(wrong).codes()).containsExactly("PARTIAL_PLUS_FULL");
        assertThat(TpRuns.agrees(wrong)).isFalse();
    }
}
