package org.stagecheck.verifier.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.corpus.TpSpec;
import org.stagecheck.verifier.fuzz.Mutation;
import org.stagecheck.verifier.fuzz.Mutator;
import org.stagecheck.verifier.shard.SplitEdits;
import org.stagecheck.verifier.soundness.Outcome;
import org.stagecheck.verifier.soundness.TpRuns;

/**
 * The classes of docs/verifier.md ("The abstract domain"), each on both sides: the right
 * pattern accepted, the wrong one rejected, and the evaluator agreeing with the verdict.
 */
class SplitPatternsTest {
    private static final List<TpSpec> SPECS = List.of(
            new TpSpec(2, 4, 8, 2, TpSpec.Act.RELU, true, true, false),
            new TpSpec(3, 6, 8, 4, TpSpec.Act.SILU, false, false, false),
            new TpSpec(1, 4, 16, 4, TpSpec.Act.TANH, true, false, true));

    private static boolean agrees(SplitEdits e) {
        for (long in = 1; in <= 4; in++) {
            if (TpRuns.run(e.asCase(), in).kind() != Outcome.Kind.AGREES) {
                return false;
            }
        }
        return true;
    }

    /** Right splits written differently: a commuted combine, a bias on one chip, a hierarchical all-reduce, a scratch round trip, another tiling, adding 0, scaling by 1. */
    @ParameterizedTest
    @EnumSource(value = Mutation.class, names = {"COMMUTE_COMBINE", "BIAS_ON_ONE_CHIP", "HIERARCHICAL", "SCRATCH_SAME", "TILE_COLUMNS", "ADD_ZERO", "SCALE_BY_ONE"})
    void a_right_split_written_differently_is_accepted_and_agrees(Mutation m) {
        int applied = 0;
        for (TpSpec s : SPECS) {
            SplitEdits e = new SplitEdits(s);
            Mutator mut = new Mutator(e, new SplittableRandom(7));
            if (!mut.fits(m)) {
                continue;
            }
            mut.apply(m);
            applied++;
            assertThat(e.verify().codes()).as("%s on %s", m, s).isEmpty();
            assertThat(agrees(e)).as("%s on %s agrees", m, s).isTrue();
        }
        assertThat(applied).isPositive();
    }

    /** Wrong splits: another window on one chip, a scaled or tanh'd partial, a dropped or wrong input, a lying certificate, a reload of an unwritten block. */
    @ParameterizedTest
    @EnumSource(value = Mutation.class, names = {"LOAD_SHIFT", "SCALE_PARTIAL", "NONLINEAR_PARTIAL", "DROP_INPUT", "REWIRE_INPUT", "CERT_SLICE", "SCRATCH_OTHER"})
    void a_wrong_split_is_rejected_and_differs(Mutation m) {
        for (TpSpec s : SPECS) {
            for (long seed = 1; seed <= 3; seed++) {
                SplitEdits e = new SplitEdits(s);
                new Mutator(e, new SplittableRandom(seed)).apply(m);
                VerifyReport r = e.verify();
                assertThat(r.holds()).as("%s on %s (seed %d)", m, s, seed).isFalse();
                assertThat(agrees(e)).as("%s on %s (seed %d) differs", m, s, seed).isFalse();
            }
        }
    }

    private static final TpSpec SQUARE = new TpSpec(3, 3, 6, 2, TpSpec.Act.TANH, false, false, false);

    /** Each chip adds the partials of two contractions (a@W2 and (2a)@W2, each tiling its own axis) before one all-reduce. */
    private static SplitEdits parallelBlock(double scaleOnChip0) {
        SplitEdits e = new SplitEdits(SQUARE);
        for (int c = 0; c < 2; c++) {
            double k = c == 0 ? scaleOnChip0 : 2.0;
            e.bufferAt("a2." + c, c, 3, 3).bufferAt("p2." + c, c, 3, 3).bufferAt("q." + c, c, 3, 3);
            e.after("mm2." + c, new Stage("scale." + c, e.computeCore(c), List.of("a." + c), List.of("a2." + c),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.f(k))))));
            e.after("scale." + c, new Stage("mm2x." + c, e.computeCore(c), List.of("a2." + c, "w2." + c), List.of("p2." + c),
                    new StageKind.Compute(ComputeOp.MatMul.plain())));
            e.after("mm2x." + c, new Stage("sum." + c, e.computeCore(c), List.of("p." + c, "p2." + c), List.of("q." + c),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1))))));
            e.rewire("allreduce_w2", "p." + c, "q." + c);
        }
        return e;
    }

    @Test
    void the_parallel_block_sums_partials_of_two_contractions_before_one_all_reduce() {
        assertThat(parallelBlock(2.0).verify().codes()).isEmpty();
        // chip 0 scales by 3: its second contraction is another one, and neither is completed
        assertThat(parallelBlock(3.0).verify().codes()).containsExactly("ALLREDUCE_VIEW_MISMATCH");
    }

    /** Chip c takes the max of its columns of h (a max-partial over its slice) and all-reduces it with {@code pool}. */
    private static SplitEdits maxOfHidden(ReducePool pool) {
        SplitEdits e = new SplitEdits(SQUARE);
        for (int c = 0; c < 2; c++) {
            e.bufferAt("m." + c, c, 3, 1).bufferAt("mx." + c, c, 3, 1);
            e.after("mm1." + c, new Stage("max." + c, e.computeCore(c), List.of("h." + c), List.of("m." + c),
                    new StageKind.Compute(new ComputeOp.Reduce(ReduceFn.MAX, 1))));
        }
        e.after("max.1", new Stage("allreduce_max", e.computeCore(0), List.of("m.0", "m.1"), List.of("mx.0", "mx.1"),
                StageKind.AllReduce.of(pool, "w1", 2)));
        return e;
    }

    @Test
    void a_max_over_a_column_shard_completed_by_a_max_all_reduce_is_the_global_max() {
        assertThat(maxOfHidden(ReducePool.MAX).verify().codes()).isEmpty();
        assertThat(maxOfHidden(ReducePool.SUM).verify().codes()).containsExactly("ALLREDUCE_POOL");
    }
}
