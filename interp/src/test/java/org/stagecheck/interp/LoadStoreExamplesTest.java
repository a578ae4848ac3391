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
 * the faults of Load and Store, and the evaluator's leniency of a Load into another dtype (a
 * program the validator rejects).
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
    void aBlockPastTheEndForThisParameterValueIsAFaultNamingTheStage() {
        RunResult r = Fixtures.program()
                .param("pos", 0, 10, 3)
                .input("kv", f32(dims(4, 3), iota(12)))
                .buffer("row", DType.F32, 2, 3)
                .stage("load-two-rows", List.of(), List.of("row"), new StageKind.Load("kv",
                        new AccessPattern.Block(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(2, 3)), 1, null))
                .run();
        assertThat(r.ok()).isFalse();
        assertThat(r.stoppedAtStage()).isEqualTo("load-two-rows");
        assertThat(r.faults().getFirst().render()).isEqualTo(
                "BLOCK_OUT_OF_BOUNDS stage #0 'load-two-rows' at /stages/0/kind/pattern/origin/0: the block at [3, 0] of shape [2, 3] "
                        + "covers [3, 5) on axis 0, past tensor 'kv' of shape [4, 3].");
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
    void aLoadIntoANarrowerDtypeRoundsToNearestEven() {
        // 1 + 2^-8 is halfway between two bf16 values: ties to even gives 1.0
        RunResult r = Fixtures.program()
                .input("x", f32(dims(2), 1f + 0x1p-8f, 1f + 3 * 0x1p-8f))
                .buffer("b", DType.BF16, 2)
                .loadAll("load", "x", "b", Fixtures.CORE)
                .run();
        assertThat(r.trace().get("load").getFirst().toFloats()).containsExactly(1f, 1f + 4 * 0x1p-8f);
    }
}
