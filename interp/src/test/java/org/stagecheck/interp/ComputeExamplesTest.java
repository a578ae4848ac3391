package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;
import static org.stagecheck.interp.Fixtures.i32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReduceFn;

/** Hand-worked examples of every ComputeOp: Generic, MatMul (bias, spill), Reduce (argmax), layout ops. */
class ComputeExamplesTest {

    @Test
    void matMulWithASpillAcrossTwoStagesAndABiasAddedOnceAtTheEnd() {
        // A = [[1,2,3],[4,5,6]], B = [[1,0],[0,1],[1,1]]: A.B = [[4,5],[10,11]]; bias [10,20]
        RunResult r = Fixtures.program()
                .input("a1", f32(dims(2, 2), 1, 2, 4, 5))
                .input("a2", f32(dims(2, 1), 3, 6))
                .input("b1", f32(dims(2, 2), 1, 0, 0, 1))
                .input("b2", f32(dims(1, 2), 1, 1))
                .input("bias", f32(dims(2), 10, 20))
                .buffer("A1", DType.F32, 2, 2).buffer("A2", DType.F32, 2, 1)
                .buffer("B1", DType.F32, 2, 2).buffer("B2", DType.F32, 1, 2)
                .buffer("bb", DType.F32, 2).buffer("acc", DType.F32, 2, 2)
                .buffer("o1", DType.F32, 2, 2).buffer("o2", DType.F32, 2, 2)
                .loadAll("la1", "a1", "A1", Fixtures.CORE).loadAll("la2", "a2", "A2", Fixtures.CORE)
                .loadAll("lb1", "b1", "B1", Fixtures.CORE).loadAll("lb2", "b2", "B2", Fixtures.CORE)
                .loadAll("lbias", "bias", "bb", Fixtures.CORE)
                .compute("mm1", List.of("A1", "B1"), "o1", new ComputeOp.MatMul(false, false, null, "acc"))
                .compute("mm2", List.of("A2", "B2"), "o2", new ComputeOp.MatMul(false, false, "bb", "acc"))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("mm1").getFirst().toFloats()).containsExactly(1, 2, 4, 5);
        assertThat(r.trace().get("mm2").getFirst().toFloats()).containsExactly(14, 25, 20, 31);
    }

    @Test
    void theSpillKeepsF32PrecisionWhenTheOutputIsBf16() {
        // 256 + 1 = 257 is a bf16 tie (256 | 258) that rounds to 256; with the f32 spill the second
        // stage adds 1 to 257, and 258 is exact in bf16. Without the spill the answer would be 256.
        RunResult r = Fixtures.program()
                .input("a", f32(dims(1, 2), 256, 1))
                .input("one", f32(dims(1, 1), 1))
                .input("b", f32(dims(2, 1), 1, 1))
                .buffer("A", DType.F32, 1, 2).buffer("One", DType.F32, 1, 1).buffer("B", DType.F32, 2, 1)
                .buffer("B1", DType.F32, 1, 1)
                .buffer("acc", DType.F32, 1, 1).buffer("o1", DType.BF16, 1, 1).buffer("o2", DType.BF16, 1, 1)
                .loadAll("la", "a", "A", Fixtures.CORE).loadAll("lone", "one", "One", Fixtures.CORE)
                .loadAll("lb", "b", "B", Fixtures.CORE).loadAll("lb1", "one", "B1", Fixtures.CORE)
                .compute("mm1", List.of("A", "B"), "o1", new ComputeOp.MatMul(false, false, null, "acc"))
                .compute("mm2", List.of("One", "B1"), "o2", new ComputeOp.MatMul(false, false, null, "acc"))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("mm1").getFirst().toFloats()).containsExactly(256);
        assertThat(r.trace().get("mm2").getFirst().toFloats()).containsExactly(258);
    }

    @Test
    void transposedOperandsAreReadTransposed() {
        // A^T with A stored [3,2]; B^T with B stored [2,3]: same product as the plain example
        RunResult r = Fixtures.program()
                .input("a", f32(dims(3, 2), 1, 4, 2, 5, 3, 6))
                .input("b", f32(dims(2, 3), 1, 0, 1, 0, 1, 1))
                .buffer("A", DType.F32, 3, 2).buffer("B", DType.F32, 2, 3).buffer("o", DType.F32, 2, 2)
                .loadAll("la", "a", "A", Fixtures.CORE).loadAll("lb", "b", "B", Fixtures.CORE)
                .compute("mm", List.of("A", "B"), "o", new ComputeOp.MatMul(true, true, null, null))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("mm").getFirst().toFloats()).containsExactly(4, 5, 10, 11);
    }

    @Test
    void argmaxIsTheFirstIndexOfTheMaximumAndANanCountsAsTheMaximum() {
        float nan = Float.NaN;
        RunResult r = Fixtures.program()
                .input("x", f32(dims(3, 4), 1, 3, 3, 2, -1, 5, nan, nan, -2, -1, -1, -3))
                .buffer("X", DType.F32, 3, 4).buffer("i", DType.I32, 3, 1)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .compute("argmax", List.of("X"), "i", new ComputeOp.Reduce(ReduceFn.ARGMAX, 1))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("argmax").getFirst().toInts()).containsExactly(1, 2, 1);
    }

    @Test
    void reduceKeepsTheAxisAndAddsInIndexOrder() {
        // (1e8 + 1) + -1e8 in f32: 1e8 + 1 rounds to 1e8, so the sum is 0, not 1
        RunResult r = Fixtures.program()
                .input("x", f32(dims(3, 2), 1e8f, 2, 1, 3, -1e8f, 4))
                .buffer("X", DType.F32, 3, 2).buffer("s", DType.F32, 1, 2).buffer("m", DType.F32, 1, 2)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .compute("sum", List.of("X"), "s", new ComputeOp.Reduce(ReduceFn.SUM, 0))
                .compute("min", List.of("X"), "m", new ComputeOp.Reduce(ReduceFn.MIN, 0))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("sum").getFirst().toFloats()).containsExactly(0, 9);
        assertThat(r.trace().get("min").getFirst().toFloats()).containsExactly(-1e8f, 2);
    }

    @Test
    void genericBroadcastsARowAndRoundsOnceToTheOutputDtype() {
        // x + b with b [3] broadcast over rows; then select(gt(in0, 2), in0, 0) written as i32
        RunResult r = Fixtures.program()
                .input("x", f32(dims(2, 3), 0, 1, 2, 3, 4, 5))
                .input("b", f32(dims(3), 0.5f, 0.5f, 0.5f))
                .buffer("X", DType.F32, 2, 3).buffer("B", DType.F32, 3).buffer("y", DType.F32, 2, 3).buffer("z", DType.I32, 2, 3)
                .loadAll("lx", "x", "X", Fixtures.CORE).loadAll("lb", "b", "B", Fixtures.CORE)
                .generic("add", List.of("X", "B"), "y", Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)))
                .generic("relu-ish", List.of("y"), "z", Expr.apply(Fn.SELECT,
                        Expr.apply(Fn.GT, Expr.in(0), Expr.f(2.0)), Expr.in(0), Expr.f(0.0)))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("add").getFirst().toFloats()).containsExactly(0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f);
        assertThat(r.trace().get("relu-ish").getFirst().toInts()).as("2.5 truncates to 2").containsExactly(0, 0, 2, 3, 4, 5);
    }

    @Test
    void elementIndicesAndParametersAreIntegers() {
        // causal mask row: index(1) <= pos ? 0 : -inf
        RunResult r = Fixtures.program()
                .param("pos", 0, 8, 2)
                .buffer("mask", DType.F32, 1, 4)
                .generic("mask", List.of(), "mask", Expr.apply(Fn.SELECT,
                        Expr.apply(Fn.LE, new Expr.Index(1), new Expr.ParamRef("pos")), Expr.f(0.0), Expr.f(Double.NEGATIVE_INFINITY)))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("mask").getFirst().toFloats()).containsExactly(0, 0, 0, Float.NEGATIVE_INFINITY);
    }

    @Test
    void integerArithmeticWrapsAndDivisionTruncatesTowardZero() {
        RunResult r = Fixtures.program()
                .input("x", i32(dims(3), Integer.MAX_VALUE, -7, 7))
                .input("d", i32(dims(3), 1, 2, -2))
                .buffer("X", DType.I32, 3).buffer("D", DType.I32, 3).buffer("s", DType.I32, 3).buffer("q", DType.I32, 3)
                .loadAll("lx", "x", "X", Fixtures.CORE).loadAll("ld", "d", "D", Fixtures.CORE)
                .generic("sum", List.of("X", "D"), "s", Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)))
                .generic("div", List.of("X", "D"), "q", Expr.apply(Fn.DIV, Expr.in(0), Expr.in(1)))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("sum").getFirst().toInts()).containsExactly(Integer.MIN_VALUE, -5, 5);
        assertThat(r.trace().get("div").getFirst().toInts()).containsExactly(Integer.MAX_VALUE, -3, -3);
    }

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

    @Test
    void layoutOpsMoveElementsExactly() {
        RunResult r = Fixtures.program()
                .input("x", f32(dims(2, 3), 0, 1, 2, 3, 4, 5))
                .buffer("X", DType.F32, 2, 3).buffer("t", DType.F32, 3, 2).buffer("sl", DType.F32, 2, 2)
                .buffer("cat", DType.F32, 2, 5).buffer("flat", DType.F32, 6)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .compute("transpose", List.of("X"), "t", new ComputeOp.Transpose(List.of(1, 0)))
                .compute("slice", List.of("X"), "sl", new ComputeOp.Slice(List.of(0, 1)))
                .compute("concat", List.of("X", "sl"), "cat", new ComputeOp.Concat(1))
                .compute("reshape", List.of("t"), "flat", new ComputeOp.Reshape())
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("transpose").getFirst().toFloats()).containsExactly(0, 3, 1, 4, 2, 5);
        assertThat(r.trace().get("slice").getFirst().toFloats()).containsExactly(1, 2, 4, 5);
        assertThat(r.trace().get("concat").getFirst().toFloats()).containsExactly(0, 1, 2, 1, 2, 3, 4, 5, 4, 5);
        assertThat(r.trace().get("reshape").getFirst().toFloats()).containsExactly(0, 3, 1, 4, 2, 5);
    }
}
