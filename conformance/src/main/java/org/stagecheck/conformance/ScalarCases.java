package org.stagecheck.conformance;

import static org.stagecheck.conformance.CaseBuilder.fromBuffer;
import static org.stagecheck.conformance.Tensors.bits;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.f32;
import static org.stagecheck.conformance.Tensors.i32;
import static org.stagecheck.conformance.Tensors.iota;

import java.util.List;

import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;

/**
 * Scalar (docs/semantics.md, "Scalar"): result k of the body goes to one-element output k, with
 * the Generic rules over parameters, constants and one-element inputs; every result is computed
 * before any is written; the results feed later stages' offsets.
 */
final class ScalarCases {
    private ScalarCases() {
    }

    static List<ConformanceCase> cases() {
        return List.of(offsetForALoad(), offsetFromALoadedElement(), resultsComputedBeforeWritten(), typesAndRounding());
    }

    private static ConformanceCase offsetForALoad() {
        // row = pos + 1 = 2 (pos = 1); row 2 of kv = iota [4,3] is [6,7,8]
        return CaseBuilder.of(Family.SCALAR, "offset-for-load", "a Scalar stage computes a row from a parameter; a Load reads it as an offset")
                .param("pos", 0, 2, 1)
                .input("kv", f32(dims(4, 3), iota(12)))
                .output("row_out", DType.I32, 1).output("out", DType.F32, 1, 3)
                .buffer("row", DType.I32, 1).buffer("b", DType.F32, 1, 3)
                .stage("next-row", List.of(), List.of("row"), new StageKind.Scalar(new ScalarBody(List.of(
                        Expr.apply(Fn.ADD, new Expr.ParamRef("pos"), Expr.i(1))))))
                .stage("load", List.of(), List.of("b"), new StageKind.Load("kv",
                        new AccessPattern.Block(List.of(fromBuffer("row", 1, 0), Offset.constant(0)), Shape.of(1, 3)), 1, null))
                .storeAll("s-row", "row", "row_out").storeAll("s-out", "b", "out")
                .expect("row_out", i32(dims(1), 2))
                .expect("out", f32(dims(1, 3), 6, 7, 8))
                .build();
    }

    private static ConformanceCase offsetFromALoadedElement() {
        // tok = 3 is loaded from DRAM; r = tok - 1 = 2; row 2 of t = iota [5,2] is [4,5]
        return CaseBuilder.of(Family.SCALAR, "offset-from-loaded-element", "a Scalar stage reads a one-element buffer a Load filled")
                .input("tok", i32(dims(1), 3))
                .input("t", f32(dims(5, 2), iota(10)))
                .output("out", DType.F32, 1, 2)
                .buffer("T", DType.I32, 1).buffer("r", DType.I32, 1).buffer("b", DType.F32, 1, 2)
                .loadAll("load-tok", "tok", "T")
                .stage("minus-one", List.of("T"), List.of("r"), new StageKind.Scalar(new ScalarBody(List.of(
                        Expr.apply(Fn.SUB, Expr.in(0), Expr.i(1))))))
                .stage("load", List.of(), List.of("b"), new StageKind.Load("t",
                        new AccessPattern.Block(List.of(fromBuffer("r", 1, 0), Offset.constant(0)), Shape.of(1, 2)), 1, null))
                .storeAll("store", "b", "out")
                .expect("out", f32(dims(1, 2), 4, 5))
                .build();
    }

    private static ConformanceCase resultsComputedBeforeWritten() {
        // ins [X, Y] = [3, 5], outs [X, Y], body [in1, in0]: a swap, X = 5 and Y = 3. Writing result 0
        // before computing result 1 would give X = Y = 5.
        return CaseBuilder.of(Family.SCALAR, "swap", "every result is computed before any is written (a body may swap its inputs)")
                .input("x", i32(dims(1), 3)).input("y", i32(dims(1), 5))
                .output("x_out", DType.I32, 1).output("y_out", DType.I32, 1)
                .buffer("X", DType.I32, 1).buffer("Y", DType.I32, 1)
                .loadAll("lx", "x", "X").loadAll("ly", "y", "Y")
                .stage("swap", List.of("X", "Y"), List.of("X", "Y"), new StageKind.Scalar(new ScalarBody(List.of(Expr.in(1), Expr.in(0)))))
                .storeAll("sx", "X", "x_out").storeAll("sy", "Y", "y_out")
                .expect("x_out", i32(dims(1), 5))
                .expect("y_out", i32(dims(1), 3))
                .build();
    }

    private static ConformanceCase typesAndRounding() {
        // in0 = 2.75 (f32), n = -7:
        //   i32(in0) = 2 (truncation); in0 * 2.0 = 5.5; rem(n, 3) = -1 (sign of the dividend);
        //   select(n < 0, -n, n) = 7; (in0 - 1.75) + 2^-8 = 1 + 2^-8 into bf16: a tie between 1 (0x3F80)
        //   and 1 + 2^-7 (0x3F81), even is 0x3F80
        Expr in0 = Expr.in(0);
        Expr n = new Expr.ParamRef("n");
        List<Expr> body = List.of(
                new Expr.Cast(DType.I32, in0),
                Expr.apply(Fn.MUL, in0, Expr.f(2.0)),
                Expr.apply(Fn.REM, n, Expr.i(3)),
                Expr.apply(Fn.SELECT, Expr.apply(Fn.LT, n, Expr.i(0)), Expr.apply(Fn.NEG, n), n),
                Expr.apply(Fn.ADD, Expr.apply(Fn.SUB, in0, Expr.f(1.75)), Expr.f(0x1p-8)));
        return CaseBuilder.of(Family.SCALAR, "types-and-rounding", "a Scalar body follows the Generic rules: casts, i32 rem, select, one rounding to each output's dtype")
                .param("n", -10, 10, -7)
                .input("x", f32(dims(1), 2.75f))
                .output("o0", DType.I32, 1).output("o1", DType.F32, 1).output("o2", DType.I32, 1).output("o3", DType.I32, 1).output("o4", DType.BF16, 1)
                .buffer("X", DType.F32, 1)
                .buffer("r0", DType.I32, 1).buffer("r1", DType.F32, 1).buffer("r2", DType.I32, 1).buffer("r3", DType.I32, 1).buffer("r4", DType.BF16, 1)
                .loadAll("lx", "x", "X")
                .stage("body", List.of("X"), List.of("r0", "r1", "r2", "r3", "r4"), new StageKind.Scalar(new ScalarBody(body)))
                .storeAll("s0", "r0", "o0").storeAll("s1", "r1", "o1").storeAll("s2", "r2", "o2").storeAll("s3", "r3", "o3").storeAll("s4", "r4", "o4")
                .expect("o0", i32(dims(1), 2))
                .expect("o1", f32(dims(1), 5.5f))
                .expect("o2", i32(dims(1), -1))
                .expect("o3", i32(dims(1), 7))
                .expect("o4", bits(DType.BF16, dims(1), 0x3F80))
                .build();
    }
}
