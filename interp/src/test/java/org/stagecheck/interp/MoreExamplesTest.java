package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.at;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Interpreter-only behaviour beside the conformance suite (module {@code conformance}, run by
 * {@code InterpreterConformanceTest}): the float64 mode and runtime faults.
 */
class MoreExamplesTest {

    @Test
    void float64MatMulAccumulatesInDouble() {
        // 1 + 1e-8 + ... : f32 loses each 1e-8, double keeps them
        float[] ones = {1, 1e-8f, 1e-8f, 1e-8f};
        Fixtures p = Fixtures.program()
                .input("a", f32(dims(1, 4), ones))
                .input("b", f32(dims(4, 1), 1, 1, 1, 1))
                .buffer("A", DType.F32, 1, 4).buffer("B", DType.F32, 4, 1).buffer("y", DType.F32, 1, 1)
                .loadAll("la", "a", "A", Fixtures.CORE).loadAll("lb", "b", "B", Fixtures.CORE)
                .compute("mm", List.of("A", "B"), "y", ComputeOp.MatMul.plain());
        double expect = 1.0 + 3 * (double) 1e-8f;
        assertThat(p.run(RunOptions.defaults().withPrecision(Precision.F64).withTrace(true)).trace().get("mm").getFirst().getDouble(0))
                .isEqualTo(expect);
        assertThat(p.run().trace().get("mm").getFirst().getFloat(0)).isEqualTo(1f);
    }

    @Test
    void aStoreToAnotherChipsTensorIsAFault() {
        RunResult r = Fixtures.program().machine(2, 1, 1)
                .input("x", f32(dims(1), 1))
                .tensor("far", TensorRole.SCRATCH, 1, f32(dims(1), 0))
                .buffer("X", DType.F32, 1)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .stage("st", List.of("X"), List.of(), new StageKind.Store("far", new AccessPattern.Block(at(0), Shape.of(1)), 1, 1))
                .run();
        assertThat(r.faults()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo("TENSOR_WRONG_CHIP"));
    }

    @Test
    void readingABufferNoStageWroteIsAFault() {
        RunResult r = Fixtures.program()
                .buffer("X", DType.F32, 1).buffer("y", DType.F32, 1)
                .generic("neg", List.of("X"), "y", Expr.apply(Fn.NEG, Expr.in(0)))
                .run();
        assertThat(r.faults()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo("READ_BEFORE_WRITE");
            assertThat(d.buffer()).isEqualTo("X");
        });
    }

    @Test
    void argmaxOfAnEmptyAxisIsRefused() {
        // sum/max/min of an empty axis have identities (conformance suite, reduce/*-empty-axis); argmax has no answer
        RunResult r = Fixtures.program()
                .input("x", f32(dims(2, 0)))
                .buffer("X", DType.F32, 2, 0).buffer("a", DType.I32, 2, 1)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .compute("argmax", List.of("X"), "a", new ComputeOp.Reduce(ReduceFn.ARGMAX, 1))
                .run();
        // the shapes are declared, so the validator refuses it and nothing runs
        assertThat(r.stoppedAtStage()).isNull();
        assertThat(r.faults()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo("EMPTY_REDUCE");
            assertThat(d.stageId()).isEqualTo("argmax");
        });
    }
}
