package org.stagecheck.verifier.shard;

import org.stagecheck.spec.ir.ReducePool;

/**
 * What the UnreducedShard analysis knows about a buffer's value at a program point (brief,
 * "Certificates"; docs/verifier.md, "The abstract domain"). A buffer absent from the analysis'
 * map is unwritten.
 */
public sealed interface Fact {

    /** The complete value, the same as the unsplit program would have (for partial-ness purposes). */
    record Full() implements Fact {}

    /**
     * A local value holding only {@code slices} of axis {@code axis} of logical tensor
     * {@code logical} (loaded from a shard tensor, or computed elementwise from one). It is
     * complete where it is (a column-parallel matmul's output is a shard, and fine); it becomes a
     * partial when a contraction or a sum runs over {@code axis}.
     */
    record Shard(String logical, int axis, Slices slices, String tensor, Origin origin) implements Fact {}

    /**
     * The {@code pool}-reduction of logical tensor {@code logical}'s contribution over only
     * {@code slices} of its contraction axis: it must be all-reduced before it means anything.
     * {@code view} is how it was laid out and scaled since it was made ({@link View}): an
     * all-reduce requires the same view on every chip.
     */
    record Partial(String logical, Slices slices, ReducePool pool, View view, Origin origin) implements Fact {
        /** Whether {@code other} is a partial over the same partition (tensor, slices, pool). */
        public boolean samePartition(Partial other) {
            return logical.equals(other.logical) && slices.equals(other.slices) && pool == other.pool;
        }

        /** {@code partial of w_o over [0,512)}. */
        public String describe() {
            return (pool == ReducePool.SUM ? "partial" : pool.jsonName() + "-partial") + " of " + logical + " over " + slices;
        }
    }

    /**
     * A value downstream of a finding already reported: the analysis stays quiet about it, so one
     * bug gives one diagnostic and not a cascade.
     */
    record Tainted() implements Fact {}

    Fact FULL = new Full();
    Fact TAINTED = new Tainted();
}
