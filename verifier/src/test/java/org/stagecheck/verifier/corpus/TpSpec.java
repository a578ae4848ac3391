package org.stagecheck.verifier.corpus;

import java.util.Random;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/**
 * One small two-layer program {@code y = act(x @ W1 (+ b1)) @ W2 + b2} and how to split it over
 * {@code tp} chips, Megatron-style: W1 (and b1) column-parallel, W2 row-parallel (its contraction
 * axis sharded, so each chip makes a partial), one sum all-reduce, then the bias b2 on every chip.
 *
 * @param rows      rows of x (tokens)
 * @param model     the model width d (columns of x and y)
 * @param hidden    the hidden width f, a multiple of {@code tp} (twice that when {@code streamK})
 * @param tp        the number of chips of the split
 * @param act       the activation between the two matmuls
 * @param bias1     whether the first matmul has a bias (named inside the op: a kind-internal reference)
 * @param multicast whether x reaches the compute core through a multicast group (loader core -> compute core)
 * @param streamK   whether W2's slice is contracted in two halves accumulated in a spill buffer
 */
public record TpSpec(int rows, int model, int hidden, int tp, Act act, boolean bias1, boolean multicast, boolean streamK) {

    public enum Act {
        RELU, TANH, SILU;

        public Expr expr() {
            return switch (this) {
                case RELU -> Expr.apply(Fn.MAX, Expr.in(0), Expr.f(0.0));
                case TANH -> Expr.apply(Fn.TANH, Expr.in(0));
                case SILU -> Expr.apply(Fn.MUL, Expr.in(0), Expr.apply(Fn.SIGMOID, Expr.in(0)));
            };
        }
    }

    public TpSpec {
        int per = streamK ? 2 * tp : tp;
        if (hidden % per != 0) {
            throw new IllegalArgumentException("hidden " + hidden + " is not a multiple of " + per);
        }
    }

    /** Columns of W1 (rows of W2) each chip holds. */
    public int slice() {
        return hidden / tp;
    }

    /** A deterministic random spec: the same seed gives the same program. */
    public static TpSpec random(long seed) {
        Random r = new Random(seed);
        int tp = r.nextBoolean() ? 2 : 4;
        boolean streamK = r.nextBoolean();
        int per = streamK ? 2 * tp : tp;
        int hidden = per * (1 + r.nextInt(3));
        return new TpSpec(1 + r.nextInt(3), 2 + r.nextInt(6), hidden, tp, Act.values()[r.nextInt(3)],
                r.nextBoolean(), r.nextBoolean(), streamK);
    }
}
