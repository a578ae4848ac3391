package org.stagecheck.interp.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.at;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;

/**
 * Regression tests: access-pattern bounds that 64-bit arithmetic could
 * get wrong (docs/semantics.md, "Load": every block must lie inside the tensor). Constant origins
 * and strides are the validator's to refuse, before anything runs, under its code and field.
 */
class PatternBoundsTest {

    private static Fixtures eight() {
        return Fixtures.program().input("t", f32(dims(8), 0, 1, 2, 3, 4, 5, 6, 7)).buffer("b", DType.F32, 4);
    }

    @Test
    void anOriginNear2To63IsOutOfBoundsNotAWrappedInBoundsBlock() {
        // lo + 4 wraps negative, so "lo + extent > dim" passed and the copy read at a wrapped index
        RunResult r = eight()
                .stage("l", List.of(), List.of("b"), new StageKind.Load("t",
                        new AccessPattern.Block(List.of(Offset.constant(Long.MAX_VALUE - 1)), Shape.of(4)), 1, null))
                .run();
        assertThat(r.faults()).extracting(Diagnostic::code, Diagnostic::field)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("BLOCK_OUT_OF_BOUNDS", "/stages/0/kind/pattern/origin/0"));
    }

    @Test
    void aStoreAtAnOriginNear2To63IsOutOfBoundsAndRunsNothing() {
        RunResult r = eight()
                .output("o", DType.F32, 8)
                .stage("l", List.of(), List.of("b"), new StageKind.Load("t", new AccessPattern.Block(at(0), Shape.of(4)), 1, null))
                .stage("s", List.of("b"), List.of(), new StageKind.Store("o",
                        new AccessPattern.Block(List.of(Offset.constant(Long.MAX_VALUE - 2)), Shape.of(4)), 1, 1))
                .run();
        assertThat(r.faults()).extracting(Diagnostic::code, Diagnostic::field)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("BLOCK_OUT_OF_BOUNDS", "/stages/1/kind/pattern/origin/0"));
        assertThat(r.tensors()).isEmpty();
        assertThat(r.stoppedAtStage()).isNull();
    }

    @Test
    void aStreamedCornerThatOverflows64BitsIsOutOfBoundsNotAWrappedInBoundsBlock() {
        // block 1 lies at 1 + 1 * (2^63 - 1): it used to wrap to -2^63 silently; the validator saturates
        RunResult r = eight()
                .buffer("b2", DType.F32, 8)
                .stage("l", List.of(), List.of("b2"), new StageKind.Load("t",
                        new AccessPattern.Streamed(at(1), Shape.of(4), 0, Long.MAX_VALUE), 2, null))
                .run();
        assertThat(r.faults()).extracting(Diagnostic::code, Diagnostic::field)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("BLOCK_OUT_OF_BOUNDS", "/stages/0/kind/pattern/origin/0"));
    }

    @Test
    void anIndirectWindowPastTheEndNamesItsOwnOriginEntryNotTheTensorAxis() {
        // Indirect's origin list starts at tensor axis 1: axis 2 is origin/1 (it used to say origin/2, which does not exist)
        RunResult r = Fixtures.program()
                .input("t", f32(dims(2, 2, 2), 0, 1, 2, 3, 4, 5, 6, 7))
                .input("ix", org.stagecheck.interp.Fixtures.i32(dims(1), 1))
                .buffer("i", DType.I32, 1).buffer("x", DType.F32, 1, 1, 2)
                .loadAll("li", "ix", "i", org.stagecheck.interp.Fixtures.CORE)
                .stage("l", List.of(), List.of("x"), new StageKind.Load("t", new AccessPattern.Indirect("i", at(0, 1), Shape.of(1, 2)), 1, null))
                .run();
        assertThat(r.faults()).extracting(Diagnostic::code, Diagnostic::field)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("BLOCK_OUT_OF_BOUNDS", "/stages/1/kind/pattern/origin/1"));
    }

    @Test
    void aStreamedLoadOfMoreBlocksThanAnAxisCanHoldIsRefusedNotAnInternalFault() {
        // 2^30 blocks of 4 along axis 0: the buffer extent overflowed int and surfaced as INTERNAL;
        // the last block lies far past the tensor, which the validator refuses
        RunResult r = eight()
                .stage("l", List.of(), List.of("b"), new StageKind.Load("t",
                        new AccessPattern.Streamed(at(0), Shape.of(4), 0, 4), 1 << 30, null))
                .run();
        assertThat(r.faults()).extracting(Diagnostic::code, Diagnostic::field)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("BLOCK_OUT_OF_BOUNDS", "/stages/0/kind/pattern/origin/0"));
    }
}
