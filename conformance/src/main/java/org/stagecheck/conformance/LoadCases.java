package org.stagecheck.conformance;

import static org.stagecheck.conformance.CaseBuilder.at;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.exact;
import static org.stagecheck.conformance.Tensors.f32;
import static org.stagecheck.conformance.Tensors.i32;
import static org.stagecheck.conformance.Tensors.iota;

import java.util.List;

import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;

/**
 * Load (docs/semantics.md, "Load"): every access pattern (block with constant, parameter and
 * buffer offsets; streamed blocks along either axis; indirect rows through an index buffer). Each
 * case stores what it loaded, so the check reads DRAM only. Multicast Loads are in {@link RecvCases}.
 */
final class LoadCases {
    private LoadCases() {
    }

    static List<ConformanceCase> cases() {
        return List.of(blockAtConstantOffset(), blockAtParameterRow(), blockAtAffineParameterOffset(),
                blockAtBufferAndParameterOffset(), streamedContiguous(), streamedWithAGap(), streamedAlongRowsFromAParameter(),
                indirectEmbeddingLookup(), indirectWithAWindowAndRepeats());
    }

    private static CaseBuilder table4x3(String name, String what) {
        // kv = [[0,1,2],[3,4,5],[6,7,8],[9,10,11]]
        return CaseBuilder.of(Family.LOAD, name, what).input("kv", f32(dims(4, 3), iota(12)));
    }

    private static ConformanceCase blockAtConstantOffset() {
        // rows 1..2, columns 1..2 of kv: [[4,5],[7,8]]
        return table4x3("block-constant-offset", "a Block reads the window at its constant corner")
                .output("out", DType.F32, 2, 2)
                .buffer("win", DType.F32, 2, 2)
                .stage("load", List.of(), List.of("win"), new StageKind.Load("kv", new AccessPattern.Block(at(1, 1), Shape.of(2, 2)), 1, null))
                .storeAll("store", "win", "out")
                .expect("out", f32(dims(2, 2), 4, 5, 7, 8))
                .build();
    }

    private static ConformanceCase blockAtParameterRow() {
        // pos = 2: row 2 of kv is [6,7,8]
        return table4x3("block-parameter-row", "a Block offset reads a parameter (a KV cache row at the decode position)")
                .param("pos", 0, 3, 2)
                .output("out", DType.F32, 1, 3)
                .buffer("row", DType.F32, 1, 3)
                .stage("load", List.of(), List.of("row"), new StageKind.Load("kv",
                        new AccessPattern.Block(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(1, 3)), 1, null))
                .storeAll("store", "row", "out")
                .expect("out", f32(dims(1, 3), 6, 7, 8))
                .build();
    }

    private static ConformanceCase blockAtAffineParameterOffset() {
        // pos = 1: row 2*pos + 1 = 3, column 2 - pos = 1 (for pos in [0, 1] both stay inside): kv[3][1] = 3*3 + 1 = 10
        return table4x3("block-affine-parameter-offset", "an offset is constant + coefficient * parameter, on every axis")
                .param("pos", 0, 1, 1)
                .output("out", DType.F32, 1, 1)
                .buffer("e", DType.F32, 1, 1)
                .stage("load", List.of(), List.of("e"), new StageKind.Load("kv",
                        new AccessPattern.Block(List.of(Offset.param("pos", 2, 1), Offset.param("pos", -1, 2)), Shape.of(1, 1)), 1, null))
                .storeAll("store", "e", "out")
                .expect("out", f32(dims(1, 1), 10))
                .build();
    }

    private static ConformanceCase blockAtBufferAndParameterOffset() {
        // a Scalar stage writes r = 1; row = 2*@r + pos - 1 = 2 + 2 - 1 = 3 of t = iota [5,2]: [6,7]
        return CaseBuilder.of(Family.LOAD, "block-buffer-and-parameter-offset",
                        "an offset term reads the one-element i32 buffer a Scalar stage wrote (@buffer), beside a parameter term")
                .param("pos", 1, 2, 2)
                .input("t", f32(dims(5, 2), iota(10)))
                .output("out", DType.F32, 1, 2)
                .buffer("r", DType.I32, 1)
                .buffer("row", DType.F32, 1, 2)
                .stage("set-r", List.of(), List.of("r"), new StageKind.Scalar(new ScalarBody(List.of(Expr.i(1)))))
                .stage("load", List.of(), List.of("row"), new StageKind.Load("t", new AccessPattern.Block(List.of(
                        new Offset(-1, List.of(new Offset.Term.OfBuffer(2, "r"), new Offset.Term.OfParam(1, "pos"))),
                        Offset.constant(0)), Shape.of(1, 2)), 1, null))
                .storeAll("store", "row", "out")
                .expect("out", f32(dims(1, 2), 6, 7))
                .build();
    }

    private static ConformanceCase streamedContiguous() {
        // w = iota [2,8]; three 2x2 blocks from column 2 with stride 2: columns 2..7 of both rows
        return CaseBuilder.of(Family.LOAD, "streamed-contiguous", "streamed blocks with a stride equal to the block lie side by side")
                .input("w", f32(dims(2, 8), iota(16)))
                .output("out", DType.F32, 2, 6)
                .buffer("b", DType.F32, 2, 6)
                .stage("stream", List.of(), List.of("b"), new StageKind.Load("w",
                        new AccessPattern.Streamed(at(0, 2), Shape.of(2, 2), 1, 2), 3, null))
                .storeAll("store", "b", "out")
                .expect("out", f32(dims(2, 6), 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15))
                .build();
    }

    private static ConformanceCase streamedWithAGap() {
        // w = iota [2,8]; 2x2 blocks at columns 1 and 1+3 = 4: [[1,2,4,5],[9,10,12,13]]
        return CaseBuilder.of(Family.LOAD, "streamed-strided", "block k of a streamed pattern starts at origin + k*stride on its axis")
                .input("w", f32(dims(2, 8), iota(16)))
                .output("out", DType.F32, 2, 4)
                .buffer("b", DType.F32, 2, 4)
                .stage("stream", List.of(), List.of("b"), new StageKind.Load("w",
                        new AccessPattern.Streamed(at(0, 1), Shape.of(2, 2), 1, 3), 2, null))
                .storeAll("store", "b", "out")
                .expect("out", f32(dims(2, 4), 1, 2, 4, 5, 9, 10, 12, 13))
                .build();
    }

    private static ConformanceCase streamedAlongRowsFromAParameter() {
        // t = iota [6,2]; 1x2 blocks along axis 0 from row pos = 1 with stride 2: rows 1, 3, 5
        return CaseBuilder.of(Family.LOAD, "streamed-rows-from-parameter", "a streamed pattern along axis 0 whose origin is a parameter")
                .param("pos", 0, 1, 1)
                .input("t", f32(dims(6, 2), iota(12)))
                .output("out", DType.F32, 3, 2)
                .buffer("b", DType.F32, 3, 2)
                .stage("stream", List.of(), List.of("b"), new StageKind.Load("t",
                        new AccessPattern.Streamed(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(1, 2), 0, 2), 3, null))
                .storeAll("store", "b", "out")
                .expect("out", f32(dims(3, 2), 2, 3, 6, 7, 10, 11))
                .build();
    }

    private static ConformanceCase indirectEmbeddingLookup() {
        // table = iota [5,3]; ids [4,0,2] pick rows [12,13,14], [0,1,2], [6,7,8]
        return CaseBuilder.of(Family.LOAD, "indirect-embedding-lookup", "element i of the index buffer picks row idx[i] of the tensor")
                .input("table", f32(dims(5, 3), iota(15)))
                .input("ids", i32(dims(3), 4, 0, 2))
                .output("out", DType.F32, 3, 3)
                .buffer("idx", DType.I32, 3)
                .buffer("emb", DType.F32, 3, 3)
                .loadAll("load-ids", "ids", "idx")
                .stage("lookup", List.of(), List.of("emb"), new StageKind.Load("table",
                        new AccessPattern.Indirect("idx", at(0), Shape.of(3)), 1, null))
                .storeAll("store", "emb", "out")
                .expect("out", f32(dims(3, 3), 12, 13, 14, 0, 1, 2, 6, 7, 8))
                .build();
    }

    private static ConformanceCase indirectWithAWindowAndRepeats() {
        // table = iota [4,4] (row r is 4r..4r+3); ids [3,1,3]; window columns pos..pos+1 with pos = 1:
        // row 3 -> [13,14], row 1 -> [5,6], row 3 again -> [13,14]
        return CaseBuilder.of(Family.LOAD, "indirect-window-and-repeats",
                        "an indirect pattern's other axes are a window (here at a parameter column); an index may repeat")
                .param("pos", 0, 2, 1)
                .input("table", exact(DType.F32, dims(4, 4), iota(16)))
                .input("ids", i32(dims(3), 3, 1, 3))
                .output("out", DType.F32, 3, 2)
                .buffer("idx", DType.I32, 3)
                .buffer("rows", DType.F32, 3, 2)
                .loadAll("load-ids", "ids", "idx")
                .stage("gather", List.of(), List.of("rows"), new StageKind.Load("table",
                        new AccessPattern.Indirect("idx", List.of(Offset.param("pos", 1, 0)), Shape.of(2)), 1, null))
                .storeAll("store", "rows", "out")
                .expect("out", f32(dims(3, 2), 13, 14, 5, 6, 13, 14))
                .build();
    }
}
