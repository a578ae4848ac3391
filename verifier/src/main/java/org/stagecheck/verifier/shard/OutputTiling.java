package org.stagecheck.verifier.shard;

import java.util.List;
import java.util.Objects;

/**
 * Whether two chips' tensors, declared windows of one logical output, hold the same logical value
 * though they were stored in different tiles (docs/verifier.md, "Tensors"). Their content terms
 * name each store, so a chip that stores its rows in two blocks and one that stores them at once
 * have different content terms for the same elements.
 *
 * <p>The two agree when each is written whole by its stores still visible at the end, and every
 * such store, on both chips, holds a window of one term at one distance from where it went: then
 * element {@code i} of the logical tensor is {@code T[i + d]} on both chips, whatever the tiling.
 */
final class OutputTiling {
    private OutputTiling() {}

    /** Whether {@code a} and {@code b} hold one term at one distance, each written whole; false when that cannot be shown. */
    static boolean sameValue(TensorMemory a, TensorMemory b) {
        String sa = signature(a);
        return sa != null && sa.equals(signature(b));
    }

    /**
     * The term, hidden position and distance that every visible store of {@code m} shares, when the
     * stores write all of the tensor; null when they do not (a store of another term, a partial,
     * an unwritten element, a store the checker cannot place).
     */
    private static String signature(TensorMemory m) {
        if (m.history == null || m.history.isEmpty()) {
            return null;
        }
        List<TensorMemory.Write> visible = UnsplitOutputs.visible(m);
        if (visible == null) {
            return null;
        }
        String signature = null;
        long written = 0;
        for (TensorMemory.Write w : visible) {
            if (!(w.value() instanceof Val.Exact e) || e.region().rank() != w.region().rank()) {
                return null;
            }
            StringBuilder sb = new StringBuilder().append(e.term().id()).append(e.hiddenKey());
            for (int ax = 0; ax < w.region().rank(); ax++) {
                if (!w.region().origin(ax).isConstant()) {
                    return null; // a store at a run-time position: which elements it covers is not known here
                }
                sb.append('|').append(UnsplitOutputs.shift(e.region().origin(ax), w.region().origin(ax)));
            }
            if (signature != null && !Objects.equals(signature, sb.toString())) {
                return null;
            }
            signature = sb.toString();
            written += UnsplitOutputs.volume(w.region());
        }
        return written == UnsplitOutputs.volume(m.holding) ? signature : null;
    }
}
