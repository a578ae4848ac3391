package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.json.ExprSyntax;

/**
 * Piecewise-affine forms of integer expressions in one parameter (docs/verifier.md, "Piecewise
 * indices"): every form the checker makes gives, for every value of the parameter in its declared
 * range, the value the evaluator computes (i32 arithmetic that wraps, division that truncates,
 * both branches of a select evaluated), and equal functions written differently get one form.
 */
class PiecewiseTest {

    private static Function<String, long[]> range(long lo, long hi) {
        return s -> s.equals("p:pos") ? new long[] {lo, hi} : null;
    }

    private static Piecewise form(Expr e, long lo, long hi) {
        Function<String, long[]> rangeOf = range(lo, hi);
        return Piecewise.of(e, x -> Affine.of(x, List.of(), Map.of(), Map.of(), 0, p -> null, rangeOf), rangeOf);
    }

    private static Piecewise form(String text, long lo, long hi) throws Exception {
        return form(ExprSyntax.parse(text), lo, hi);
    }

    @Test
    void a_select_on_the_parameter_and_the_remainder_it_writes_are_one_form() throws Exception {
        Piecewise rem = form("rem(param(pos), 4)", 0, 7);
        assertThat(rem.name()).isEqualTo("pw:p:pos{0..3:1,0;4..7:1,-4}");
        for (String same : new String[] {
                "select(ge(param(pos), 4), sub(param(pos), 4), param(pos))",
                "select(lt(param(pos), 4), param(pos), sub(param(pos), 4))",
                "select(gt(param(pos), 3), sub(param(pos), 4), param(pos))",
                "select(or(eq(param(pos), 4), gt(param(pos), 4)), sub(param(pos), 4), param(pos))",
                "sub(param(pos), mul(4, div(param(pos), 4)))",
                "sub(param(pos), mul(i32(ge(param(pos), 4)), 4))",
        }) {
            assertThat(form(same, 0, 7)).as(same).isEqualTo(rem);
        }
        // the form depends on the declared range: on [0, 3] the remainder is pos itself, one affine piece
        assertThat(form("rem(param(pos), 4)", 0, 3).affine()).isEqualTo(Affine.source("p:pos", 1));
        assertThat(form("rem(param(pos), 4)", 0, 8).pieces()).hasSize(3);
    }

    @Test
    void neighbours_of_the_slot_are_other_forms() throws Exception {
        Piecewise rem = form("rem(param(pos), 4)", 0, 7);
        for (String other : new String[] {
                "select(ge(param(pos), 5), sub(param(pos), 4), param(pos))",
                "select(ge(param(pos), 4), sub(param(pos), 3), param(pos))",
                "select(ge(param(pos), 4), param(pos), sub(param(pos), 4))",
                "rem(add(param(pos), 1), 4)",
        }) {
            assertThat(form(other, 0, 7)).as(other).isNotNull().isNotEqualTo(rem);
        }
    }

    @Test
    void values_that_wrap_or_divide_by_zero_have_no_form() throws Exception {
        // pos + 2^31 - 1 leaves i32 for pos >= 1: the comparison of the wrapped value is not the exact one
        assertThat(form("select(ge(add(param(pos), 2147483647), 2147483647), 1, 0)", 0, 3)).isNull();
        // the unchosen branch still divides by zero on the evaluator
        assertThat(form("select(ge(param(pos), 4), div(param(pos), 0), param(pos))", 0, 7)).isNull();
        // the dividend MIN_VALUE
        assertThat(form("rem(sub(param(pos), 2147483647), 4)", -1, 3)).isNull();
        // the result leaves i32
        assertThat(form("select(ge(param(pos), 4), mul(param(pos), 1073741824), 0)", 0, 7)).isNull();
        // a wrap that comes back within i32 is exact: addition commutes with wrapping
        assertThat(form("sub(add(param(pos), 2147483647), 2147483647)", 0, 7).affine()).isEqualTo(Affine.source("p:pos", 1));
    }

    @Test
    void every_form_gives_the_evaluators_value_at_every_parameter_value() {
        SplittableRandom r = new SplittableRandom(2026);
        int followed = 0;
        int n = 3000;
        for (int i = 0; i < n; i++) {
            long lo = r.nextInt(4) == 0 ? Integer.MAX_VALUE - 10 - r.nextInt(20) : r.nextInt(4) == 0 ? Integer.MIN_VALUE + r.nextInt(5) : -6 + r.nextInt(10);
            long hi = lo + r.nextInt(14);
            hi = Math.min(hi, Integer.MAX_VALUE);
            Expr e = intExpr(r, 4);
            Piecewise p = form(e, lo, hi);
            if (p == null) {
                continue;
            }
            followed++;
            for (long v = lo; v <= hi; v++) {
                Long want = evalInt(e, (int) v);
                assertThat(want).as(Expr.print(e) + " at pos = " + v + " (the evaluator faults), form " + p.name()).isNotNull();
                assertThat(valueAt(p, v)).as(Expr.print(e) + " at pos = " + v + ", form " + p.name()).isEqualTo(want);
            }
        }
        assertThat(followed).as("expressions with a form").isGreaterThan(n / 3);
    }

    @Test
    void a_function_has_one_form_whatever_its_pieces_were() throws Exception {
        // a one-value piece on its neighbour's line, and a value where two lines meet, written both ways
        assertThat(form("select(eq(param(pos), 4), 0, rem(param(pos), 4))", 0, 7)).isEqualTo(form("rem(param(pos), 4)", 0, 7));
        assertThat(form("max(param(pos), sub(4, param(pos)))", 0, 7)).isEqualTo(form("select(gt(param(pos), 2), param(pos), sub(4, param(pos)))", 0, 7));
        assertThat(form("max(param(pos), sub(4, param(pos)))", 0, 7).name()).isEqualTo("pw:p:pos{0..2:-1,4;3..7:1,0}");
        // two values are one line: an affine form
        assertThat(form("i32(ge(param(pos), 4))", 3, 4).affine()).isEqualTo(Affine.source("p:pos", 1).plus(Affine.of(-3)));
        // random expressions on one range: equal values, one form
        SplittableRandom r = new SplittableRandom(7);
        Map<List<Long>, String> formOfValues = new java.util.HashMap<>();
        int same = 0;
        for (int i = 0; i < 4000; i++) {
            Expr e = intExpr(r, 3);
            Piecewise p = form(e, -3, 6);
            if (p == null) {
                continue;
            }
            List<Long> values = new java.util.ArrayList<>();
            for (long v = -3; v <= 6; v++) {
                values.add(valueAt(p, v));
            }
            String name = p.affine().sym().key();
            String before = formOfValues.putIfAbsent(values, name);
            if (before != null) {
                same++;
                assertThat(name).as(Expr.print(e) + " takes the values of another expression").isEqualTo(before);
            }
        }
        assertThat(same).as("expressions with the values of an earlier one").isGreaterThan(500);
    }

    private static long valueAt(Piecewise p, long v) {
        for (Piecewise.Piece q : p.pieces()) {
            if (p.var() == null || q.lo() <= v && v <= q.hi()) {
                return q.at(p.var() == null ? 0 : v);
            }
        }
        throw new AssertionError(v + " is in no piece of " + p.name());
    }

    private static final Fn[] ARITH = {Fn.ADD, Fn.SUB, Fn.MUL, Fn.NEG, Fn.DIV, Fn.REM, Fn.MAX, Fn.MIN};
    private static final Fn[] COMPARE = {Fn.EQ, Fn.NE, Fn.LT, Fn.LE, Fn.GT, Fn.GE};
    private static final int[] CONSTANTS = {0, 1, -1, 2, 3, 4, -4, 5, 7, 8, Integer.MAX_VALUE, Integer.MIN_VALUE, 1 << 30};

    private static Expr intExpr(SplittableRandom r, int depth) {
        int pick = depth == 0 ? r.nextInt(2) : r.nextInt(6);
        return switch (pick) {
            case 0 -> new Expr.ParamRef("pos");
            case 1 -> new Expr.IntConst(CONSTANTS[r.nextInt(CONSTANTS.length)]);
            case 2 -> new Expr.Apply(Fn.SELECT, List.of(boolExpr(r, depth - 1), intExpr(r, depth - 1), intExpr(r, depth - 1)));
            case 3 -> new Expr.Cast(DType.I32, boolExpr(r, depth - 1));
            default -> {
                Fn f = ARITH[r.nextInt(ARITH.length)];
                if (f == Fn.NEG) {
                    yield new Expr.Apply(f, List.of(intExpr(r, depth - 1)));
                }
                Expr b = f == Fn.DIV || f == Fn.REM || f == Fn.MUL && r.nextBoolean() ? new Expr.IntConst(CONSTANTS[r.nextInt(CONSTANTS.length)]) : intExpr(r, depth - 1);
                yield new Expr.Apply(f, List.of(intExpr(r, depth - 1), b));
            }
        };
    }

    private static Expr boolExpr(SplittableRandom r, int depth) {
        int pick = depth <= 0 ? 0 : r.nextInt(5);
        return switch (pick) {
            case 1 -> new Expr.Apply(Fn.NOT, List.of(boolExpr(r, depth - 1)));
            case 4 -> new Expr.Apply(Fn.SELECT, List.of(boolExpr(r, depth - 1), boolExpr(r, depth - 1), boolExpr(r, depth - 1)));
            case 2 -> new Expr.Apply(r.nextBoolean() ? Fn.AND : Fn.OR, List.of(boolExpr(r, depth - 1), boolExpr(r, depth - 1)));
            default -> new Expr.Apply(COMPARE[r.nextInt(COMPARE.length)], List.of(intExpr(r, Math.max(0, depth - 1)), intExpr(r, Math.max(0, depth - 1))));
        };
    }

    /** The evaluator's value (Java int arithmetic, as its ExprFns computes i32), or null where it faults (a division by zero). */
    private static Long evalInt(Expr e, int pos) {
        return switch (e) {
            case Expr.ParamRef p -> (long) pos;
            case Expr.IntConst c -> (long) c.value();
            case Expr.Cast c -> {
                Boolean b = evalBool(c.arg(), pos);
                yield b == null ? null : b ? 1L : 0L;
            }
            case Expr.Apply a when a.fn() == Fn.SELECT -> {
                Boolean c = evalBool(a.args().get(0), pos);
                Long x = evalInt(a.args().get(1), pos);
                Long y = evalInt(a.args().get(2), pos);
                yield c == null || x == null || y == null ? null : c ? x : y; // both branches are evaluated
            }
            case Expr.Apply a when a.fn() == Fn.NEG -> {
                Long x = evalInt(a.args().get(0), pos);
                yield x == null ? null : (long) -x.intValue();
            }
            case Expr.Apply a -> {
                int[] xy = intOperands(a, pos);
                if (xy == null) {
                    yield null;
                }
                int x = xy[0];
                int y = xy[1];
                yield switch (a.fn()) {
                    case ADD -> (long) (x + y);
                    case SUB -> (long) (x - y);
                    case MUL -> (long) (x * y);
                    case DIV -> y == 0 ? null : (long) (x / y);
                    case REM -> y == 0 ? null : (long) (x % y);
                    case MAX -> (long) Math.max(x, y);
                    case MIN -> (long) Math.min(x, y);
                    default -> throw new IllegalArgumentException(Expr.print(e));
                };
            }
            default -> throw new IllegalArgumentException(Expr.print(e));
        };
    }

    /** The values of a binary operation's two integer operands as i32, or null where either faults. */
    private static int[] intOperands(Expr.Apply a, int pos) {
        Long x = evalInt(a.args().get(0), pos);
        Long y = evalInt(a.args().get(1), pos);
        return x == null || y == null ? null : new int[] {x.intValue(), y.intValue()};
    }

    private static Boolean evalBool(Expr e, int pos) {
        Expr.Apply a = (Expr.Apply) e;
        return switch (a.fn()) {
            case NOT -> {
                Boolean x = evalBool(a.args().get(0), pos);
                yield x == null ? null : !x;
            }
            case SELECT -> {
                Boolean c = evalBool(a.args().get(0), pos);
                Boolean x = evalBool(a.args().get(1), pos);
                Boolean y = evalBool(a.args().get(2), pos);
                yield c == null || x == null || y == null ? null : c ? x : y;
            }
            case AND, OR -> {
                Boolean x = evalBool(a.args().get(0), pos);
                Boolean y = evalBool(a.args().get(1), pos);
                yield x == null || y == null ? null : a.fn() == Fn.AND ? x && y : x || y;
            }
            default -> {
                int[] xy = intOperands(a, pos);
                if (xy == null) {
                    yield null;
                }
                int x = xy[0];
                int y = xy[1];
                yield switch (a.fn()) {
                    case EQ -> x == y;
                    case NE -> x != y;
                    case LT -> x < y;
                    case LE -> x <= y;
                    case GT -> x > y;
                    case GE -> x >= y;
                    default -> throw new IllegalArgumentException(Expr.print(e));
                };
            }
        };
    }
}
