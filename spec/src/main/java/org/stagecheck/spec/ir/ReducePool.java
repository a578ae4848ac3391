package org.stagecheck.spec.ir;

import java.util.Locale;

/**
 * The reduction an {@code AllReduce} performs across chips. Its {@code combine} is the left fold
 * of the pool's binary function over the operands in port order:
 * {@code add(add(in0, in1), in2)} for SUM (brief, "Stages").
 */
public enum ReducePool {
    SUM(Fn.ADD), MAX(Fn.MAX), MIN(Fn.MIN);

    private final Fn fn;

    ReducePool(Fn fn) {
        this.fn = fn;
    }

    public Fn fn() {
        return fn;
    }

    /** The canonical combine for {@code operands} inputs (at least 1). */
    public Expr fold(int operands) {
        if (operands < 1) {
            throw new IllegalArgumentException("a fold needs at least one operand");
        }
        Expr acc = Expr.in(0);
        for (int i = 1; i < operands; i++) {
            acc = Expr.apply(fn, acc, Expr.in(i));
        }
        return acc;
    }

    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
