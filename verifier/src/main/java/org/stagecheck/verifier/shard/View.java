package org.stagecheck.verifier.shard;

import java.util.List;
import java.util.Objects;
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
 * @param step what was done, e.g. {@code transpose [1, 0]}; {@code args} the views it was done to
 */
public record View(String step, List<View> args) {
    public View {
        Objects.requireNonNull(step, "step");
        args = List.copyOf(args);
    }

    public static View of(String step, View... args) {
        return new View(step, List.of(args));
    }

    /** {@code transpose [1, 0](matmul B-contracted)}: the chain, outermost step first. */
    @Override
    public String toString() {
        if (args.isEmpty()) {
            return step;
        }
        StringBuilder sb = new StringBuilder(step).append('(');
        for (int i = 0; i < args.size(); i++) {
            sb.append(i == 0 ? "" : ", ").append(args.get(i));
        }
        return sb.append(')').toString();
    }

    /** A pattern as text with every buffer name replaced by {@code @}: per-chip buffers have per-chip names. */
    static String pattern(AccessPattern p) {
        AccessPattern anonymous = p.remapBuffers(b -> "@");
        return anonymous.toString();
    }
}
