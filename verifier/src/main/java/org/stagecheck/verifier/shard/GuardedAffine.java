package org.stagecheck.verifier.shard;

import java.util.function.Function;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;

/**
 * A {@code Scalar} result {@code select(test, inside, outside)} whose test is a range test on an
 * index ({@link Guard}) and whose branches are affine: where the test holds it is {@code inside}
 * (an owned expert's local index, {@code e - first}), elsewhere {@code outside} (a block that is
 * read and then masked to 0). A block read at it holds the {@code inside} block only under the
 * guard (docs/verifier.md, "Sums over an index").
 */
record GuardedAffine(Guard guard, Affine inside, Affine outside) {

    /**
     * The guarded form of {@code e}, its operands' affine forms given by {@code affineOf}, or null;
     * null too when the test can wrap around i32 on its index's domain ({@code domain}, see
     * {@link Guard#exactOver}).
     */
    static GuardedAffine of(Expr e, Function<Expr, Affine> affineOf, Function<String, long[]> domain) {
        if (!(e instanceof Expr.Apply a) || a.fn() != Fn.SELECT || a.args().size() != 3) {
            return null;
        }
        Guard g = Guard.of(a.args().get(0), affineOf);
        Affine in = affineOf.apply(a.args().get(1));
        Affine out = affineOf.apply(a.args().get(2));
        return g == null || !g.exactOver(domain) || in == null || out == null ? null : new GuardedAffine(g, in, out);
    }
}
