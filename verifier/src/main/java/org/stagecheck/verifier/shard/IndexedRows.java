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
 * that is the index's domain for the value read. Read under a guard (a {@code Scalar} local id,
 * {@code select(s <= id < s + n, id - s, 0)}), the guard's domain is recorded, so that a mask of
 * the value by the same index is a sum over the domain's values; read without one, the block
 * leaves the chip's window for some id of the domain when the window is not the whole axis
 * ({@code INDEXED_BLOCK_OUTSIDE_SHARD}).
 */
final class IndexedRows {
    /** The index values for which the value read under each guard is the logical tensor's element, {@code [lo, hi)}. */
    private final Map<Guard, long[]> domains = new HashMap<>();

    /** The domain recorded for a value read under {@code g}, or null. */
    long[] domainOf(Guard g) {
        return domains.get(g);
    }

    /** Records what a Load of {@code t} with {@code p} (block extents {@code extent}) reads at index offsets; reports an unguarded read out of the window. */
    void check(MemoryRules memory, ShardState st, TensorDecl t, AccessPattern p, int[] extent) {
        ShardDecl d = st.decls.of(t.name());
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
            if (inside.coefficients().size() != 1 || inside.coefficients().firstEntry().getValue() != 1) {
                continue; // a position the rule does not read
            }
            String var = inside.coefficients().firstKey();
            long[] known = st.keyRanges.containsKey(var) ? st.keyRanges.get(var) : var.equals(st.elementKey(e)) ? st.rangeOf(e) : null;
            if (known != null || (g != null && !g.guard().var().equals(var)) || !var.startsWith("v:")) {
                continue; // a bounded index (GuardedBounds, the validator for parameters), or a guard on another index
            }
            long start = d != null && d.axis() == a ? d.start() : 0;
            long logicalExtent = d != null && d.axis() == a ? d.extent() : t.shape().dim(a);
            long c = inside.constant() + start;
            long lo = -c;
            long hi = logicalExtent - extent[a] + 1 - c;
            if (g != null) {
                domains.merge(g.guard(), new long[] {lo, hi}, (x, y) -> x[0] == y[0] && x[1] == y[1] ? x : new long[] {0, 0});
                continue;
            }
            if (start != 0 || t.shape().dim(a) != logicalExtent) {
                String name = st.indexNames.getOrDefault(var, buffer);
                st.findings.atStage(Code.INDEXED_BLOCK_OUTSIDE_SHARD, st.stageIndex, st.stage, "/kind/pattern/origin/" + a, buffer,
                        "The block read at an offset that follows the index in buffer '" + name + "', which nothing in the program bounds, lies in tensor '"
                                + t.name() + "' (rows [" + start + "," + (start + t.shape().dim(a)) + ") of '" + (d == null ? t.name() : d.logical())
                                + "' on axis " + a + ") only for some of the ids in [" + lo + "," + hi
                                + ") that name a row of the logical tensor: clamp the id under a range test (a Scalar select) and mask the row.");
            }
        }
    }
}
