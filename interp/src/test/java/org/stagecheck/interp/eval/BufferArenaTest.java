package org.stagecheck.interp.eval;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/** The arena's slots: one tensor per stage and request, kept from run to run within its budget. */
class BufferArenaTest {
    private static final Shape ROW = Shape.of(1, 64);

    @Test
    void aSlotIsTheSameTensorInEveryRunAndDistinctFromEveryOtherSlot() {
        BufferArena arena = new BufferArena(3, 1 << 20);
        Tensor first = arena.take(1, 0, DType.F32, ROW, false);
        Tensor second = arena.take(1, 1, DType.F32, ROW, false);
        Tensor other = arena.take(2, 0, DType.F32, ROW, false);
        assertThat(second).isNotSameAs(first);
        assertThat(other).isNotSameAs(first).isNotSameAs(second);
        assertThat(first.storage()).isNotSameAs(second.storage());
        // the next run asks in the same order and gets the same storage back
        assertThat(arena.take(1, 0, DType.F32, ROW, false)).isSameAs(first);
        assertThat(arena.take(1, 1, DType.F32, ROW, false)).isSameAs(second);
        assertThat(arena.keptBytes()).isEqualTo(3 * 64 * 4);
    }

    @Test
    void anotherDtypeShapeOrModeReplacesTheSlot() {
        BufferArena arena = new BufferArena(1, 1 << 20);
        Tensor f32 = arena.take(0, 0, DType.F32, ROW, false);
        Tensor bf16 = arena.take(0, 0, DType.BF16, ROW, false);
        assertThat(bf16).isNotSameAs(f32);
        assertThat(bf16.dtype()).isEqualTo(DType.BF16);
        Tensor wide = arena.take(0, 0, DType.BF16, ROW, true);
        assertThat(wide.isFloat64()).isTrue();
        Tensor longer = arena.take(0, 0, DType.BF16, Shape.of(2, 64), true);
        assertThat(longer.shape()).isEqualTo(Shape.of(2, 64));
        assertThat(arena.keptBytes()).isEqualTo(2 * 64 * 8);
    }

    @Test
    void pastItsBudgetTheArenaHandsOutFreshTensorsAndKeepsNone() {
        BufferArena arena = new BufferArena(4, 600);
        Tensor kept = arena.take(0, 0, DType.F32, ROW, false);
        Tensor a = arena.take(1, 0, DType.F32, ROW, false);
        Tensor b = arena.take(1, 0, DType.F32, ROW, false);
        // two rows of 256 bytes fit 600, a third does not
        assertThat(b).isSameAs(a);
        assertThat(arena.keptBytes()).isEqualTo(512);
        Tensor c = arena.take(2, 0, DType.F32, ROW, false);
        Tensor d = arena.take(2, 0, DType.F32, ROW, false);
        assertThat(d).isNotSameAs(c);
        assertThat(arena.keptBytes()).isEqualTo(512);
        assertThat(arena.take(0, 0, DType.F32, ROW, false)).isSameAs(kept);
    }
}
