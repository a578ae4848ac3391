package org.stagecheck.verifier.shard;

import java.util.HashMap;
import java.util.Map;
import org.stagecheck.spec.ir.AccessPattern;

/**
 * How a partial was laid out and scaled since it was made: the chain of chip-independent steps
 * (which matmul made it, every reshape, transpose, slice, concat, reduce, elementwise expression,
 * store and reload) applied to it (brief, "Certificates"; docs/verifier.md, "Views").
 *
 * <p>Why: an all-reduce adds its inputs element by element, so the sum is the unsplit value only
 * when every chip's partial is the <em>same</em> function of its slice of the contraction. A
 * partial transposed, sliced at another offset, reloaded from another block or scaled by another
 * constant on one chip is still "a partial of w over [a,b)", but the sum mixes unrelated elements.
 * The view names no buffer (they differ per chip) and no slice (those differ by design), so equal
 * views on every input are what the all-reduce requires.
 *
 * <p>Views are hash-consed by a {@link Table} (one per verification): equal chains get the same
 * {@code id}, so comparing two is O(1) and no operation recurses over a chain, however long
 * (a partial taken through 100 000 reshapes costs 100 000 map look-ups, not a deep recursion).
 *
 * @param id   equal exactly when the chains are equal
 * @param text the chain for a diagnostic, outermost step first, abbreviated past {@value #TEXT_LIMIT} characters
 */
public record View(int id, String text) {
    static final int TEXT_LIMIT = 240;

    @Override
    public String toString() {
        return text;
    }

    /** A pattern as text with every buffer name replaced by {@code @}: per-chip buffers have per-chip names. */
    static String pattern(AccessPattern p) {
        return p.remapBuffers(b -> "@").toString();
    }

    /** The views of one verification. */
    static final class Table {
        private final Map<String, View> byKey = new HashMap<>();

        /** The view of {@code step} applied to {@code args}, in order. */
        View of(String step, View... args) {
            StringBuilder key = new StringBuilder(step);
            StringBuilder text = new StringBuilder(step);
            if (args.length > 0) {
                text.append('(');
                for (int i = 0; i < args.length; i++) {
                    key.append('\u0000').append(args[i].id());
                    text.append(i == 0 ? "" : ", ").append(args[i].text());
                    if (text.length() > TEXT_LIMIT) {
                        break;
                    }
                }
                text.append(')');
            }
            String shown = text.length() > TEXT_LIMIT ? text.substring(0, TEXT_LIMIT) + "..." : text.toString();
            return byKey.computeIfAbsent(key.toString(), k -> new View(byKey.size(), shown));
        }
    }
}
