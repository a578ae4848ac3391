package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/** The run contract: bindings and parameters checked up front, traces, NaN stop, float64 mode. */
class RunContractTest {

    private static Fixtures logThenScale() {
        return Fixtures.program()
                .input("x", f32(dims(3), 1, 0, 2))
                .buffer("X", DType.F32, 3).buffer("l", DType.F32, 3).buffer("s", DType.F32, 3)
                .loadAll("load", "x", "X", Fixtures.CORE)
                .generic("log", List.of("X"), "l", Expr.apply(Fn.LOG, Expr.in(0)))
                .generic("scale", List.of("l"), "s", Expr.apply(Fn.MUL, Expr.in(0), Expr.f(2.0)));
    }

    @Test
    void aMissingInputIsAFaultAndNothingRuns() {
        RunResult r = logThenScale().unbind("x").run();
        assertThat(r.ok()).isFalse();
        assertThat(r.faults()).extracting(Diagnostic::render)
                .containsExactly("MISSING_INPUT at /tensors/x: Tensor 'x' (input) has no bound value.");
        assertThat(r.trace()).isEmpty();
    }

    @Test
    void bindingsOfTheWrongShapeOrDtypeAndUnknownNamesAreFaults() {
        RunResult r = logThenScale().bind("x", f32(dims(2), 1, 2)).bind("y", f32(dims(1), 0)).run();
        assertThat(r.faults()).extracting(Diagnostic::code).containsExactlyInAnyOrder("BINDING_SHAPE", "BINDING_UNKNOWN");
    }

    @Test
    void parametersMustBeBoundAndInRange() {
        RunResult r = Fixtures.program().param("pos", 0, 7, 8).param("len", 1, 2, 1).run();
        assertThat(r.faults()).extracting(Diagnostic::render).containsExactly(
                "PARAM_OUT_OF_RANGE at /params/pos: Parameter 'pos' is 8, outside its declared range [0, 7].");
    }

    @Test
    void aTraceKeepsEveryStagesOutputsAndAPlainRunKeepsNone() {
        RunResult traced = logThenScale().run(RunOptions.defaults().withTrace(true));
        assertThat(traced.trace()).containsOnlyKeys("load", "log", "scale");
        assertThat(traced.trace().get("scale").getFirst().toFloats()).containsExactly(0f, Float.NEGATIVE_INFINITY, 2 * (float) Math.log(2));
        assertThat(logThenScale().run(RunOptions.defaults()).trace()).isEmpty();
    }

    @Test
    void stopAtNonFiniteNamesTheFirstStageThatProducedOne() {
        RunResult r = logThenScale().run(RunOptions.defaults().withStopAtNonFinite(true).withTrace(true));
        assertThat(r.stoppedAtStage()).isEqualTo("log");
        assertThat(r.faults()).extracting(Diagnostic::render).containsExactly(
                "NON_FINITE stage #1 'log' at /stages/1/outs/0 buffer 'l': Stage 'log' wrote -Infinity to buffer 'l' at element 1 "
                        + "(the first non-finite value of the run).");
        assertThat(r.trace()).containsOnlyKeys("load", "log");
    }

    @Test
    void float64ModeKeepsTheTrueValueWhereF32Rounds() {
        Fixtures p = Fixtures.program()
                .input("x", f32(dims(1), 0.1f))
                .output("out", DType.BF16, 1)
                .buffer("X", DType.F32, 1).buffer("y", DType.BF16, 1)
                .loadAll("load", "x", "X", Fixtures.CORE)
                .generic("third", List.of("X"), "y", Expr.apply(Fn.DIV, Expr.in(0), Expr.f(3.0)))
                .storeAll("store", "y", "out", Fixtures.CORE);
        RunResult f32 = p.run(RunOptions.defaults());
        RunResult f64 = p.run(RunOptions.defaults().withPrecision(Precision.F64));
        assertThat(f64.faults()).isEmpty();
        assertThat(f64.tensor("out").isFloat64()).isTrue();
        assertThat(f64.tensor("out").getDouble(0)).isEqualTo((double) 0.1f / 3.0);
        assertThat(f32.tensor("out").isFloat64()).isFalse();
        assertThat(f32.tensor("out").getFloat(0)).isEqualTo(org.stagecheck.tensor.numeric.Bf16.toFloat(
                org.stagecheck.tensor.numeric.Bf16.fromFloat(0.1f / 3f)));
    }
}
