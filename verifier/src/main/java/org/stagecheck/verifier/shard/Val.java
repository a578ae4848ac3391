package org.stagecheck.verifier.shard;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;
import org.stagecheck.spec.ir.ReducePool;

/**
 * What the UnreducedShard analysis knows about a buffer's value at a program point
 * (docs/verifier.md, "The abstract domain"). A buffer absent from the analysis' map is unwritten.
 */
sealed interface Val {

    /**
     * {@code buffer[i] = term[region.origin + i]}: a window of a logical expression. When
     * {@code hidden} is not null the term has one more, leading, argument that the buffer holds
     * at one position: the start of the window of a contraction taken over a window of its axis
     * (one attention head's scores), so heads on different chips are one term at different
     * positions (docs/verifier.md, "Hidden positions").
     */
    record Exact(Term term, Region region, Hidden hidden) implements Val {
        public Exact(Term term, Region region) {
            this(term, region, null);
        }

        /** The same hidden position with another term and region. */
        Exact with(Term t, Region r) {
            return new Exact(t, r, hidden);
        }

        String hiddenKey() {
            return hidden == null ? "" : "h" + hidden.at().key() + "/" + hidden.width() + "/" + hidden.shift();
        }
    }

    /**
     * A hidden argument held at position {@code at}, a window start of a contraction of width
     * {@code width} whose second operand's window was {@code shift} further along.
     */
    record Hidden(Sym at, long width, long shift) {}

    /**
     * {@code buffer[i] = pool over families f of f.term restricted to f.slices, at region.origin + i}:
     * the chip's share of a reduction that an all-reduce must complete. {@code families} is keyed
     * by term id.
     */
    record Partial(ReducePool pool, SortedMap<Integer, Family> families, Region region, Origin origin) implements Val {
        public Partial {
            families = Collections.unmodifiableSortedMap(new TreeMap<>(families));
        }

        /** {@code partial of w2 over [0,4)}; several summands are listed. */
        String describe() {
            StringBuilder sb = new StringBuilder(pool == ReducePool.SUM ? "partial of " : pool.jsonName() + "-partial of ");
            int n = 0;
            for (Family f : families.values()) {
                sb.append(n++ == 0 ? "" : " + ").append(f.describe());
            }
            return n == 0 ? "zero partial" : sb.toString();
        }

        /** The families and slices as text that identifies them (for comparing partials). */
        String familyKey() {
            StringBuilder sb = new StringBuilder(pool.name());
            for (Family f : families.values()) {
                sb.append(';').append(f.key()).append(f.slices());
            }
            return sb.toString();
        }
    }

    /** A value downstream of a reported finding: the analysis stays quiet about it. */
    record Tainted() implements Val {}

    Val TAINTED = new Tainted();
}
