package org.stagecheck.interp.ops;

import static org.assertj.core.api.Assertions.assertThat;
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
 * Regression tests: Generic broadcasting follows numpy exactly
 * (docs/semantics.md, "Generic": axes aligned on the right, each 1 or equal), as the validator's
 * BROADCAST rule does.
 */
class BroadcastRulesTest {

    @Test
    void aOneElementInputOfHigherRankThanTheOutputDoesNotBroadcast() {
        // np.broadcast_to(np.ones((1,1,1)), (4,)) raises; the evaluator used to accept any one-element input
        RunResult r = Fixtures.program()
                .input("t", f32(dims(1, 1, 1), 5)).buffer("x", DType.F32, 1, 1, 1).buffer("y", DType.F32, 4)
                .loadAll("l", "t", "x", CORE)
                .generic("g", List.of("x"), "y", Expr.in(0))
                .run();
        assertThat(r.faults()).extracting(Diagnostic::code).containsExactly("BROADCAST");
    }

    @Test
    void rankMismatchedInputsAlignOnTheTrailingAxesAndIndexNamesOutputAxes() {
        // out[i,j,k] = a[j,k] + 10*b[i,0,0]... with a [3,1] broadcast to [2,3,4], b [2,1,1] and a rank-0 c
        float[] a = {1, 2, 3};
        float[] b = {100, 200};
        RunResult r = Fixtures.program()
                .input("a", f32(dims(3, 1), a)).input("b", f32(dims(2, 1, 1), b)).input("c", f32(dims(), 0.5f))
                .buffer("A", DType.F32, 3, 1).buffer("B", DType.F32, 2, 1, 1).buffer("C", DType.F32)
                .buffer("y", DType.F32, 2, 3, 4)
                .loadAll("la", "a", "A", CORE).loadAll("lb", "b", "B", CORE).loadAll("lc", "c", "C", CORE)
                .generic("g", List.of("A", "B", "C"), "y",
                        Expr.apply(Fn.ADD, Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)),
                                Expr.apply(Fn.MUL, Expr.in(2), new Expr.Cast(DType.F32, new Expr.Index(2)))))
                .run();
        assertThat(r.faults()).isEmpty();
        float[] got = r.trace().get("g").getFirst().toFloats();
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 3; j++) {
                for (int k = 0; k < 4; k++) {
                    assertThat(got[(i * 3 + j) * 4 + k]).as("[%d,%d,%d]", i, j, k).isEqualTo(a[j] + b[i] + 0.5f * k);
                }
            }
        }
    }

    @Test
    void aSizeOneAxisInTheMiddleBroadcastsAndAMismatchedAxisIsAFault() {
        RunResult ok = Fixtures.program()
                .input("a", f32(dims(2, 1, 2), 1, 2, 3, 4)).buffer("A", DType.F32, 2, 1, 2).buffer("y", DType.F32, 2, 3, 2)
                .loadAll("la", "a", "A", CORE)
                .generic("g", List.of("A"), "y", Expr.in(0))
                .run();
        assertThat(ok.trace().get("g").getFirst().toFloats()).containsExactly(1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4);
        RunResult bad = Fixtures.program()
                .input("a", f32(dims(2, 2), 1, 2, 3, 4)).buffer("A", DType.F32, 2, 2).buffer("y", DType.F32, 2, 3)
                .loadAll("la", "a", "A", CORE)
                .generic("g", List.of("A"), "y", Expr.in(0))
                .run();
        assertThat(bad.faults()).extracting(Diagnostic::code).containsExactly("BROADCAST");
    }
}
