package org.stagecheck.verifier.domain;

import org.stagecheck.verifier.Parent;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.verifier.ObligationResult;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.corpus.Plant;
import org.stagecheck.verifier.corpus.TpCase;
import org.stagecheck.verifier.corpus.TpSpec;
import org.stagecheck.verifier.fuzz.Mutation;
import org.stagecheck.verifier.fuzz.Mutator;
import org.stagecheck.verifier.shard.SplitEdits;
import org.stagecheck.verifier.soundness.TpRuns;

/**
 * The split against its unsplit parent (docs/verifier.md, "The unsplit parent"), on both sides: a
 * split that computes the parent's program, written in another order or grouping, is accepted; one
 * that computes another program consistently on every chip (which the split alone cannot show) is
 * rejected with {@code LOGICAL_OUTPUT_DIFFERS}; the evaluator agrees with each verdict.
 */
class UnsplitParentTest {
    private static final List<TpSpec> SPECS = List.of(
            new TpSpec(2, 4, 8, 2, TpSpec.Act.RELU, true, true, false),
            new TpSpec(3, 6, 8, 4, TpSpec.Act.SILU, false, false, false),
            new TpSpec(1, 4, 16, 4, TpSpec.Act.TANH, true, false, true));
    private static final TpSpec PLAIN = new TpSpec(2, 4, 8, 2, TpSpec.Act.TANH, false, false, false);

    private static VerifyReport verify(TpCase c) {
        return new Verifier().verify(c.program(), c.certificate(), Parent.unsplit(c.unsplit()));
    }

    private static String render(VerifyReport r) {
        return r.diagnostics().stream().map(d -> d.render()).collect(Collectors.joining("\n"));
    }

    @Test
    void the_reference_split_computes_its_unsplit_program() {
        for (TpSpec s : SPECS) {
            TpCase c = new SplitEdits(s).asCase();
            VerifyReport r = verify(c);
            assertThat(r.codes()).as("%s", s).isEmpty();
            assertThat(r.obligations()).filteredOn(o -> o.obligation() == Obligation.UNREDUCED_SHARD).singleElement()
                    .extracting(ObligationResult::note).asString().contains("compared with the unsplit parent's");
            assertThat(TpRuns.agrees(c)).isTrue();
        }
    }

    /** Right splits written differently: another fold order, a bias on one chip only, a hierarchical all-reduce, a round trip, other tiles. */
    @ParameterizedTest
    @EnumSource(value = Mutation.class, names = {"COMMUTE_COMBINE", "BIAS_ON_ONE_CHIP", "HIERARCHICAL", "SCRATCH_SAME", "TILE_COLUMNS", "ADD_ZERO", "SCALE_BY_ONE"})
    void a_split_written_differently_still_computes_the_unsplit_program(Mutation m) {
        int applied = 0;
        for (TpSpec s : SPECS) {
            for (long seed = 1; seed <= 2; seed++) {
                SplitEdits e = new SplitEdits(s);
                Mutator mut = new Mutator(e, new SplittableRandom(seed));
                if (!mut.fits(m)) {
                    continue;
                }
                mut.apply(m);
                applied++;
                assertThat(verify(e.asCase()).codes()).as("%s on %s", m, s).isEmpty();
                assertThat(TpRuns.agrees(e.asCase())).as("%s on %s agrees", m, s).isTrue();
            }
        }
        assertThat(applied).isPositive();
    }

    @Test
    void a_bias_added_on_one_chip_before_the_all_reduce_and_again_after_it_is_another_program() {
        for (TpSpec s : SPECS) {
            SplitEdits e = new SplitEdits(s);
            new Mutator(e, new SplittableRandom(3)).apply(Mutation.BIAS_TWICE);
            VerifyReport alone = e.verify();
            assertThat(alone.codes()).as("without the parent the split is consistent").isEmpty();
            assertThat(alone.obligations()).filteredOn(o -> o.obligation() == Obligation.UNREDUCED_SHARD).singleElement()
                    .extracting(ObligationResult::note).asString().contains("the logical program was NOT checked");
            VerifyReport withParent = verify(e.asCase());
            assertThat(withParent.codes()).as("%s", s).isNotEmpty().containsOnly("LOGICAL_OUTPUT_DIFFERS").hasSize(s.tp());
            assertThat(TpRuns.agrees(e.asCase())).isFalse();
        }
    }

    @Test
    void the_finding_names_the_extra_summand_and_the_stage_that_added_it() {
        SplitEdits e = new SplitEdits(PLAIN);
        new Mutator(e, new SplittableRandom(3)).apply(Mutation.BIAS_TWICE);
        assertThat(render(verify(e.asCase())).lines().limit(2).collect(Collectors.joining("\n"))).isEqualTo("""
                LOGICAL_OUTPUT_DIFFERS stage #19 'st_y.0' at /stages/19/ins/0: Tensor 'y.0' (chip 0) stands for the unsplit program's output tensor 'y', but its store [0:+2, 0:+4] holds sum(tanh(x @ w1) @ w2, b2, b2) where the unsplit program's holds sum(tanh(x @ w1) @ w2, b2) (summands the split adds: b2; summands it leaves out: none): the split computes another program.
                    via #16 add_b2.0: computes sum(tanh(x @ w1) @ w2, b2, b2), which the unsplit program never computes""");
    }

    /** Every chip scales its partial by 2 before the sum all-reduce: consistent, and twice the product. */
    @Test
    void a_scale_on_every_chip_before_a_sum_all_reduce_is_another_program() {
        for (TpSpec s : SPECS) {
            SplitEdits e = new SplitEdits(s);
            String producer = s.streamK() ? "mm2b." : "mm2.";
            for (int c = 0; c < s.tp(); c++) {
                e.bufferAt("q." + c, c, s.rows(), s.model());
                e.after(producer + c, new Stage("scale." + c, e.computeCore(c), List.of("p." + c), List.of("q." + c),
                        new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.f(2.0))))));
                e.rewire("allreduce_w2", "p." + c, "q." + c);
            }
            assertThat(e.verify().codes()).as("consistent without the parent").isEmpty();
            assertThat(verify(e.asCase()).codes()).as("%s", s).containsOnly("LOGICAL_OUTPUT_DIFFERS").hasSize(s.tp());
            assertThat(TpRuns.agrees(e.asCase())).isFalse();
        }
    }

    // ------------------------------------------------------------------ a residual: y = x W + b2 + x

    /** The unsplit program with {@code o = (r + b2) + x}. */
    private static Program unsplitWithResidual(TpSpec s) {
        return replace(new SplitEdits(s).asCase().unsplit(), "add_b2.0", ins -> List.of(ins.get(0), ins.get(1), "x.0"),
                Expr.apply(Fn.ADD, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), Expr.in(2)));
    }

    /** The split where every chip computes its output bias and residual with {@code expr} over (r, b2, x). */
    private static TpCase splitWithResidual(TpSpec s, Expr expr) {
        SplitEdits e = new SplitEdits(s);
        for (int c = 0; c < s.tp(); c++) {
            int chip = c;
            Stage old = e.stages().stream().filter(st -> st.id().equals("add_b2." + chip)).findFirst().orElseThrow();
            e.stages().set(e.stages().indexOf(old), new Stage(old.id(), old.site(), List.of(old.ins().get(0), old.ins().get(1), "x." + c), old.outs(),
                    new StageKind.Compute(new ComputeOp.Generic(expr))));
        }
        TpCase c = e.asCase();
        return new TpCase(c.spec(), Plant.NONE, c.program(), c.certificate(), null, unsplitWithResidual(s));
    }

    @Test
    void a_re_associated_and_commuted_sum_is_the_same_program() {
        // b2 + (x + r) where the parent computes (r + b2) + x
        TpCase c = splitWithResidual(PLAIN, Expr.apply(Fn.ADD, Expr.in(1), Expr.apply(Fn.ADD, Expr.in(2), Expr.in(0))));
        assertThat(verify(c).codes()).isEmpty();
        assertThat(TpRuns.agrees(c)).isTrue();
    }

    @Test
    void a_residual_added_twice_or_dropped_is_another_program() {
        TpCase twice = splitWithResidual(PLAIN, Expr.apply(Fn.ADD, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)), Expr.apply(Fn.ADD, Expr.in(2), Expr.in(2))));
        assertThat(verify(twice).codes()).containsExactly("LOGICAL_OUTPUT_DIFFERS", "LOGICAL_OUTPUT_DIFFERS");
        assertThat(render(verify(twice))).contains("summands the split adds: x; summands it leaves out: none");
        assertThat(TpRuns.agrees(twice)).isFalse();

        TpCase dropped = splitWithResidual(PLAIN, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)));
        assertThat(verify(dropped).codes()).containsExactly("LOGICAL_OUTPUT_DIFFERS", "LOGICAL_OUTPUT_DIFFERS");
        assertThat(render(verify(dropped))).contains("summands the split adds: none; summands it leaves out: x");
        assertThat(TpRuns.agrees(dropped)).isFalse();
    }

    @Test
    void an_output_the_split_does_not_produce_is_a_finding() {
        SplitEdits e = new SplitEdits(PLAIN);
        List<ShardDecl> d = e.shards();
        for (int i = 0; i < d.size(); i++) {
            ShardDecl old = d.get(i);
            if (old.logical().equals("y")) {
                d.set(i, new ShardDecl(old.tensor(), "z", old.axis(), old.start(), old.end(), old.extent()));
            }
        }
        VerifyReport r = verify(e.asCase());
        // the certificate names a logical tensor the parent lacks (once per chip), y has no counterpart, and each z.c is an output the parent lacks
        assertThat(r.codes()).containsExactly("SHARD_DECL_UNKNOWN_TENSOR", "SHARD_DECL_UNKNOWN_TENSOR",
                "LOGICAL_OUTPUT_DIFFERS", "LOGICAL_OUTPUT_DIFFERS", "LOGICAL_OUTPUT_DIFFERS");
        assertThat(r.diagnostics()).anySatisfy(f -> assertThat(f.message()).contains("'y' has no counterpart in the split"));
        assertThat(r.diagnostics()).anySatisfy(f -> assertThat(f.message()).contains("the unsplit program has no output or state tensor 'z'"));
    }

    @Test
    void an_ill_formed_unsplit_parent_is_a_finding_and_nothing_is_compared() {
        TpCase c = new SplitEdits(PLAIN).asCase();
        Program broken = replace(c.unsplit(), "add_b2.0", ins -> List.of(ins.get(0), "nowhere"), Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)));
        VerifyReport r = new Verifier().verify(c.program(), c.certificate(), Parent.unsplit(broken));
        assertThat(r.codes()).containsExactly("UNSPLIT_PARENT_INVALID");
        assertThat(r.obligations()).filteredOn(o -> o.obligation() == Obligation.UNREDUCED_SHARD).singleElement()
                .extracting(ObligationResult::note).asString().contains("the logical program was NOT checked");
    }

    @Test
    void a_parent_given_as_a_remap_parent_is_compared_as_one() {
        TpCase c = new SplitEdits(PLAIN).asCase();
        VerifyReport r = new Verifier().verify(c.program(), c.certificate(), Parent.remap(c.program()));
        assertThat(r.codes()).isEmpty();
        assertThat(r.obligations()).filteredOn(o -> o.obligation() == Obligation.BUFFER_REMAP).singleElement()
                .extracting(ObligationResult::note).asString().contains("compared with the parent");
    }

    /** {@code p} with stage {@code id}'s inputs mapped by {@code ins} and its op replaced by the Generic {@code expr}. */
    private static Program replace(Program p, String id, java.util.function.UnaryOperator<List<String>> ins, Expr expr) {
        List<Stage> stages = new ArrayList<>(p.stages());
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            if (s.id().equals(id)) {
                stages.set(i, new Stage(s.id(), s.site(), ins.apply(s.ins()), s.outs(), new StageKind.Compute(new ComputeOp.Generic(expr))));
            }
        }
        return p.withStages(stages);
    }
}
