package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.CORE;
import static org.stagecheck.interp.Fixtures.at;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;
import static org.stagecheck.interp.Fixtures.i32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;

/**
 * A review of the evaluator: hand-worked examples of the cases the first tests did not reach, each
 * pinning a rule of docs/semantics.md.
 */
class EdgeExamplesTest {

    private static float[] iota(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i;
        }
        return v;
    }

    @Test
    void anInterleavedStreamAlongAxisOneWithANegativeParameterCoefficient() {
        // t is [2, 12] = 0..23; origin column 9 - 3*p with p = 3 is 0; blocks [2, 2] at columns 0, 5, 10 (stride 5 > block 2);
        // p's range is [3, 3]: a smaller p would move the last block past column 12, which the validator refuses
        RunResult r = Fixtures.program().param("p", 3, 3, 3)
                .input("t", f32(dims(2, 12), iota(24)))
                .buffer("b", DType.F32, 2, 6)
                .stage("l", List.of(), List.of("b"), new StageKind.Load("t",
                        new AccessPattern.Streamed(List.of(Offset.constant(0), Offset.param("p", -3, 9)), Shape.of(2, 2), 1, 5), 3, null))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("l").getFirst().toFloats()).containsExactly(0, 1, 5, 6, 10, 11, 12, 13, 17, 18, 22, 23);
    }

    @Test
    void anIndirectLoadWithAWindowOnTheRemainingAxesAtAnOffsetAScalarStageComputed() {
        // t [3, 2, 4] = 0..23; rows idx = [2, 0]; window origin (1, @col) with col = param q + 1 = 2, block [1, 2]
        RunResult r = Fixtures.program().param("q", 0, 2, 1)
                .input("t", f32(dims(3, 2, 4), iota(24)))
                .input("ix", i32(dims(2), 2, 0))
                .buffer("i", DType.I32, 2).buffer("col", DType.I32, 1).buffer("x", DType.F32, 2, 1, 2)
                .loadAll("li", "ix", "i", CORE)
                .stage("sc", List.of(), List.of("col"), new StageKind.Scalar(new ScalarBody(List.of(
                        Expr.apply(Fn.ADD, new Expr.ParamRef("q"), Expr.i(1))))))
                .stage("l", List.of(), List.of("x"), new StageKind.Load("t", new AccessPattern.Indirect("i",
                        List.of(Offset.constant(1), new Offset(0, List.of(new Offset.Term.OfBuffer(1, "col")))), Shape.of(1, 2)), 1, null))
                .run();
        assertThat(r.faults()).isEmpty();
        // row 2: 16 + 4 + 2 = 22, 23; row 0: 0 + 4 + 2 = 6, 7
        assertThat(r.trace().get("l").getFirst().toFloats()).containsExactly(22, 23, 6, 7);
    }

    @Test
    void storeSubBlocksOfRankOneAndRankThreeBlocksEqualThePlainWrite() {
        RunResult r = Fixtures.program()
                .input("v", f32(dims(6), iota(6))).input("c", f32(dims(2, 2, 4), iota(16)))
                .output("o1", DType.F32, 8).output("o3", DType.F32, 2, 4, 4)
                .buffer("V", DType.F32, 6).buffer("C", DType.F32, 2, 2, 4)
                .loadAll("lv", "v", "V", CORE).loadAll("lc", "c", "C", CORE)
                .stage("s1", List.of("V"), List.of(), new StageKind.Store("o1", new AccessPattern.Block(at(1), Shape.of(6)), 1, 3))
                .stage("s3", List.of("C"), List.of(), new StageKind.Store("o3", new AccessPattern.Block(at(0, 2, 0), Shape.of(2, 2, 4)), 1, 2))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("o1").toFloats()).containsExactly(0, 0, 1, 2, 3, 4, 5, 0);
        float[] o3 = r.tensor("o3").toFloats();
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 4; j++) {
                for (int k = 0; k < 4; k++) {
                    float expect = j >= 2 ? (i * 2 + (j - 2)) * 4 + k : 0;
                    assertThat(o3[(i * 4 + j) * 4 + k]).isEqualTo(expect);
                }
            }
        }
        // a rank-1 block is one row: sub-rows other than 1 do not tile it
        RunResult bad = Fixtures.program().input("v", f32(dims(6), iota(6))).output("o1", DType.F32, 8)
                .buffer("V", DType.F32, 6).loadAll("lv", "v", "V", CORE)
                .stage("s1", List.of("V"), List.of(), new StageKind.Store("o1", new AccessPattern.Block(at(1), Shape.of(6)), 2, 3))
                .run();
        assertThat(bad.faults()).extracting(Diagnostic::code).containsExactly("SUBBLOCK_TILING");
    }

    @Test
    void anIndirectStoreWithRepeatedIndicesKeepsTheLastWriteInIndexOrder() {
        RunResult r = Fixtures.program()
                .input("x", f32(dims(4, 2), 1, 1, 2, 2, 3, 3, 4, 4)).input("ix", i32(dims(4), 1, 3, 1, 1))
                .output("o", DType.F32, 4, 2)
                .buffer("X", DType.F32, 4, 2).buffer("i", DType.I32, 4)
                .loadAll("lx", "x", "X", CORE).loadAll("li", "ix", "i", CORE)
                .stage("s", List.of("X"), List.of(), new StageKind.Store("o", new AccessPattern.Indirect("i", at(0), Shape.of(2)), 1, 1))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("o").toFloats()).containsExactly(0, 0, 4, 4, 0, 0, 2, 2);
    }

    @Test
    void scalarI32ArithmeticWrapsDivisionByZeroIsAFaultAndCastsTruncate() {
        RunResult r = Fixtures.program().param("big", 0, Integer.MAX_VALUE, Integer.MAX_VALUE)
                .input("f", f32(dims(1), -2.75f))
                .buffer("F", DType.F32, 1).buffer("w", DType.I32, 1).buffer("q", DType.I32, 1).buffer("c", DType.I32, 1)
                .buffer("back", DType.BF16, 1)
                .loadAll("lf", "f", "F", CORE)
                .stage("sc", List.of("F"), List.of("w", "q", "c", "back"), new StageKind.Scalar(new ScalarBody(List.of(
                        Expr.apply(Fn.ADD, new Expr.ParamRef("big"), Expr.i(1)),
                        Expr.apply(Fn.DIV, Expr.i(Integer.MIN_VALUE), Expr.i(-1)),
                        new Expr.Cast(DType.I32, Expr.in(0)),
                        new Expr.Cast(DType.F32, Expr.apply(Fn.REM, Expr.i(-7), Expr.i(3)))))))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("sc").get(0).getInt(0)).isEqualTo(Integer.MIN_VALUE);
        assertThat(r.trace().get("sc").get(1).getInt(0)).isEqualTo(Integer.MIN_VALUE);
        assertThat(r.trace().get("sc").get(2).getInt(0)).isEqualTo(-2);
        assertThat(r.trace().get("sc").get(3).getFloat(0)).isEqualTo(-1f);
        RunResult div0 = Fixtures.program()
                .buffer("q", DType.I32, 1)
                .stage("sc", List.of(), List.of("q"), new StageKind.Scalar(new ScalarBody(List.of(Expr.apply(Fn.REM, Expr.i(5), Expr.i(0))))))
                .run();
        assertThat(div0.faults()).extracting(Diagnostic::code, Diagnostic::stageId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("DIV_BY_ZERO", "sc"));
    }

    @Test
    void maxAndMinOrderMinusZeroBelowPlusZeroAndPropagateNan() {
        RunResult r = Fixtures.program()
                .input("a", f32(dims(4), -0.0f, 0.0f, Float.NaN, 1f)).input("b", f32(dims(4), 0.0f, -0.0f, 1f, Float.NaN))
                .buffer("A", DType.F32, 4).buffer("B", DType.F32, 4).buffer("mx", DType.F32, 4).buffer("mn", DType.F32, 4)
                .loadAll("la", "a", "A", CORE).loadAll("lb", "b", "B", CORE)
                .generic("max", List.of("A", "B"), "mx", Expr.apply(Fn.MAX, Expr.in(0), Expr.in(1)))
                .generic("min", List.of("A", "B"), "mn", Expr.apply(Fn.MIN, Expr.in(0), Expr.in(1)))
                .run();
        float[] mx = r.trace().get("max").getFirst().toFloats();
        float[] mn = r.trace().get("min").getFirst().toFloats();
        assertThat(Float.floatToRawIntBits(mx[0])).isEqualTo(Float.floatToRawIntBits(0.0f));
        assertThat(Float.floatToRawIntBits(mx[1])).isEqualTo(Float.floatToRawIntBits(0.0f));
        assertThat(Float.floatToRawIntBits(mn[0])).isEqualTo(Float.floatToRawIntBits(-0.0f));
        assertThat(Float.floatToRawIntBits(mn[1])).isEqualTo(Float.floatToRawIntBits(-0.0f));
        assertThat(mx[2]).isNaN();
        assertThat(mx[3]).isNaN();
        assertThat(mn[2]).isNaN();
        assertThat(mn[3]).isNaN();
    }

    @Test
    void selectEvaluatesBothBranchesSoAnIntegerDivisionByZeroInTheUnchosenOneStillFaults() {
        // documented choice (docs/semantics.md, "Generic"): guard the divisor, not the quotient
        Fixtures base = Fixtures.program()
                .input("a", i32(dims(2), 6, 7)).input("b", i32(dims(2), 0, 7))
                .buffer("x", DType.I32, 2).buffer("y", DType.I32, 2).buffer("z", DType.I32, 2)
                .loadAll("la", "a", "x", CORE).loadAll("lb", "b", "y", CORE);
        Expr isZero = Expr.apply(Fn.EQ, Expr.in(1), Expr.i(0));
        RunResult quotientGuarded = base.generic("g", List.of("x", "y"), "z",
                Expr.apply(Fn.SELECT, isZero, Expr.i(0), Expr.apply(Fn.DIV, Expr.in(0), Expr.in(1)))).run();
        assertThat(quotientGuarded.faults()).extracting(Diagnostic::code).containsExactly("DIV_BY_ZERO");
        RunResult divisorGuarded = Fixtures.program()
                .input("a", i32(dims(2), 6, 7)).input("b", i32(dims(2), 0, 7))
                .buffer("x", DType.I32, 2).buffer("y", DType.I32, 2).buffer("z", DType.I32, 2)
                .loadAll("la", "a", "x", CORE).loadAll("lb", "b", "y", CORE)
                .generic("g", List.of("x", "y"), "z",
                        Expr.apply(Fn.DIV, Expr.in(0), Expr.apply(Fn.SELECT, isZero, Expr.i(1), Expr.in(1)))).run();
        assertThat(divisorGuarded.faults()).isEmpty();
        assertThat(divisorGuarded.trace().get("g").getFirst().toInts()).containsExactly(6, 1);
    }

    @Test
    void allReduceMaxAndMinOverFourChipsReachOutputsOnChipsWithoutAPartial() {
        for (ReducePool pool : new ReducePool[] {ReducePool.MAX, ReducePool.MIN}) {
            Fixtures p = Fixtures.program().machine(4, 1, 1);
            float[][] v = {{1, -0.0f, 5}, {3, 0.0f, Float.NaN}, {2, -1, 4}};
            for (int c = 0; c < 3; c++) {
                Site s = Site.of(c, 0, 0);
                p.tensor("p" + c, TensorRole.INPUT, c, f32(dims(3), v[c])).buffer("a" + c, DType.F32, s, 3).loadAll("l" + c, "p" + c, "a" + c, s);
            }
            p.buffer("r3", DType.F32, Site.of(3, 0, 0), 3).buffer("r0", DType.F32, Site.of(0, 0, 0), 3)
                    .stage("ar", Site.of(0, 0, 0), List.of("a0", "a1", "a2"), List.of("r3", "r0"), StageKind.AllReduce.of(pool, "y", 3));
            RunResult r = p.run();
            assertThat(r.faults()).isEmpty();
            for (int port = 0; port < 2; port++) {
                float[] got = r.trace().get("ar").get(port).toFloats();
                assertThat(got[0]).isEqualTo(pool == ReducePool.MAX ? 3 : 1);
                assertThat(Float.floatToRawIntBits(got[1])).isEqualTo(Float.floatToRawIntBits(pool == ReducePool.MAX ? 0.0f : -1f));
                assertThat(got[2]).isNaN();
            }
        }
    }

    @Test
    void twoMulticastLoadsBeforeTheRecvDeliverTheLaterValueAndARecvOffTheGroupIsAFault() {
        Site sender = Site.of(0, 0, 0);
        Site receiver = Site.of(0, 1, 0);
        Fixtures p = Fixtures.program().machine(1, 2, 2)
                .input("first", f32(dims(2), 1, 2)).input("second", f32(dims(2), 3, 4))
                .group("g", 0, new Rect(0, 0, 2, 1), sender)
                .buffer("s1", DType.F32, sender, 2).buffer("s2", DType.F32, sender, 2).buffer("got", DType.F32, receiver, 2)
                .buffer("off", DType.F32, Site.of(0, 1, 1), 2)
                .stage("l1", sender, List.of(), List.of("s1"), new StageKind.Load("first", new AccessPattern.Block(at(0), Shape.of(2)), 1, "g"))
                .stage("l2", sender, List.of(), List.of("s2"), new StageKind.Load("second", new AccessPattern.Block(at(0), Shape.of(2)), 1, "g"))
                .stage("r", receiver, List.of(), List.of("got"), new StageKind.Recv("g"));
        RunResult ok = p.run();
        assertThat(ok.faults()).isEmpty();
        assertThat(ok.trace().get("r").getFirst().toFloats()).containsExactly(3, 4);
        RunResult bad = p.stage("r2", Site.of(0, 1, 1), List.of(), List.of("off"), new StageKind.Recv("g")).run();
        assertThat(bad.faults()).extracting(Diagnostic::code, Diagnostic::stageId)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("RECV_NOT_RECEIVER", "r2"));
    }

    @Test
    void aCastOfAnI32ToBf16GoesThroughF32First() {
        // 2^24 + 2^16 + 1 -> f32 ties to even at 2^24 + 2^16, a bf16 midpoint that ties to even at 2^24;
        // one direct rounding would give 2^24 + 2^17 (documented double rounding, as for stores)
        RunResult r = Fixtures.program()
                .buffer("q", DType.F32, 1)
                .stage("sc", List.of(), List.of("q"), new StageKind.Scalar(new ScalarBody(List.of(
                        new Expr.Cast(DType.BF16, Expr.i((1 << 24) + (1 << 16) + 1))))))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("sc").getFirst().getFloat(0)).isEqualTo(16777216f);
    }
}
