package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.ValueType;
import org.stagecheck.spec.validate.ExprTyper;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.ProgramIndex;

/**
 * Which integer arithmetic keeps a partial (docs/verifier.md, "Integer partials"). Integer
 * arithmetic wraps modulo 2^32 and divides towards zero, so the rules of the float algebra do not
 * all carry over:
 * <ul>
 *   <li>a sum partial stays one through add, sub, neg and mul by a value: the ring of integers
 *       modulo 2^32 keeps {@code sum_c f(p_c) = f(sum_c p_c)} for each of them, and the sum
 *       all-reduce wraps the same way;</li>
 *   <li>integer division of a sum partial is not linear ({@code (1 + 1) / 2 = 1} but
 *       {@code 1/2 + 1/2 = 0});</li>
 *   <li>no integer arithmetic keeps a max or min partial: {@code x + 1} wraps at the largest value
 *       and {@code -x} at the smallest, so {@code max_c(x_c + 1)} is not {@code max_c(x_c) + 1}
 *       where one chip holds {@code 2^31 - 1}, nor {@code max_c(-x_c)} {@code -min_c(x_c)} where
 *       one holds {@code -2^31}.</li>
 * </ul>
 */
final class IntegerPartials {
    private IntegerPartials() {}

    /** The type of every node of {@code expr} over the stage's input buffers {@code names}; null where it does not type (the validator says why). */
    static Map<Expr, ValueType> types(ProgramIndex index, Expr expr, List<String> names, int rank) {
        List<ValueType> ins = new ArrayList<>(names.size());
        for (String n : names) {
            BufferDecl b = index.buffer(n);
            if (b == null) {
                return null;
            }
            ins.add(ValueType.of(b.dtype()));
        }
        try {
            return new ExprTyper(ins, index.program().paramsByName().keySet(), rank).typesOf(expr);
        } catch (ExprTyper.TypeError e) {
            return null;
        }
    }

    /** Refutes integer arithmetic {@code fn} over {@code args} that does not keep the partial among them. */
    static void check(Fn fn, List<ExprRules.AV> args) {
        for (ExprRules.AV v : args) {
            if (!(v instanceof ExprRules.Lin l)) {
                continue;
            }
            boolean arithmetic = switch (fn) {
                case ADD, SUB, NEG, MUL, DIV, REM, ABS, MAX, MIN -> true;
                case SELECT, EXP, TANH, SIGMOID, LOG, SQRT, RSQRT, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, AND, OR, NOT -> false;
            };
            if (fn == Fn.DIV && l.pool() == ReducePool.SUM) {
                ExprRules.fail(Code.PARTIAL_NONLINEAR, "integer div rounds each chip's share of the " + ExprRules.describe(l)
                        + " towards zero, and the sum of rounded shares is not the rounded sum", l);
            }
            if (arithmetic && l.pool() != ReducePool.SUM && fn != Fn.MAX && fn != Fn.MIN) {
                ExprRules.fail(Code.PARTIAL_NONLINEAR, "integer " + fn.spelling() + " meets the " + ExprRules.describe(l)
                        + ": integer arithmetic wraps, so it does not keep the chips' " + l.pool().jsonName() + " (not monotone)", l);
            }
        }
    }
}
