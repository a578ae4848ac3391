package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.at;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;
import static org.stagecheck.interp.Fixtures.i32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.tensor.numeric.Bf16;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;

/** Batched matmul, float64 matmul, indirect (paged) stores, casts, i32 and bf16 reductions. */
class MoreExamplesTest {

    @Test
    void batchedMatMulWithAPerBatchAndASharedRightOperand() {
        // batch 0: [1 2] x [[1],[1]] = 3; batch 1: [3 4] x [[2],[0]] = 6; shared B = [[1],[1]]: 3 and 7
        RunResult r = Fixtures.program()
                .input("a", f32(dims(2, 1, 2), 1, 2, 3, 4))
                .input("b", f32(dims(2, 2, 1), 1, 1, 2, 0))
                .input("s", f32(dims(2, 1), 1, 1))
                .buffer("A", DType.F32, 2, 1, 2).buffer("B", DType.F32, 2, 2, 1).buffer("S", DType.F32, 2, 1)
                .buffer("y", DType.F32, 2, 1, 1).buffer("z", DType.F32, 2, 1, 1)
                .loadAll("la", "a", "A", Fixtures.CORE).loadAll("lb", "b", "B", Fixtures.CORE).loadAll("ls", "s", "S", Fixtures.CORE)
                .compute("per-batch", List.of("A", "B"), "y", ComputeOp.MatMul.plain())
                .compute("shared", List.of("A", "S"), "z", ComputeOp.MatMul.plain())
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("per-batch").getFirst().toFloats()).containsExactly(3, 6);
        assertThat(r.trace().get("shared").getFirst().toFloats()).containsExactly(3, 7);
    }

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
    void anIndirectStoreWritesPagedRowsAndTheLaterDuplicateWins() {
        RunResult r = Fixtures.program()
                .input("rows", f32(dims(3, 2), 1, 2, 3, 4, 5, 6))
                .input("slots", i32(dims(3), 2, 0, 2))
                .output("pages", DType.F32, 4, 2)
                .buffer("R", DType.F32, 3, 2).buffer("idx", DType.I32, 3)
                .loadAll("lr", "rows", "R", Fixtures.CORE).loadAll("li", "slots", "idx", Fixtures.CORE)
                .stage("scatter", List.of("R"), List.of(), new StageKind.Store("pages",
                        new AccessPattern.Indirect("idx", at(0), Shape.of(2)), 1, 1))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("pages").toFloats()).containsExactly(3, 4, 0, 0, 5, 6, 0, 0);
    }

    @Test
    void aCastToBf16RoundsInsideTheExpression() {
        // bf16(1 + 2^-8) = 1 (tie to even), so the difference is 0 while the f32 difference is 2^-8
        RunResult r = Fixtures.program()
                .input("x", f32(dims(1), 1f + 0x1p-8f))
                .buffer("X", DType.F32, 1).buffer("d", DType.F32, 1)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .generic("diff", List.of("X"), "d", Expr.apply(Fn.SUB, Expr.in(0), new Expr.Cast(DType.BF16, Expr.in(0))))
                .run();
        assertThat(r.trace().get("diff").getFirst().toFloats()).containsExactly(0x1p-8f);
    }

    @Test
    void reductionsOverBf16AndI32Inputs() {
        RunResult r = Fixtures.program()
                .tensor("h", TensorRole.INPUT, 0, org.stagecheck.tensor.Tensor.fromFloats(DType.BF16, Shape.of(1, 3), new float[] {256, 1, 1}))
                .input("n", i32(dims(1, 3), Integer.MAX_VALUE, 1, 5))
                .buffer("H", DType.BF16, 1, 3).buffer("N", DType.I32, 1, 3)
                .buffer("hs", DType.BF16, 1, 1).buffer("hf", DType.F32, 1, 1).buffer("ns", DType.I32, 1, 1).buffer("na", DType.I32, 1, 1)
                .loadAll("lh", "h", "H", Fixtures.CORE).loadAll("ln", "n", "N", Fixtures.CORE)
                .compute("sum-bf16", List.of("H"), "hs", new ComputeOp.Reduce(ReduceFn.SUM, 1))
                .compute("sum-f32", List.of("H"), "hf", new ComputeOp.Reduce(ReduceFn.SUM, 1))
                .compute("sum-i32", List.of("N"), "ns", new ComputeOp.Reduce(ReduceFn.SUM, 1))
                .compute("argmax-i32", List.of("N"), "na", new ComputeOp.Reduce(ReduceFn.ARGMAX, 1))
                .run();
        assertThat(r.faults()).isEmpty();
        // accumulated in f32 (258) and rounded once: 258 is exact in bf16
        assertThat(r.trace().get("sum-bf16").getFirst().toFloats()).containsExactly(Bf16.toFloat(Bf16.fromFloat(258f)));
        assertThat(r.trace().get("sum-f32").getFirst().toFloats()).containsExactly(258f);
        assertThat(r.trace().get("sum-i32").getFirst().toInts()).containsExactly(Integer.MIN_VALUE + 5);
        assertThat(r.trace().get("argmax-i32").getFirst().toInts()).containsExactly(0);
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
        assertThat(r.faults()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo("WRONG_CHIP"));
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
    void emptyAxesReduceToTheIdentityAndArgmaxOfNothingIsAFault() {
        RunResult r = Fixtures.program()
                .input("x", f32(dims(2, 0)))
                .buffer("X", DType.F32, 2, 0).buffer("s", DType.F32, 2, 1).buffer("m", DType.F32, 2, 1).buffer("a", DType.I32, 2, 1)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .compute("sum", List.of("X"), "s", new ComputeOp.Reduce(ReduceFn.SUM, 1))
                .compute("max", List.of("X"), "m", new ComputeOp.Reduce(ReduceFn.MAX, 1))
                .compute("argmax", List.of("X"), "a", new ComputeOp.Reduce(ReduceFn.ARGMAX, 1))
                .run();
        assertThat(r.trace().get("sum").getFirst().toFloats()).containsExactly(0, 0);
        assertThat(r.trace().get("max").getFirst().toFloats()).containsExactly(Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY);
        assertThat(r.faults()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo("EMPTY_REDUCE"));
    }
}
