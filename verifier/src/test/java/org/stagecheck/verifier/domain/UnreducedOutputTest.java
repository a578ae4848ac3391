package org.stagecheck.verifier.domain;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.corpus.TpBinding;
import org.stagecheck.verifier.corpus.TpSpec;
import org.stagecheck.verifier.shard.SplitEdits;
import org.stagecheck.verifier.soundness.Compare;
import org.stagecheck.verifier.soundness.Outcome;
import org.stagecheck.verifier.soundness.TpRuns;

/**
 * A chip's share of a split contraction reaching an output, checked without a parent
 * (docs/verifier.md, "Unreduced outputs"): when chip 0's y is the only output, nothing compares it
 * with another chip's, so before {@code UNREDUCED_OUTPUT} a chip storing its own partial (or a
 * non-linear function of it) was accepted. Each verdict is judged on the evaluator: chip 0's y
 * against the unsplit program's y on the same inputs.
 */
class UnreducedOutputTest {
    private static final TpSpec SPEC = new TpSpec(2, 4, 8, 2, TpSpec.Act.TANH, false, false, false);
    private static final Interpreter INTERPRETER = new Interpreter(RunOptions.defaults().withThreads(1));

    /** The reference split with chip 1's output (its tensor, store and declaration) and the stages in {@code drop} removed. */
    private record OnlyChip0(Program program, Certificate certificate, Program unsplit) {
        static OnlyChip0 of(SplitEdits e, List<String> drop) {
            Program p = e.program();
            Predicate<String> kept = id -> !drop.contains(id) && !id.equals("st_y.1");
            Program program = new Program(p.name(), p.machine(), p.params(), p.tensors().stream().filter(t -> !t.name().equals("y.1")).toList(),
                    p.buffers(), p.groups(), p.stages().stream().filter(s -> kept.test(s.id())).toList());
            Certificate c = e.certificate();
            Certificate cert = new Certificate(c.shards().stream().filter(d -> !d.tensor().equals("y.1")).toList(), c.remap(), c.claims());
            return new OnlyChip0(program, cert, e.asCase().unsplit());
        }

        VerifyReport alone() {
            return new Verifier().verify(program, certificate, Parent.none());
        }

        VerifyReport withParent() {
            return new Verifier().verify(program, certificate, Parent.unsplit(unsplit));
        }

        /** Chip 0's y against the unsplit y, on the inputs of seeds 1 to 3: the worst. */
        Outcome evaluator() {
            Outcome worst = null;
            for (long seed = 1; seed <= 3; seed++) {
                Map<String, Tensor> logical = TpBinding.logical(SPEC, seed);
                RunResult reference = INTERPRETER.run(unsplit, logical, Map.of());
                RunResult split = INTERPRETER.run(program, TpBinding.split(SPEC, program, certificate, logical), Map.of());
                Outcome o = Compare.outputs(reference, split, Map.of("y", "y.0"), TpRuns.RELATIVE_TOLERANCE);
                if (worst == null || o.kind() != Outcome.Kind.AGREES) {
                    worst = o;
                }
            }
            return worst;
        }
    }

    /** Chip 0 stores {@code op(p.0)} as y with no all-reduce (chip 1 computes its partial and drops it). */
    private static OnlyChip0 storesItsOwnPartial(Fn op) {
        SplitEdits e = new SplitEdits(SPEC);
        String stored = "p.0";
        if (op != null) {
            e.bufferAt("q.0", 0, SPEC.rows(), SPEC.model());
            e.after("mm2.0", new Stage("f_p.0", e.computeCore(0), List.of("p.0"), List.of("q.0"),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(op, Expr.in(0))))));
            stored = "q.0";
        }
        e.rewire("st_y.0", "o.0", stored);
        return OnlyChip0.of(e, List.of("allreduce_w2", "add_b2.0", "add_b2.1"));
    }

    @Test
    void a_right_split_whose_only_output_is_chip_0s_is_accepted() {
        OnlyChip0 c = OnlyChip0.of(new SplitEdits(SPEC), List.of());
        assertThat(c.alone().codes()).isEmpty();
        assertThat(c.withParent().codes()).isEmpty();
        assertThat(c.evaluator().kind()).isEqualTo(Outcome.Kind.AGREES);
    }

    @Test
    void a_chip_storing_a_non_linear_function_of_its_own_partial_as_the_only_output_is_unreduced_output() {
        OnlyChip0 c = storesItsOwnPartial(Fn.TANH);
        VerifyReport alone = c.alone();
        assertThat(alone.codes()).containsExactly("UNREDUCED_OUTPUT");
        Diagnostic d = alone.diagnostics().getFirst();
        assertThat(d.stageId()).isEqualTo("st_y.0");
        assertThat(d.field()).matches("/stages/\\d+/ins/0");
        assertThat(d.buffer()).isEqualTo("q.0");
        assertThat(d.message()).contains("Tensor 'y.0' (chip 0) is an output").contains("f_p.0");
        assertThat(String.join("\n", d.trail())).contains("mm2.0").contains("f_p.0").contains("st_y.0");
        assertThat(c.withParent().codes()).contains("UNREDUCED_OUTPUT");
        assertThat(c.evaluator().kind()).isEqualTo(Outcome.Kind.DIFFERS);
    }

    @Test
    void a_chip_storing_its_own_partial_unreduced_as_the_only_output_is_unreduced_output() {
        OnlyChip0 c = storesItsOwnPartial(null);
        VerifyReport alone = c.alone();
        assertThat(alone.codes()).containsExactly("UNREDUCED_OUTPUT");
        assertThat(alone.diagnostics().getFirst().stageId()).isEqualTo("st_y.0");
        assertThat(c.evaluator().kind()).isEqualTo(Outcome.Kind.DIFFERS);
    }

    @Test
    void a_linear_op_on_the_partial_before_the_all_reduce_is_still_accepted() {
        // every chip scales its partial by 1 (an elementwise op, linear in it) before the all-reduce completes it
        SplitEdits e = new SplitEdits(SPEC);
        for (int c = 0; c < 2; c++) {
            e.bufferAt("q." + c, c, SPEC.rows(), SPEC.model());
            e.after("mm2." + c, new Stage("neg_p." + c, e.computeCore(c), List.of("p." + c), List.of("q." + c),
                    new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.f(1.0))))));
            e.rewire("allreduce_w2", "p." + c, "q." + c);
        }
        OnlyChip0 c = OnlyChip0.of(e, List.of());
        assertThat(c.alone().codes()).isEmpty();
        assertThat(c.evaluator().kind()).isEqualTo(Outcome.Kind.AGREES);
    }
}
