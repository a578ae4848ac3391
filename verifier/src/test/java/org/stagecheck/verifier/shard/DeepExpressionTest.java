package org.stagecheck.verifier.shard;

import org.stagecheck.verifier.Parent;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.Verifier;

/**
 * Review finding 5 (a crash): a Generic expression nested 200 000 deep (negations of a partial)
 * overflowed the checker's stack, and the {@link StackOverflowError}, not a
 * {@code RuntimeException}, escaped {@code verify}. Now {@code EXPR_TOO_DEEP} at each such stage
 * (the rest of the program is still checked), and from the remap proof's expression equality too.
 */
class DeepExpressionTest {

    private static SplitEdits negatedPartials(int depth) {
        Expr e = Expr.in(0);
        for (int i = 0; i < depth; i++) {
            e = Expr.apply(Fn.NEG, e);
        }
        SplitEdits s = new SplitEdits(SplitEdits.SQUARE);
        for (int c = 0; c < 2; c++) {
            s.buffer("pt." + c, c, 3, 3).compute("mm2." + c, "neg." + c, c, List.of("p." + c), "pt." + c, new ComputeOp.Generic(e))
                    .rewire("allreduce_w2", "p." + c, "pt." + c);
        }
        return s;
    }

    @Test
    void a_too_deep_expression_is_a_finding_at_its_stage_not_an_escaping_error() {
        SplitEdits s = negatedPartials(200_000);
        VerifyReport[] r = new VerifyReport[1];
        assertThatCode(() -> r[0] = s.verify()).doesNotThrowAnyException();
        // once per deep stage from the validation (which names the stage), once per chip's stage for UnreducedShard
        assertThat(r[0].codes()).containsExactly("EXPR_TOO_DEEP", "EXPR_TOO_DEEP", "EXPR_TOO_DEEP", "EXPR_TOO_DEEP");
        assertThat(r[0].diagnostics()).extracting(d -> d.stageId()).contains("neg.0", "neg.1");
        assertThat(r[0].holds()).isFalse();

        VerifyReport againstItself = new Verifier().verify(s.program(), s.certificate(), Parent.remap(s.program()));
        assertThat(againstItself.codes()).contains("EXPR_TOO_DEEP").doesNotContain("CHECKER_FAULT");
    }

    /**
     * A certificate naming a program hash: the hash is written from the program, so the too-deep
     * expression stops UnreducedShard already there, and its declarations are then not followed
     * through the stages (one finding for the obligation, as when the fit and the shard analysis
     * were one step), while the validator beside it still names each deep stage.
     */
    @Test
    void a_program_too_deep_to_hash_stops_unreduced_shard_at_the_certificate_fit() {
        SplitEdits s = negatedPartials(200_000);
        VerifyReport r = new Verifier().verify(s.program(), s.certificate().withProgramHash("sha256:00"), Parent.none());
        assertThat(r.codes()).containsExactly("EXPR_TOO_DEEP", "EXPR_TOO_DEEP", "EXPR_TOO_DEEP");
        assertThat(r.diagnostics().get(2).message()).startsWith("The UnreducedShard check met an expression nested too deeply");
    }

    @Test
    void a_moderately_deep_expression_is_checked_normally() {
        assertThat(negatedPartials(500).verify().codes()).isEmpty();
    }
}
