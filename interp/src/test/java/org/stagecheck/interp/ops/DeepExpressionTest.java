package org.stagecheck.interp.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;
import static org.stagecheck.interp.Fixtures.CORE;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/**
 * Regression test: the expression evaluator recurses over the tree, so
 * a well-formed but very deep expression overflowed the stack and the StackOverflowError escaped
 * {@code Interpreter.run}. It is now a fault naming the stage.
 */
class DeepExpressionTest {

    private static Fixtures withNegations(int depth) {
        Expr e = Expr.in(0);
        for (int i = 0; i < depth; i++) {
            e = Expr.apply(Fn.NEG, e);
        }
        return Fixtures.program()
                .input("t", f32(dims(1), 1.5f)).buffer("x", DType.F32, 1).buffer("y", DType.F32, 1)
                .loadAll("l", "t", "x", CORE)
                .generic("g", List.of("x"), "y", e);
    }

    @Test
    void anExpressionTooDeepForTheStackIsAFaultNamingTheStage() {
        RunResult r = withNegations(1_000_000).run();
        assertThat(r.faults()).extracting(Diagnostic::code, Diagnostic::stageId, Diagnostic::field)
                .containsExactly(tuple("EXPR_TOO_DEEP", "g", "/stages/1/kind"));
    }

    @Test
    void aDeepButManageableExpressionStillRuns() {
        RunResult r = withNegations(1_001).run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("g").getFirst().toFloats()).containsExactly(-1.5f);
    }
}
