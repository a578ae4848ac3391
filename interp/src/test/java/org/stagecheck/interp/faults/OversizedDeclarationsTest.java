package org.stagecheck.interp.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;

/**
 * Regression tests: declarations too large for one Java array are refused by the validator
 * ({@code SIZE_TOO_LARGE}) before any stage runs (docs/semantics.md, "Running a program"), never
 * an exception out of {@code run} nor an INTERNAL fault of the first stage that writes them.
 */
class OversizedDeclarationsTest {

    @Test
    void anOutputTensorWhoseElementCountOverflowsALongIsAFaultNotAnArithmeticException() {
        // Shape.elementCount threw ArithmeticException straight out of Interpreter.run
        RunResult r = Fixtures.program()
                .output("o", DType.F32, Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE)
                .run();
        assertThat(r.faults()).extracting(Diagnostic::code, Diagnostic::field)
                .containsExactly(tuple("SIZE_TOO_LARGE", "/tensors/0/shape"));
        assertThat(r.stoppedAtStage()).isNull();
    }

    @Test
    void aBufferOfMoreThanOneArrayHoldsIsAFaultBeforeAnyStageRuns() {
        // 2^32 elements: the Generic computed (int) 2^32 = 0 elements and failed as INTERNAL
        RunResult r = Fixtures.program()
                .buffer("b", DType.F32, 65536, 65536)
                .buffer("c", DType.F32, 65536, 65536, 65536, 65536, 65536)
                .buffer("fine", DType.F32, 4)
                .generic("g", List.of(), "fine", Expr.f(1))
                .run();
        assertThat(r.faults()).extracting(Diagnostic::code, Diagnostic::field)
                .containsExactly(tuple("SIZE_TOO_LARGE", "/buffers/0/shape"), tuple("SIZE_TOO_LARGE", "/buffers/1/shape"));
        assertThat(r.trace()).isEmpty();
    }
}
