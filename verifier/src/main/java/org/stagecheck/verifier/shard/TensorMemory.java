package org.stagecheck.verifier.shard;

import java.util.ArrayDeque;
import java.util.Iterator;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * What one tensor holds (docs/verifier.md, "Tensors"): its content as a term (the initial value,
 * then one overlay per store, hash-consed so two chips that wrote the same logical values into
 * their tensors have the same content term), and the most recent stores with their values, from
 * which a load that reads back a stored region gets the stored value (partial or not) unchanged.
 *
 * <p>Regions are in the logical tensor's coordinates (a declared window's start added). At most
 * {@value #RECENT} stores are kept for reading back, so a load costs O(1); past them a load gets
 * the content term, which is exact but knows nothing of partials.
 */
final class TensorMemory {
    static final int RECENT = 16;

    /** One store: the region written (null: not a box, e.g. an indirect store), the value written, and the storing stage. */
    record Write(Region region, Val value, int stage) {}

    final TensorDecl tensor;
    final Region holding;
    final boolean bound;
    /** The value before any store: the logical leaf of a bound tensor, "unwritten" otherwise. */
    final Term initial;
    Term content;
    /** Whether a partial was ever stored here (then a load the checker cannot resolve is refused, not guessed). */
    boolean partialEver;
    final ArrayDeque<Write> recent = new ArrayDeque<>();
    boolean forgotten;
    int lastStore = -1;
    /** Every store to an output or state tensor, oldest first (compared with the unsplit parent's); null for other tensors. */
    final java.util.List<Write> history;

    private TensorMemory(TensorDecl tensor, Region holding, boolean bound, Term content) {
        this.tensor = tensor;
        this.holding = holding;
        this.bound = bound;
        this.initial = content;
        this.content = content;
        this.history = tensor.role().isResult()
                ? new java.util.ArrayList<>() : null;
    }

    static TensorMemory initial(TensorDecl t, ShardDecl d, ShardState st) {
        long[] dims = new long[t.shape().rank()];
        for (int a = 0; a < dims.length; a++) {
            dims[a] = t.shape().dim(a);
        }
        Region holding = Region.at0(dims).shifted(st.logicalShift(t), dims);
        boolean bound = t.role().isBoundBeforeRun();
        Term initial;
        if (bound) {
            initial = st.leaf(t);
        } else {
            // an output declared a window of a logical output starts as that output's "unwritten"; a
            // scratch starts as its own, so nobody reads another chip's unwritten scratch as equal
            String who = d != null ? "logical:" + d.logical() : "tensor:" + t.name();
            initial = st.terms.of("unwritten:" + who, "unwritten " + t.name(), t.name(), dims);
        }
        return new TensorMemory(t, holding, bound, initial);
    }

    void remember(Write w) {
        if (history != null) {
            history.add(w);
        }
        recent.addLast(w);
        if (recent.size() > RECENT) {
            recent.removeFirst();
            forgotten = true;
        }
    }

    Iterator<Write> newestFirst() {
        return recent.descendingIterator();
    }
}
