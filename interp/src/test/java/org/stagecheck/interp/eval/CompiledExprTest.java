package org.stagecheck.interp.eval;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.stagecheck.interp.Precision;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.ProgramBuilder;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.numeric.Rounding;

/**
 * Compiled expressions ({@link ExprCompiler}, {@link CompiledExpr}) against a per-element
 * evaluator written here from docs/semantics.md ("Generic") alone: random expressions over every
 * value type, broadcast inputs of every kind (same shape, a row, a column, one element, bf16,
 * i32), casts, comparisons, select, index and parameters, bit for bit; and the reuse of working
 * columns from run to run and from expression to expression.
 */
class CompiledExprTest {
    private static final Shape OUT = Shape.of(4, 7);
    private static final List<Shape> IN_SHAPES = List.of(Shape.of(4, 7), Shape.of(7), Shape.of(4, 1), Shape.of(1),
            Shape.of(4, 7), Shape.of(4, 7));
    private static final List<DType> IN_TYPES = List.of(DType.F32, DType.F32, DType.F32, DType.F32, DType.BF16, DType.I32);
    private static final int INT_INPUT = 5;
    private static final long PARAM = 3;

    private final RunState state = new RunState(new ProgramBuilder("t", new Machine(1, 1, 1)).param("p", 0, 9).build(),
            Precision.F32, new Parallel(1), Map.of("p", PARAM));

    @SeededProperty(tries = 300)
    void aCompiledExpressionEqualsThePerElementDefinition(long seed) throws Fault {
        SplittableRandom draw = new SplittableRandom(seed);
        Expr e = floatExpr(draw, 5);
        Scratch scratch = new Scratch();
        CompiledExpr c = ExprCompiler.compile(e, OUT, inputs(new Random(seed)), new ShapeCache(), false, false);
        // twice on the same columns, with other values the second time: nothing is left over from a run
        for (int run = 0; run < 2; run++) {
            List<Tensor> ins = inputs(new Random(seed * 31 + run));
            Tensor got = c.evaluate(state, ins, scratch, List.of(DType.F32), List.of(OUT))[0];
            for (int el = 0; el < OUT.elementCount(); el++) {
                // a stored NaN is the canonical one (docs/semantics.md, "One NaN from computation")
                float value = (Float) at(e, el, ins);
                float expect = Float.isNaN(value) ? Float.NaN : value;
                assertThat(Float.floatToRawIntBits(got.getFloat(el)))
                        .as("%s at element %d, run %d: %s vs %s", Expr.print(e), el, run, got.getFloat(el), expect)
                        .isEqualTo(Float.floatToRawIntBits(expect));
            }
        }
    }

    @Test
    void aChainOfAnyLengthNeedsTwoColumns() throws Fault {
        Expr e = Expr.in(0);
        for (int i = 0; i < 50; i++) {
            e = Expr.apply(i % 2 == 0 ? Fn.ADD : Fn.MUL, e, Expr.apply(Fn.EXP, Expr.f(i * 0.01)));
        }
        CompiledExpr c = ExprCompiler.compile(e, OUT, inputs(new Random(1)), new ShapeCache(), false, false);
        // in0 is read in place; the running value and the exp operand take one column each
        assertThat(c.scratchColumns()).isLessThanOrEqualTo(3);
        List<Tensor> ins = inputs(new Random(2));
        Tensor got = c.evaluate(state, ins, new Scratch(), List.of(DType.F32), List.of(OUT))[0];
        for (int el = 0; el < OUT.elementCount(); el++) {
            assertThat(got.getFloat(el)).isEqualTo((Float) at(e, el, ins));
        }
    }

    @Test
    void columnsGrownForALargeExpressionServeASmallOneAfterIt() throws Fault {
        Scratch scratch = new Scratch();
        Shape big = Shape.of(64, 33);
        List<Tensor> bigIns = List.of(Tensor.fromFloats(DType.F32, big, randomFloats(new Random(3), 64 * 33)));
        Expr twice = Expr.apply(Fn.ADD, Expr.apply(Fn.MUL, Expr.in(0), Expr.f(2)), Expr.f(1));
        CompiledExpr onBig = ExprCompiler.compile(twice, big, bigIns, new ShapeCache(), false, false);
        onBig.evaluate(state, bigIns, scratch, List.of(DType.F32), List.of(big));
        List<Tensor> ins = inputs(new Random(4));
        CompiledExpr onSmall = ExprCompiler.compile(twice, OUT, ins, new ShapeCache(), false, false);
        Tensor got = onSmall.evaluate(state, ins, scratch, List.of(DType.BF16), List.of(OUT))[0];
        assertThat(got.size()).isEqualTo(OUT.elementCount());
        for (int el = 0; el < OUT.elementCount(); el++) {
            assertThat(got.getFloat(el)).isEqualTo(Rounding.roundTo(DType.BF16, ins.get(0).getFloat(el) * 2f + 1f));
        }
    }

    @Test
    void anEmptyShapeHasNoElementToComputeOrSpread() throws Fault {
        Shape empty = Shape.of(0, 7);
        List<Tensor> ins = List.of(Tensor.fromFloats(DType.F32, empty, new float[0]), Tensor.fromFloats(DType.F32, Shape.of(1), new float[] {2f}));
        Expr e = Expr.apply(Fn.ADD, Expr.in(0), Expr.apply(Fn.MUL, Expr.in(1), Expr.f(3)));
        CompiledExpr c = ExprCompiler.compile(e, empty, ins, new ShapeCache(), false, false);
        assertThat(c.evaluate(state, ins, new Scratch(), List.of(DType.F32), List.of(empty))[0].size()).isZero();
        CompiledExpr constant = ExprCompiler.compile(Expr.f(1), empty, ins, new ShapeCache(), false, false);
        assertThat(constant.evaluate(state, ins, new Scratch(), List.of(DType.BF16), List.of(empty))[0].size()).isZero();
    }

    @Test
    void aTypeErrorIsRaisedAfterTheArgumentsBeforeItAsTheDefinitionMeetsIt() {
        // div(in5, 0) faults first (its argument), though add(INT, FLOAT) is also a type error
        Expr e = Expr.apply(Fn.ADD, Expr.apply(Fn.DIV, Expr.in(INT_INPUT), Expr.i(0)), Expr.in(0));
        CompiledExpr c = ExprCompiler.compile(e, OUT, inputs(new Random(5)), new ShapeCache(), false, false);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> c.evaluate(state, inputs(new Random(5)), new Scratch(), List.of(DType.F32), List.of(OUT)))
                .isInstanceOf(Fault.class).extracting(t -> ((Fault) t).code().spelling()).isEqualTo("DIV_BY_ZERO");
        Expr typeOnly = Expr.apply(Fn.ADD, Expr.in(INT_INPUT), Expr.in(0));
        CompiledExpr t = ExprCompiler.compile(typeOnly, OUT, inputs(new Random(5)), new ShapeCache(), false, false);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> t.evaluate(state, inputs(new Random(5)), new Scratch(), List.of(DType.F32), List.of(OUT)))
                .isInstanceOf(Fault.class).hasMessage("add cannot take INT and FLOAT.");
    }

    // ---- random expressions ----

    private static final Fn[] FLOAT_BINARY = {Fn.ADD, Fn.SUB, Fn.MUL, Fn.DIV, Fn.MAX, Fn.MIN, Fn.REM};
    private static final Fn[] FLOAT_UNARY = {Fn.NEG, Fn.ABS, Fn.EXP, Fn.LOG, Fn.SQRT, Fn.RSQRT, Fn.TANH, Fn.SIGMOID,
            Fn.RECIP, Fn.SIN, Fn.COS};
    private static final Fn[] INT_BINARY = {Fn.ADD, Fn.SUB, Fn.MUL, Fn.MAX, Fn.MIN};
    private static final Fn[] COMPARE = {Fn.EQ, Fn.NE, Fn.LT, Fn.LE, Fn.GT, Fn.GE};
    private static final DType[] FLOAT_CASTS = {DType.F32, DType.BF16, DType.F16, DType.E4M3, DType.E5M2};

    private static Expr floatExpr(SplittableRandom d, int depth) {
        int pick = depth == 0 ? d.nextInt(2) : d.nextInt(7);
        return switch (pick) {
            case 0 -> Expr.in(d.nextInt(5));
            case 1 -> Expr.f(d.nextInt(-8, 9) * 0.375);
            case 2 -> Expr.apply(FLOAT_BINARY[d.nextInt(FLOAT_BINARY.length)], floatExpr(d, depth - 1), floatExpr(d, depth - 1));
            case 3 -> Expr.apply(FLOAT_UNARY[d.nextInt(FLOAT_UNARY.length)], floatExpr(d, depth - 1));
            case 4 -> Expr.apply(Fn.SELECT, boolExpr(d, depth - 1), floatExpr(d, depth - 1), floatExpr(d, depth - 1));
            case 5 -> new Expr.Cast(FLOAT_CASTS[d.nextInt(FLOAT_CASTS.length)], d.nextBoolean() ? intExpr(d, depth - 1) : floatExpr(d, depth - 1));
            default -> Expr.apply(Fn.MUL, floatExpr(d, depth - 1), Expr.in(d.nextInt(5)));
        };
    }

    private static Expr intExpr(SplittableRandom d, int depth) {
        int pick = depth == 0 ? d.nextInt(4) : d.nextInt(8);
        return switch (pick) {
            case 0 -> Expr.in(INT_INPUT);
            case 1 -> Expr.i(d.nextInt(-5, 6));
            case 2 -> new Expr.Index(d.nextInt(2));
            case 3 -> new Expr.ParamRef("p");
            case 4 -> Expr.apply(INT_BINARY[d.nextInt(INT_BINARY.length)], intExpr(d, depth - 1), intExpr(d, depth - 1));
            case 5 -> Expr.apply(d.nextBoolean() ? Fn.NEG : Fn.ABS, intExpr(d, depth - 1));
            case 6 -> new Expr.Cast(DType.I32, d.nextBoolean() ? floatExpr(d, depth - 1) : boolExpr(d, depth - 1));
            default -> Expr.apply(Fn.SELECT, boolExpr(d, depth - 1), intExpr(d, depth - 1), intExpr(d, depth - 1));
        };
    }

    private static Expr boolExpr(SplittableRandom d, int depth) {
        int pick = depth <= 0 ? d.nextInt(2) : d.nextInt(4);
        return switch (pick) {
            case 0 -> Expr.apply(COMPARE[d.nextInt(COMPARE.length)], floatExpr(d, Math.max(0, depth - 1)), floatExpr(d, Math.max(0, depth - 1)));
            case 1 -> Expr.apply(COMPARE[d.nextInt(COMPARE.length)], intExpr(d, Math.max(0, depth - 1)), intExpr(d, Math.max(0, depth - 1)));
            case 2 -> Expr.apply(d.nextBoolean() ? Fn.AND : Fn.OR, boolExpr(d, depth - 1), boolExpr(d, depth - 1));
            default -> Expr.apply(Fn.NOT, boolExpr(d, depth - 1));
        };
    }

    private static List<Tensor> inputs(Random r) {
        List<Tensor> ins = new ArrayList<>();
        for (int i = 0; i < IN_SHAPES.size(); i++) {
            Shape s = IN_SHAPES.get(i);
            int n = (int) s.elementCount();
            if (IN_TYPES.get(i) == DType.I32) {
                int[] v = new int[n];
                for (int e = 0; e < n; e++) v[e] = r.nextInt(-20, 21);
                ins.add(Tensor.fromInts(s, v));
            } else {
                ins.add(Tensor.fromFloats(IN_TYPES.get(i), s, randomFloats(r, n)));
            }
        }
        return ins;
    }

    private static float[] randomFloats(Random r, int n) {
        float[] v = new float[n];
        for (int e = 0; e < n; e++) {
            v[e] = r.nextInt(10) == 0 ? 0f : (float) (r.nextGaussian() * 3);
        }
        return v;
    }

    // ---- the per-element definition (docs/semantics.md, "Generic") ----

    /** The value of {@code e} at output element {@code el}: a Float, Integer or Boolean. */
    private static Object at(Expr e, int el, List<Tensor> ins) {
        int row = el / 7;
        int col = el % 7;
        return switch (e) {
            case Expr.In in -> {
                Tensor t = ins.get(in.index());
                Shape s = t.shape();
                // numpy broadcasting to [4, 7], axes aligned on the right
                int flat = s.rank() == 1 ? (s.dim(0) == 1 ? 0 : col) : (s.dim(0) == 1 ? 0 : row) * s.dim(1) + (s.dim(1) == 1 ? 0 : col);
                yield t.dtype() == DType.I32 ? (Object) t.getInt(flat) : (Object) t.getFloat(flat);
            }
            case Expr.FloatConst c -> (float) c.value();
            case Expr.IntConst c -> c.value();
            case Expr.ParamRef p -> (int) PARAM;
            case Expr.Index ix -> ix.axis() == 0 ? row : col;
            case Expr.Cast c -> {
                Object v = at(c.arg(), el, ins);
                if (c.dtype() == DType.I32) {
                    yield v instanceof Float f ? (int) (float) f : v instanceof Boolean b ? (b ? 1 : 0) : v;
                }
                float f = v instanceof Float x ? x : v instanceof Integer i ? (float) (int) i : ((Boolean) v ? 1f : 0f);
                yield v instanceof Boolean ? f : Rounding.roundTo(c.dtype(), f);
            }
            case Expr.Apply a -> apply(a, el, ins);
        };
    }

    private static Object apply(Expr.Apply a, int el, List<Tensor> ins) {
        List<Object> v = new ArrayList<>();
        for (Expr arg : a.args()) {
            v.add(at(arg, el, ins));
        }
        Object x = v.get(0);
        return switch (a.fn()) {
            case ADD, SUB, MUL, DIV, MAX, MIN, REM -> x instanceof Float f ? (Object) floatArith(a.fn(), f, (Float) v.get(1))
                    : (Object) intArith(a.fn(), (Integer) x, (Integer) v.get(1));
            case NEG -> x instanceof Float f ? (Object) (-f) : (Object) (-(Integer) x);
            case ABS -> x instanceof Float f ? (Object) Math.abs(f) : (Object) Math.abs((Integer) x);
            case EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS -> {
                double d = (Float) x;
                double r = switch (a.fn()) {
                    case EXP -> StrictMath.exp(d);
                    case LOG -> StrictMath.log(d);
                    case SQRT -> StrictMath.sqrt(d);
                    case RSQRT -> 1.0 / StrictMath.sqrt(d);
                    case TANH -> StrictMath.tanh(d);
                    case SIGMOID -> 1.0 / (1.0 + StrictMath.exp(-d));
                    case RECIP -> 1.0 / d;
                    case SIN -> StrictMath.sin(d);
                    case COS -> StrictMath.cos(d);
                    case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EQ, NE, LT, LE, GT, GE, AND, OR, NOT, SELECT ->
                            throw new IllegalArgumentException(a.fn() + " is not a float function");
                };
                yield (float) r;
            }
            case EQ, NE, LT, LE, GT, GE -> {
                double p = x instanceof Float f ? f : (Integer) x;
                Object y = v.get(1);
                double q = y instanceof Float f ? f : (Integer) y;
                yield switch (a.fn()) {
                    case EQ -> p == q;
                    case NE -> p != q;
                    case LT -> p < q;
                    case LE -> p <= q;
                    case GT -> p > q;
                    case GE -> p >= q;
                    case ADD, SUB, MUL, DIV, MAX, MIN, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN,
                         COS, AND, OR, NOT, SELECT -> throw new IllegalArgumentException(a.fn() + " is not a comparison");
                };
            }
            case AND -> (Boolean) x && (Boolean) v.get(1);
            case OR -> (Boolean) x || (Boolean) v.get(1);
            case NOT -> !(Boolean) x;
            case SELECT -> (Boolean) x ? v.get(1) : v.get(2);
        };
    }

    private static float floatArith(Fn fn, float x, float y) {
        return switch (fn) {
            case ADD -> x + y;
            case SUB -> x - y;
            case MUL -> x * y;
            case DIV -> x / y;
            case MAX -> Math.max(x, y);
            case MIN -> Math.min(x, y);
            case REM -> x % y;
            case NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, AND, OR, NOT,
                 SELECT -> throw new IllegalArgumentException(fn + " is not arithmetic");
        };
    }

    private static int intArith(Fn fn, int x, int y) {
        return switch (fn) {
            case ADD -> x + y;
            case SUB -> x - y;
            case MUL -> x * y;
            case MAX -> Math.max(x, y);
            case MIN -> Math.min(x, y);
            case DIV, REM, NEG, ABS, EXP, LOG, SQRT, RSQRT, TANH, SIGMOID, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, AND,
                 OR, NOT, SELECT -> throw new IllegalArgumentException(fn + " is not drawn for INT");
        };
    }
}
