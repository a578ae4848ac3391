package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.at;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;
import static org.stagecheck.interp.Fixtures.i32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;

/**
 * Interpreter-only behaviour beside the conformance suite (module {@code conformance}, run by
 * {@code InterpreterConformanceTest}, holds the hand-worked values every backend must produce):
 * the faults of Load and Store, and the refusal of a program the validator rejects (a block that
 * may leave its tensor, a Load into another dtype), which runs nothing.
 */
class LoadStoreExamplesTest {

    private static float[] iota(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i;
        }
        return v;
    }

    @Test
    void aBlockPastTheEndForSomeParameterValueIsRefusedBeforeAnyStageRuns() {
        RunResult r = Fixtures.program()
                .param("pos", 0, 10, 0)
                .input("kv", f32(dims(4, 3), iota(12)))
                .buffer("row", DType.F32, 2, 3)
                .stage("load-two-rows", List.of(), List.of("row"), new StageKind.Load("kv",
                        new AccessPattern.Block(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(2, 3)), 1, null))
                .run();
        // pos = 0 would fit, but pos may be up to 10: the validator refuses the program, so nothing runs
        assertThat(r.ok()).isFalse();
        assertThat(r.stoppedAtStage()).isNull();
        assertThat(r.trace()).isEmpty();
        assertThat(r.faults()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo("BLOCK_OUT_OF_BOUNDS");
            assertThat(d.stageId()).isEqualTo("load-two-rows");
            assertThat(d.field()).isEqualTo("/stages/0/kind/pattern/origin/0");
        });
    }

    @Test
    void anIndexOutsideItsTableFaultsWithTheStageNamed() {
        RunResult r = Fixtures.program()
                .input("table", f32(dims(5, 3), iota(15)))
                .input("ids", i32(dims(2), 1, 5))
                .buffer("idx", DType.I32, 2)
                .buffer("emb", DType.F32, 2, 3)
                .loadAll("load-ids", "ids", "idx", Fixtures.CORE)
                .stage("lookup", List.of(), List.of("emb"), new StageKind.Load("table",
                        new AccessPattern.Indirect("idx", at(0), Shape.of(3)), 1, null))
                .run();
        assertThat(r.stoppedAtStage()).isEqualTo("lookup");
        assertThat(r.faults()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo("INDEX_OUT_OF_RANGE");
            assertThat(d.stageIndex()).isEqualTo(1);
            assertThat(d.buffer()).isEqualTo("idx");
            assertThat(d.message()).isEqualTo("index buffer 'idx' element 1 is 5, outside [0, 5) of tensor 'table' axis 0.");
        });
    }

    @Test
    void subBlocksThatDoNotTileTheBlockAreAFault() {
        RunResult r = Fixtures.program()
                .input("x", f32(dims(2, 4), iota(8)))
                .output("out", DType.F32, 2, 4)
                .buffer("b", DType.F32, 2, 4)
                .loadAll("load", "x", "b", Fixtures.CORE)
                .stage("store", List.of("b"), List.of(), new StageKind.Store("out",
                        new AccessPattern.Block(at(0, 0), Shape.of(2, 4)), 1, 3))
                .run();
        assertThat(r.faults()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo("SUBBLOCK_TILING"));
    }

    @Test
    void aLoadIntoAnotherDtypeIsRefusedNotConverted() {
        // a Load moves elements and never converts them: narrowing is a Generic cast stage's work
        RunResult r = Fixtures.program()
                .input("x", f32(dims(2), 1f + 0x1p-8f, 1f + 3 * 0x1p-8f))
                .buffer("b", DType.BF16, 2)
                .loadAll("load", "x", "b", Fixtures.CORE)
                .run(RunOptions.defaults().withTrace(true));
        assertThat(r.trace()).isEmpty();
        assertThat(r.stoppedAtStage()).isNull();
        assertThat(r.faults()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo("DTYPE_MISMATCH");
            assertThat(d.stageId()).isEqualTo("load");
        });
    }
}
