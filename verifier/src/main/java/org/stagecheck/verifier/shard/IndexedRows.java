package org.stagecheck.verifier.shard;

import java.util.HashMap;
import java.util.Map;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;

/**
 * Rows of a logical tensor named by an index whose values the program does not bound (a token
 * id read from an input; docs/verifier.md, "Vocabulary-parallel embeddings"). A load of a
 * declared window at an offset whose logical position is {@code id + c} reads the logical
 * tensor's row {@code id + c}, which exists only for {@code id} in {@code [-c, extent - block - c]}:
 * that is the index's domain for the value read. It is recorded for that value (its term and
 * window, which names the index), so that a mask of exactly that value by the same index is a
 * sum over the domain's values. Read under a guard (a {@code Scalar} local id,
 * {@code select(s <= id < s + n, id - s, 0)}) the block stays in the shard (GuardedBounds); read
 * without one, it leaves the chip's window for some id of the domain when the window is not the
 * whole axis ({@code INDEXED_BLOCK_OUTSIDE_SHARD}).
 */
final class IndexedRows {
    /** The index values for which each value read at an unbounded index is the logical tensor's element, {@code [lo, hi)}, by value and index. */
    private final Map<String, long[]> domains = new HashMap<>();

    /** The domain of index {@code var} for which value {@code e} (as a load read it) is an element of its logical tensor, or null. */
    long[] domainOf(Val.Exact e, String var) {
        return e.hidden() != null ? null : domains.get(key(e, var));
    }

    /** Records that {@code read}, what a load checked by {@link #check} returned, holds the element of its domain {@code d}. */
    void record(Val read, Domain d) {
        if (d != null && read instanceof Val.Exact e && e.hidden() == null) {
            domains.merge(key(e, d.var()), new long[] {d.lo(), d.hi()}, (x, y) -> x[0] == y[0] && x[1] == y[1] ? x : new long[] {0, 0});
        }
    }

    private static String key(Val.Exact e, String var) {
        return e.term().id() + e.region().key() + "|" + var;
    }

    /** Index {@code var}'s values for which a read is an element of its logical tensor. */
    record Domain(String var, long lo, long hi) {}

    /**
     * Checks a Load of {@code t} with {@code p} (block extents {@code extent}) at an index offset:
     * an unguarded read out of the window is reported; returns the index's domain for the value
     * read (to {@link #record}), or null.
     */
    Domain check(MemoryRules memory, ShardState st, TensorDecl t, AccessPattern p, int[] extent) {
        Domain found = null;
        for (int a = 0; a < p.originOffsets().size() && a < extent.length; a++) {
            Offset o = p.originOffsets().get(a);
            String buffer = null;
            for (Offset.Term term : o.terms()) {
                if (term instanceof Offset.Term.OfBuffer b) {
                    buffer = b.buffer();
                }
            }
            if (buffer == null || !(st.value(buffer) instanceof Val.Exact e)) {
                continue;
            }
            GuardedAffine g = memory.guardedOffset(buffer);
            Affine inside;
            try {
                inside = memory.affine(o, Boolean.TRUE);
            } catch (ArithmeticException overflow) {
                continue;
            }
            Domain here = rows(st, t, a, e, inside, g, extent[a], buffer, GuardedBounds.originField(a));
            if (here != null) {
                found = found == null ? here : null; // one index axis only
            }
        }
        return found;
    }

    /**
     * The index's domain for a read of {@code block} elements at position {@code inside} (in
     * {@code t}'s own coordinates on {@code axis}, {@code e} the value in the index buffer,
     * {@code g} its guard or null): the index values for which the read names an element of the
     * logical tensor; an unguarded read that can leave the chip's window is reported at
     * {@code field}. Null when the position is not the index plus a constant or the index is bounded.
     */
    Domain rows(ShardState st, TensorDecl t, int a, Val.Exact e, Affine inside, GuardedAffine g, long block, String buffer, String field) {
        if (inside.coefficients().size() != 1 || inside.coefficients().firstEntry().getValue() != 1) {
            return null; // a position the rule does not read
        }
        String var = inside.coefficients().firstKey();
        long[] known = st.keyRanges.containsKey(var) ? st.keyRanges.get(var) : var.equals(st.elementKey(e)) ? st.rangeOf(e) : null;
        if (known != null || (g != null && !g.guard().var().equals(var)) || !var.startsWith("v:")) {
            return null; // a bounded index (GuardedBounds, the validator for parameters), or a guard on another index
        }
        ShardDecl d = st.decls.of(t.name());
        long start = d != null && d.axis() == a ? d.start() : 0;
        long logicalExtent = d != null && d.axis() == a ? d.extent() : t.shape().dim(a);
        long c = inside.constant() + start;
        long lo = -c;
        long hi = logicalExtent - block + 1 - c;
        if (g == null && (start != 0 || t.shape().dim(a) != logicalExtent)) {
            String name = st.indexNames.getOrDefault(var, buffer);
            st.findings.atStage(Code.INDEXED_BLOCK_OUTSIDE_SHARD, st.stageIndex, st.stage, field, buffer,
                    "The block read at an offset that follows the index in buffer '" + name + "', which nothing in the program bounds, lies in tensor '"
                            + t.name() + "' (rows [" + start + "," + (start + t.shape().dim(a)) + ") of '" + (d == null ? t.name() : d.logical())
                            + "' on axis " + a + ") only for some of the ids in [" + lo + "," + hi
                            + ") that name a row of the logical tensor: clamp the id under a range test (a Scalar select) and mask the row.");
            return null;
        }
        return new Domain(var, lo, hi);
    }
}
