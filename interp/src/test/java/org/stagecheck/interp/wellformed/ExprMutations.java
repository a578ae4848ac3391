package org.stagecheck.interp.wellformed;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/**
 * Single-node changes of an expression tree: another function of the same arity, another input
 * index or element axis, another cast dtype, an INT constant for a FLOAT one (or back), an unknown
 * parameter. Nodes are numbered in pre-order; one node is replaced.
 */
final class ExprMutations {
    private ExprMutations() {
    }

    /** {@code e} with one node changed, or null when the drawn node has no change to offer. */
    static Expr mutate(Expr e, SplittableRandom r) {
        int target = r.nextInt(size(e));
        return replace(e, new int[] {target}, r);
    }

    static int size(Expr e) {
        return switch (e) {
            case Expr.Apply a -> 1 + a.args().stream().mapToInt(ExprMutations::size).sum();
            case Expr.Cast c -> 1 + size(c.arg());
            case Expr.In in -> 1;
            case Expr.FloatConst c -> 1;
            case Expr.IntConst c -> 1;
            case Expr.ParamRef p -> 1;
            case Expr.Index ix -> 1;
        };
    }

    private static Expr replace(Expr e, int[] left, SplittableRandom r) {
        if (left[0]-- == 0) {
            return change(e, r);
        }
        return switch (e) {
            case Expr.Apply a -> {
                List<Expr> args = new ArrayList<>(a.args());
                for (int k = 0; k < args.size(); k++) {
                    args.set(k, replace(args.get(k), left, r));
                }
                yield new Expr.Apply(a.fn(), args);
            }
            case Expr.Cast c -> new Expr.Cast(c.dtype(), replace(c.arg(), left, r));
            case Expr.In in -> in;
            case Expr.FloatConst c -> c;
            case Expr.IntConst c -> c;
            case Expr.ParamRef p -> p;
            case Expr.Index ix -> ix;
        };
    }

    private static Expr change(Expr e, SplittableRandom r) {
        return switch (e) {
            case Expr.Apply a -> {
                List<Fn> same = new ArrayList<>();
                for (Fn f : Fn.values()) {
                    if (f.arity() == a.fn().arity() && f != a.fn()) {
                        same.add(f);
                    }
                }
                yield same.isEmpty() ? e : new Expr.Apply(same.get(r.nextInt(same.size())), a.args());
            }
            case Expr.Cast c -> new Expr.Cast(DType.values()[(c.dtype().ordinal() + 1 + r.nextInt(DType.values().length - 1)) % DType.values().length], c.arg());
            case Expr.In in -> new Expr.In(r.nextBoolean() ? in.index() + 1 : Math.max(0, in.index() - 1 - r.nextInt(2)));
            case Expr.FloatConst c -> new Expr.IntConst((int) c.value());
            case Expr.IntConst c -> r.nextBoolean() ? new Expr.FloatConst(c.value()) : new Expr.IntConst(r.nextBoolean() ? 0 : c.value() + 1);
            case Expr.ParamRef p -> new Expr.ParamRef(p.name() + "_undeclared");
            case Expr.Index ix -> new Expr.Index(r.nextBoolean() ? ix.axis() + 1 : Math.max(0, ix.axis() - 1));
        };
    }
}
