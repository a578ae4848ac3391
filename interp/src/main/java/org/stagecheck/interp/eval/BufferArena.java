package org.stagecheck.interp.eval;

import java.util.Arrays;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * Storage for the values the stages of one program write, kept from run to run so that a program
 * run many times (a decode step token after token) stops allocating it anew. A slot is named by
 * the stage that asks and the order of its asking within that stage: stage {@code i}'s
 * {@code k}-th request gets the same tensor in every run (when dtype, storage and shape agree).
 *
 * <p>The ownership rule that makes this safe: within a run every stage runs once, so no slot is
 * handed out twice in one run and a value, once written, is never overwritten while the run can
 * still read it; between runs, nothing of the previous run's buffers is reachable (a run's result
 * holds only DRAM tensors, which never share a slot's storage, and a run that keeps its stage
 * values, a trace, gets no arena). An arena serves one run at a time ({@code PreparedProgram}
 * lends it). A slot's previous contents are never visible: every caller overwrites each element
 * it is given (docs/semantics.md: a buffer is read only after a stage of the same run wrote it).
 *
 * <p>A run without an arena lets each value go as soon as no later stage reads it; an arena keeps
 * every value's storage of the whole run. So that a large program's run does not hold all of its
 * stage values at once, the arena keeps at most {@code budgetBytes}: past that, a request gets a
 * fresh tensor that the arena does not keep.
 */
public final class BufferArena {
    private final Tensor[][] slots;
    private final long budgetBytes;
    private long keptBytes;

    /** An empty arena for a program of {@code stages} stages, keeping at most {@code budgetBytes} of storage. */
    public BufferArena(int stages, long budgetBytes) {
        this.slots = new Tensor[stages][];
        this.budgetBytes = budgetBytes;
    }

    /** The default budget: an eighth of the most heap the JVM will use. */
    public static long defaultBudget() {
        return Runtime.getRuntime().maxMemory() / 8;
    }

    /** Bytes of storage the arena keeps now. */
    public long keptBytes() {
        return keptBytes;
    }

    /**
     * Slot {@code ordinal} of stage {@code stage}: a tensor of {@code dtype} and {@code shape}
     * (float64 storage when {@code f64} and the dtype is floating) whose contents are the
     * previous run's, or zeros when the slot is new (or the budget is spent, and it is not kept).
     */
    Tensor take(int stage, int ordinal, DType dtype, Shape shape, boolean f64) {
        Tensor[] mine = slots[stage];
        if (mine == null || mine.length <= ordinal) {
            mine = mine == null ? new Tensor[ordinal + 1] : Arrays.copyOf(mine, ordinal + 1);
            slots[stage] = mine;
        }
        Tensor t = mine[ordinal];
        boolean wide = f64 && dtype.isFloating();
        if (t == null || t.dtype() != dtype || t.isFloat64() != wide || (t.shape() != shape && !t.shape().equals(shape))) {
            Tensor made = wide ? Tensor.zerosFloat64(dtype, shape) : Tensor.zeros(dtype, shape);
            long bytes = made.size() * made.storage().width();
            long freed = t == null ? 0 : t.size() * t.storage().width();
            if (keptBytes - freed + bytes > budgetBytes) {
                return made;
            }
            keptBytes += bytes - freed;
            mine[ordinal] = made;
            return made;
        }
        return t;
    }
}
