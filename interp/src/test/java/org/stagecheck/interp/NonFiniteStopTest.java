package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/** The stop modes: an intended -inf (a causal mask) does not stop a NaN-only run; the first NaN does. */
class NonFiniteStopTest {
    /** log(0) = -inf at "log" (like a mask), then -inf * 0 = NaN at "nan". */
    private static Fixtures maskThenNaN() {
        return Fixtures.program()
                .input("x", f32(dims(3), 1, 0, 2))
                .buffer("X", DType.F32, 3).buffer("l", DType.F32, 3).buffer("n", DType.F32, 3)
                .loadAll("load", "x", "X", Fixtures.CORE)
                .generic("log", List.of("X"), "l", Expr.apply(Fn.LOG, Expr.in(0)))
                .generic("nan", List.of("l"), "n", Expr.apply(Fn.MUL, Expr.in(0), Expr.f(0.0)));
    }

    @Test
    void nanModeRunsPastAnInfinityAndStopsAtTheFirstNaN() {
        RunResult r = maskThenNaN().run(RunOptions.defaults().withStopAt(NonFiniteStop.NAN));
        assertThat(r.stoppedAtStage()).isEqualTo("nan");
        assertThat(r.faults()).extracting(Diagnostic::render).containsExactly(
                "NON_FINITE stage #2 'nan' at /stages/2/outs/0 buffer 'n': Stage 'nan' wrote NaN to buffer 'n' at element 1 "
                        + "(the first NaN value of the run).");
    }

    @Test
    void infAndAnyModesStopAtTheInfinity() {
        for (NonFiniteStop mode : List.of(NonFiniteStop.INF, NonFiniteStop.ANY)) {
            RunResult r = maskThenNaN().run(RunOptions.defaults().withStopAt(mode));
            assertThat(r.stoppedAtStage()).as(mode.spelling()).isEqualTo("log");
        }
        assertThat(maskThenNaN().run(RunOptions.defaults().withStopAt(NonFiniteStop.NONE)).ok()).isTrue();
    }

    @Test
    void theBooleanFormKeepsItsMeaningOfNaNOrInfinity() {
        assertThat(RunOptions.defaults().withStopAtNonFinite(true).stopAt()).isEqualTo(NonFiniteStop.ANY);
        assertThat(new RunOptions(Precision.F32, false, false, 1).stopAt()).isEqualTo(NonFiniteStop.NONE);
        assertThat(NonFiniteStop.parse("NaN")).isEqualTo(NonFiniteStop.NAN);
        assertThat(NonFiniteStop.parse("nope")).isNull();
    }
}
