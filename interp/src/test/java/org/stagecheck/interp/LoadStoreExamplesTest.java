package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.at;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;
import static org.stagecheck.interp.Fixtures.i32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;

/** Hand-worked examples of Load, Store and Scalar: every access pattern, offsets, faults. */
class LoadStoreExamplesTest {

    private static float[] iota(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i;
        }
        return v;
    }

    @Test
    void blockLoadAtAParameterDependentRow() {
        RunResult r = Fixtures.program()
                .param("pos", 0, 3, 2)
                .input("kv", f32(dims(4, 3), iota(12)))
                .output("out", DType.F32, 1, 3)
                .buffer("row", DType.F32, 1, 3)
                .stage("load", List.of(), List.of("row"), new StageKind.Load("kv",
                        new AccessPattern.Block(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(1, 3)), 1, null))
                .storeAll("store", "row", "out", Fixtures.CORE)
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("out").toFloats()).containsExactly(6, 7, 8);
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
    void streamedLoadLaysBlocksSideBySideAlongTheAxis() {
        // blocks of 2x2 at columns 1 and 1+3=4
        RunResult r = Fixtures.program()
                .input("w", f32(dims(2, 8), iota(16)))
                .buffer("b", DType.F32, 2, 4)
                .stage("stream", List.of(), List.of("b"), new StageKind.Load("w",
                        new AccessPattern.Streamed(at(0, 1), Shape.of(2, 2), 1, 3), 2, null))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("stream").getFirst().toFloats()).containsExactly(1, 2, 4, 5, 9, 10, 12, 13);
    }

    @Test
    void indirectLoadIsAnEmbeddingLookup() {
        RunResult r = Fixtures.program()
                .input("table", f32(dims(5, 3), iota(15)))
                .input("ids", i32(dims(3), 4, 0, 2))
                .buffer("idx", DType.I32, 3)
                .buffer("emb", DType.F32, 3, 3)
                .loadAll("load-ids", "ids", "idx", Fixtures.CORE)
                .stage("lookup", List.of(), List.of("emb"), new StageKind.Load("table",
                        new AccessPattern.Indirect("idx", at(0), Shape.of(3)), 1, null))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("lookup").getFirst().toFloats()).containsExactly(12, 13, 14, 0, 1, 2, 6, 7, 8);
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
    void storeBySubBlocksEqualsThePlainWriteOfTheBlock() {
        RunResult r = Fixtures.program()
                .input("x", f32(dims(2, 4), iota(8)))
                .output("out", DType.F32, 4, 4)
                .buffer("b", DType.F32, 2, 4)
                .loadAll("load", "x", "b", Fixtures.CORE)
                .stage("store", List.of("b"), List.of(), new StageKind.Store("out",
                        new AccessPattern.Block(at(1, 0), Shape.of(2, 4)), 1, 2))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("out").toFloats()).containsExactly(
                0, 0, 0, 0,
                0, 1, 2, 3,
                4, 5, 6, 7,
                0, 0, 0, 0);
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
    void aKvCacheStateTensorIsUpdatedInPlaceAtTheDecodePosition() {
        float[] ones = {1, 1, 1, 1, 1, 1, 1, 1};
        Tensor cache = f32(dims(4, 2), ones);
        RunResult r = Fixtures.program()
                .param("pos", 0, 3, 3)
                .tensor("cache", TensorRole.STATE, 0, cache)
                .input("kv_new", f32(dims(1, 2), 5, 6))
                .buffer("row", DType.F32, 1, 2)
                .loadAll("load", "kv_new", "row", Fixtures.CORE)
                .stage("append", List.of("row"), List.of(), new StageKind.Store("cache",
                        new AccessPattern.Block(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(1, 2)), 1, 1))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("cache").toFloats()).containsExactly(1, 1, 1, 1, 1, 1, 5, 6);
        assertThat(cache.toFloats()).as("the caller's binding is not mutated").containsExactly(ones);
    }

    @Test
    void aStreamedStoreWritesEachBlockAtItsStride() {
        RunResult r = Fixtures.program()
                .input("x", f32(dims(1, 4), 1, 2, 3, 4))
                .output("out", DType.F32, 1, 8)
                .buffer("b", DType.F32, 1, 4)
                .loadAll("load", "x", "b", Fixtures.CORE)
                .stage("store", List.of("b"), List.of(), new StageKind.Store("out",
                        new AccessPattern.Streamed(at(0, 0), Shape.of(1, 2), 1, 4), 1, 1))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("out").toFloats()).containsExactly(1, 2, 0, 0, 3, 4, 0, 0);
    }

    @Test
    void aScalarStageComputesAnOffsetThatALoadReads() {
        // row = pos + 1, computed on the scalar unit, then used as an offset buffer (@row)
        Offset fromBuffer = new Offset(0, List.of(new Offset.Term.OfBuffer(1, "row")));
        RunResult r = Fixtures.program()
                .param("pos", 0, 2, 1)
                .input("kv", f32(dims(4, 3), iota(12)))
                .buffer("row", DType.I32, 1)
                .buffer("b", DType.F32, 1, 3)
                .stage("next-row", List.of(), List.of("row"), new StageKind.Scalar(new ScalarBody(List.of(
                        Expr.apply(Fn.ADD, new Expr.ParamRef("pos"), Expr.i(1))))))
                .stage("load", List.of(), List.of("b"), new StageKind.Load("kv",
                        new AccessPattern.Block(List.of(fromBuffer, Offset.constant(0)), Shape.of(1, 3)), 1, null))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("next-row").getFirst().toInts()).containsExactly(2);
        assertThat(r.trace().get("load").getFirst().toFloats()).containsExactly(6, 7, 8);
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

    @Test
    void aValueLoadedBeforeAStoreToTheSameTensorKeepsItsOldContents() {
        // the whole-tensor load shares storage with the tensor; the store must copy first
        RunResult r = Fixtures.program()
                .tensor("cache", TensorRole.STATE, 0, f32(dims(2), 1, 2))
                .input("x", f32(dims(2), 8, 9))
                .buffer("old", DType.F32, 2).buffer("X", DType.F32, 2)
                .loadAll("read-old", "cache", "old", Fixtures.CORE)
                .loadAll("read-x", "x", "X", Fixtures.CORE)
                .storeAll("overwrite", "X", "cache", Fixtures.CORE)
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("read-old").getFirst().toFloats()).containsExactly(1, 2);
        assertThat(r.tensor("cache").toFloats()).containsExactly(8, 9);
    }
}
