package org.stagecheck.conformance;

import static org.stagecheck.conformance.CaseBuilder.at;
import static org.stagecheck.conformance.CaseBuilder.fromBuffer;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.f32;
import static org.stagecheck.conformance.Tensors.i32;
import static org.stagecheck.conformance.Tensors.iota;

import java.util.List;

import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Store (docs/semantics.md, "Store"): sub-block tiling, every access pattern, state tensors
 * updated in place, bound outputs keeping what no store overwrites, and a Load that sees DRAM as
 * it was before a later Store.
 */
final class StoreCases {
    private StoreCases() {
    }

    static List<ConformanceCase> cases() {
        return List.of(subBlocksTileTheBlock(), kvCacheRowAtParameter(), streamedAtItsStride(), indirectPagedLaterWins(),
                indirectWindow(), blockAtBufferOffset(), boundOutputKeepsUnwrittenElements(), loadBeforeOverwriteKeepsOldValue(),
                scratchRoundTrip());
    }

    private static ConformanceCase subBlocksTileTheBlock() {
        // x = iota [2,4] stored at row 1 of a zeroed [4,4] as 1x2 sub-blocks: same as one write of the block
        return CaseBuilder.of(Family.STORE, "sub-blocks", "a Store written as sub-blocks equals the plain write of its block")
                .input("x", f32(dims(2, 4), iota(8)))
                .output("out", DType.F32, 4, 4)
                .buffer("b", DType.F32, 2, 4)
                .loadAll("load", "x", "b")
                .stage("store", List.of("b"), List.of(), new StageKind.Store("out", new AccessPattern.Block(at(1, 0), Shape.of(2, 4)), 1, 2))
                .expect("out", f32(dims(4, 4),
                        0, 0, 0, 0,
                        0, 1, 2, 3,
                        4, 5, 6, 7,
                        0, 0, 0, 0))
                .build();
    }

    private static ConformanceCase kvCacheRowAtParameter() {
        // cache of ones [4,2]; pos = 3: row 3 becomes [5,6], the rest stays 1
        return CaseBuilder.of(Family.STORE, "state-row-at-parameter", "a Store to a state tensor (a KV cache) updates it in place at the parameter's row")
                .param("pos", 0, 3, 3)
                .tensor("cache", TensorRole.STATE, 0, f32(dims(4, 2), 1, 1, 1, 1, 1, 1, 1, 1))
                .input("kv_new", f32(dims(1, 2), 5, 6))
                .buffer("row", DType.F32, 1, 2)
                .loadAll("load", "kv_new", "row")
                .stage("append", List.of("row"), List.of(), new StageKind.Store("cache",
                        new AccessPattern.Block(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(1, 2)), 1, 1))
                .expect("cache", f32(dims(4, 2), 1, 1, 1, 1, 1, 1, 5, 6))
                .build();
    }

    private static ConformanceCase streamedAtItsStride() {
        // [1,2,3,4] as two 1x2 blocks at columns 0 and 4 of a zeroed [1,8]
        return CaseBuilder.of(Family.STORE, "streamed-strided", "a streamed Store writes block k at origin + k*stride")
                .input("x", f32(dims(1, 4), 1, 2, 3, 4))
                .output("out", DType.F32, 1, 8)
                .buffer("b", DType.F32, 1, 4)
                .loadAll("load", "x", "b")
                .stage("store", List.of("b"), List.of(), new StageKind.Store("out",
                        new AccessPattern.Streamed(at(0, 0), Shape.of(1, 2), 1, 4), 1, 1))
                .expect("out", f32(dims(1, 8), 1, 2, 0, 0, 3, 4, 0, 0))
                .build();
    }

    private static ConformanceCase indirectPagedLaterWins() {
        // rows [[1,2],[3,4],[5,6]] to slots [2,0,2]: slot 0 = [3,4]; slot 2 gets [1,2] then [5,6]; the later wins
        return CaseBuilder.of(Family.STORE, "indirect-later-duplicate-wins", "an indirect Store writes row i to row idx[i]; with a repeated index the later row wins")
                .input("rows", f32(dims(3, 2), 1, 2, 3, 4, 5, 6))
                .input("slots", i32(dims(3), 2, 0, 2))
                .output("pages", DType.F32, 4, 2)
                .buffer("R", DType.F32, 3, 2)
                .buffer("idx", DType.I32, 3)
                .loadAll("load-rows", "rows", "R")
                .loadAll("load-slots", "slots", "idx")
                .stage("scatter", List.of("R"), List.of(), new StageKind.Store("pages", new AccessPattern.Indirect("idx", at(0), Shape.of(2)), 1, 1))
                .expect("pages", f32(dims(4, 2), 3, 4, 0, 0, 5, 6, 0, 0))
                .build();
    }

    private static ConformanceCase indirectWindow() {
        // [5,6] into row idx[0] = 2, columns 1..2, of a zeroed [3,4]
        return CaseBuilder.of(Family.STORE, "indirect-window", "an indirect Store's other axes are a window at its origin")
                .input("v", f32(dims(1, 2), 5, 6))
                .input("slot", i32(dims(1), 2))
                .output("out", DType.F32, 3, 4)
                .buffer("V", DType.F32, 1, 2)
                .buffer("idx", DType.I32, 1)
                .loadAll("load-v", "v", "V")
                .loadAll("load-slot", "slot", "idx")
                .stage("scatter", List.of("V"), List.of(), new StageKind.Store("out", new AccessPattern.Indirect("idx", at(1), Shape.of(2)), 1, 1))
                .expect("out", f32(dims(3, 4), 0, 0, 0, 0, 0, 0, 0, 0, 0, 5, 6, 0))
                .build();
    }

    private static ConformanceCase blockAtBufferOffset() {
        // a Scalar stage computes r = 2*pos = 2 (pos = 1); [7,8] is stored at row @r of a zeroed [3,2]
        return CaseBuilder.of(Family.STORE, "block-buffer-offset", "a Store's offset reads a one-element i32 buffer written by a Scalar stage")
                .param("pos", 0, 1, 1)
                .input("v", f32(dims(1, 2), 7, 8))
                .output("out", DType.F32, 3, 2)
                .buffer("V", DType.F32, 1, 2)
                .buffer("r", DType.I32, 1)
                .loadAll("load", "v", "V")
                .stage("row", List.of(), List.of("r"), new StageKind.Scalar(new ScalarBody(List.of(
                        Expr.apply(Fn.MUL, Expr.i(2), new Expr.ParamRef("pos"))))))
                .stage("store", List.of("V"), List.of(), new StageKind.Store("out",
                        new AccessPattern.Block(List.of(fromBuffer("r", 1, 0), Offset.constant(0)), Shape.of(1, 2)), 1, 1))
                .expect("out", f32(dims(3, 2), 0, 0, 0, 0, 7, 8))
                .build();
    }

    private static ConformanceCase boundOutputKeepsUnwrittenElements() {
        // out starts as [[9,9],[9,9]] (bound); [1,2] is stored over row 1 only
        return CaseBuilder.of(Family.STORE, "bound-output-keeps-unwritten", "an output tensor bound before the run keeps every element no Store writes")
                .tensor("out", TensorRole.OUTPUT, 0, f32(dims(2, 2), 9, 9, 9, 9))
                .input("v", f32(dims(1, 2), 1, 2))
                .buffer("V", DType.F32, 1, 2)
                .loadAll("load", "v", "V")
                .stage("store", List.of("V"), List.of(), new StageKind.Store("out", new AccessPattern.Block(at(1, 0), Shape.of(1, 2)), 1, 1))
                .expect("out", f32(dims(2, 2), 9, 9, 1, 2))
                .build();
    }

    private static ConformanceCase loadBeforeOverwriteKeepsOldValue() {
        // cache = [1,2]; it is loaded, then overwritten with [8,9]; the earlier load still holds [1,2]
        return CaseBuilder.of(Family.STORE, "load-before-overwrite", "a value loaded before a Store to the same tensor keeps the old contents")
                .tensor("cache", TensorRole.STATE, 0, f32(dims(2), 1, 2))
                .input("x", f32(dims(2), 8, 9))
                .output("old", DType.F32, 2)
                .buffer("O", DType.F32, 2)
                .buffer("X", DType.F32, 2)
                .loadAll("read-old", "cache", "O")
                .loadAll("read-x", "x", "X")
                .storeAll("overwrite", "X", "cache")
                .storeAll("keep-old", "O", "old")
                .expect("cache", f32(dims(2), 8, 9))
                .expect("old", f32(dims(2), 1, 2))
                .build();
    }

    private static ConformanceCase scratchRoundTrip() {
        // [3,4] goes to scratch DRAM, is read back on another core, and stored to the output
        return CaseBuilder.of(Family.STORE, "scratch-round-trip", "a Load after a Store in list order reads what the Store wrote")
                .input("x", f32(dims(2), 3, 4))
                .tensor("tmp", TensorRole.SCRATCH, 0, f32(dims(2), 0, 0))
                .output("out", DType.F32, 2)
                .buffer("X", DType.F32, 2)
                .buffer("Y", DType.F32, org.stagecheck.spec.ir.Site.of(0, 1, 1), 2)
                .loadAll("load", "x", "X")
                .storeAll("spill", "X", "tmp")
                .loadAll("reload", "tmp", "Y")
                .storeAll("store", "Y", "out")
                .expect("out", f32(dims(2), 3, 4))
                .build();
    }
}
