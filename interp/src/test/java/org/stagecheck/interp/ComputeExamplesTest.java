package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;
import static org.stagecheck.interp.Fixtures.i32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/**
 * Interpreter-only behaviour beside the conformance suite (module {@code conformance}, run by
 * {@code InterpreterConformanceTest}, holds the hand-worked values every backend must produce):
 * a Compute fault, and the reference's own transcendental rounding (StrictMath in double, rounded
 * once, bit for bit), where the suite allows other math libraries a few ulps.
 */
class ComputeExamplesTest {

    @Test
    void integerDivisionByZeroIsAFaultNamingTheStage() {
        RunResult r = Fixtures.program()
                .input("x", i32(dims(2), 1, 2))
                .buffer("X", DType.I32, 2).buffer("q", DType.I32, 2)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .generic("div0", List.of("X"), "q", Expr.apply(Fn.DIV, Expr.in(0), Expr.i(0)))
                .run();
        assertThat(r.faults()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo("DIV_BY_ZERO");
            assertThat(d.stageId()).isEqualTo("div0");
        });
    }

    @Test
    void transcendentalsAreStrictMathRoundedOnceToF32() {
        RunResult r = Fixtures.program()
                .input("x", f32(dims(3), 1, 2, 0.5f))
                .buffer("X", DType.F32, 3).buffer("e", DType.F32, 3).buffer("s", DType.F32, 3)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .generic("exp", List.of("X"), "e", Expr.apply(Fn.EXP, Expr.in(0)))
                .generic("sigmoid", List.of("X"), "s", Expr.apply(Fn.SIGMOID, Expr.in(0)))
                .run();
        assertThat(r.trace().get("exp").getFirst().toFloats())
                .containsExactly((float) StrictMath.exp(1), (float) StrictMath.exp(2), (float) StrictMath.exp(0.5));
        assertThat(r.trace().get("sigmoid").getFirst().toFloats())
                .containsExactly((float) (1 / (1 + StrictMath.exp(-1))), (float) (1 / (1 + StrictMath.exp(-2))),
                        (float) (1 / (1 + StrictMath.exp(-0.5))));
    }
}
