package org.stagecheck.conformance;

import static org.stagecheck.conformance.Tensors.bits;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.exact;
import static org.stagecheck.conformance.Tensors.f32;

import java.util.List;

import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;

/**
 * Compute(MatMul) (docs/semantics.md, "MatMul"): each output element is one f32 fma chain over k
 * ascending, starting from the spill (or +0), written back to the spill, and the bias added once
 * after; transposes; operands of every floating dtype.
 */
final class MatMulCases {
    private MatMulCases() {
    }

    static List<ConformanceCase> cases() {
        return List.of(plain(), transposes(), spillAcrossStagesThenBias(), spillKeepsF32UnderABf16Output(), fmaChainInAscendingK(),
                columnBiasAndPositiveZeroStart(), emptyContraction(), mixedNarrowOperands(), severalTiles());
    }

    private static ConformanceCase plain() {
        // A = [[1,2,3],[4,5,6]], B = [[1,0],[0,1],[1,1]]: [[1+3, 2+3], [4+6, 5+6]] = [[4,5],[10,11]]
        return CaseBuilder.of(Family.MATMUL, "plain", "out[i,j] = sum over k of A[i,k]*B[k,j]")
                .input("a", f32(dims(2, 3), 1, 2, 3, 4, 5, 6)).input("b", f32(dims(3, 2), 1, 0, 0, 1, 1, 1))
                .output("out", DType.F32, 2, 2)
                .buffer("A", DType.F32, 2, 3).buffer("B", DType.F32, 3, 2).buffer("C", DType.F32, 2, 2)
                .loadAll("la", "a", "A").loadAll("lb", "b", "B")
                .compute("mm", List.of("A", "B"), "C", ComputeOp.MatMul.plain())
                .storeAll("store", "C", "out")
                .expect("out", f32(dims(2, 2), 4, 5, 10, 11))
                .build();
    }

    private static ConformanceCase transposes() {
        // the product of the plain case, with A stored transposed ([3,2]), B stored transposed ([2,3]), or both
        return CaseBuilder.of(Family.MATMUL, "transposes", "transposeA reads A as [K,M], transposeB reads B as [N,K]")
                .input("a", f32(dims(2, 3), 1, 2, 3, 4, 5, 6)).input("b", f32(dims(3, 2), 1, 0, 0, 1, 1, 1))
                .input("at", f32(dims(3, 2), 1, 4, 2, 5, 3, 6)).input("bt", f32(dims(2, 3), 1, 0, 1, 0, 1, 1))
                .output("ta", DType.F32, 2, 2).output("tb", DType.F32, 2, 2).output("both", DType.F32, 2, 2)
                .buffer("A", DType.F32, 2, 3).buffer("B", DType.F32, 3, 2).buffer("AT", DType.F32, 3, 2).buffer("BT", DType.F32, 2, 3)
                .buffer("c1", DType.F32, 2, 2).buffer("c2", DType.F32, 2, 2).buffer("c3", DType.F32, 2, 2)
                .loadAll("la", "a", "A").loadAll("lb", "b", "B").loadAll("lat", "at", "AT").loadAll("lbt", "bt", "BT")
                .compute("mm-ta", List.of("AT", "B"), "c1", new ComputeOp.MatMul(true, false, null, null))
                .compute("mm-tb", List.of("A", "BT"), "c2", new ComputeOp.MatMul(false, true, null, null))
                .compute("mm-both", List.of("AT", "BT"), "c3", new ComputeOp.MatMul(true, true, null, null))
                .storeAll("s1", "c1", "ta").storeAll("s2", "c2", "tb").storeAll("s3", "c3", "both")
                .expect("ta", f32(dims(2, 2), 4, 5, 10, 11))
                .expect("tb", f32(dims(2, 2), 4, 5, 10, 11))
                .expect("both", f32(dims(2, 2), 4, 5, 10, 11))
                .build();
    }

    private static ConformanceCase spillAcrossStagesThenBias() {
        // the plain product split over K: mm1 = [[1,2],[4,5]] x [[1,0],[0,1]] = [[1,2],[4,5]] into the
        // unwritten spill (+0); mm2 adds [[3],[6]] x [[1,1]] = [[3,3],[6,6]]: spill = [[4,5],[10,11]];
        // its output adds bias [10,20] once: [[14,25],[20,31]]
        return CaseBuilder.of(Family.MATMUL, "spill-and-bias", "a spill carries the f32 sum across stages; the bias is added once, after, and not into the spill")
                .input("a1", f32(dims(2, 2), 1, 2, 4, 5)).input("a2", f32(dims(2, 1), 3, 6))
                .input("b1", f32(dims(2, 2), 1, 0, 0, 1)).input("b2", f32(dims(1, 2), 1, 1))
                .input("bias", f32(dims(2), 10, 20))
                .output("first", DType.F32, 2, 2).output("second", DType.F32, 2, 2).output("acc", DType.F32, 2, 2)
                .buffer("A1", DType.F32, 2, 2).buffer("A2", DType.F32, 2, 1).buffer("B1", DType.F32, 2, 2).buffer("B2", DType.F32, 1, 2)
                .buffer("bb", DType.F32, 2).buffer("spill", DType.F32, 2, 2).buffer("o1", DType.F32, 2, 2).buffer("o2", DType.F32, 2, 2)
                .loadAll("la1", "a1", "A1").loadAll("la2", "a2", "A2").loadAll("lb1", "b1", "B1").loadAll("lb2", "b2", "B2")
                .loadAll("lbias", "bias", "bb")
                .compute("mm1", List.of("A1", "B1"), "o1", new ComputeOp.MatMul(false, false, null, "spill"))
                .compute("mm2", List.of("A2", "B2"), "o2", new ComputeOp.MatMul(false, false, "bb", "spill"))
                .storeAll("s1", "o1", "first").storeAll("s2", "o2", "second").storeAll("s3", "spill", "acc")
                .expect("first", f32(dims(2, 2), 1, 2, 4, 5))
                .expect("second", f32(dims(2, 2), 14, 25, 20, 31))
                .expect("acc", f32(dims(2, 2), 4, 5, 10, 11))
                .build();
    }

    private static ConformanceCase spillKeepsF32UnderABf16Output() {
        // mm1: [256, 1] . [1, 1] = 257 in the f32 spill; its bf16 output rounds the tie 257 (256 | 258) to
        // even, 256. mm2 adds 1 x 1: spill 258, exact in bf16. Without the spill mm2 would see 256 + 1 -> 256.
        return CaseBuilder.of(Family.MATMUL, "spill-under-bf16-output", "the spill keeps f32 precision when the outputs are bf16")
                .input("a", f32(dims(1, 2), 256, 1)).input("b", f32(dims(2, 1), 1, 1)).input("one", f32(dims(1, 1), 1))
                .output("first", DType.BF16, 1, 1).output("second", DType.BF16, 1, 1)
                .buffer("A", DType.F32, 1, 2).buffer("B", DType.F32, 2, 1).buffer("One", DType.F32, 1, 1).buffer("One2", DType.F32, 1, 1)
                .buffer("spill", DType.F32, 1, 1).buffer("o1", DType.BF16, 1, 1).buffer("o2", DType.BF16, 1, 1)
                .loadAll("la", "a", "A").loadAll("lb", "b", "B").loadAll("l1", "one", "One").loadAll("l2", "one", "One2")
                .compute("mm1", List.of("A", "B"), "o1", new ComputeOp.MatMul(false, false, null, "spill"))
                .compute("mm2", List.of("One", "One2"), "o2", new ComputeOp.MatMul(false, false, null, "spill"))
                .storeAll("s1", "o1", "first").storeAll("s2", "o2", "second")
                .expect("first", exact(DType.BF16, dims(1, 1), 256))
                .expect("second", exact(DType.BF16, dims(1, 1), 258))
                .build();
    }

    private static ConformanceCase fmaChainInAscendingK() {
        // a = [1, 1+2^-12], b = [-(1+2^-11), 1+2^-12]^T.
        // k=0: acc = fma(1, -(1+2^-11), +0) = -(1+2^-11)
        // k=1: acc = fma(1+2^-12, 1+2^-12, acc) = (1 + 2^-11 + 2^-24) - (1 + 2^-11) = 2^-24, rounded once: exact.
        // Two roundings (mul, then add) give 0: (1+2^-12)^2 rounds to 1+2^-11 (2^-24 is a tie, even is down).
        // K descending gives 0 too: fma(a1,b1,+0) = 1+2^-11, then fma(1, -(1+2^-11), 1+2^-11) = 0.
        float e = 1f + 0x1p-12f;
        return CaseBuilder.of(Family.MATMUL, "fma-chain-ascending-k", "every output element is one f32 fma chain over k ascending, one rounding per step")
                .input("a", f32(dims(1, 2), 1, e)).input("b", f32(dims(2, 1), -(1f + 0x1p-11f), e))
                .output("out", DType.F32, 1, 1)
                .buffer("A", DType.F32, 1, 2).buffer("B", DType.F32, 2, 1).buffer("C", DType.F32, 1, 1)
                .loadAll("la", "a", "A").loadAll("lb", "b", "B")
                .compute("mm", List.of("A", "B"), "C", ComputeOp.MatMul.plain())
                .storeAll("store", "C", "out")
                .expect("out", bits(DType.F32, dims(1, 1), 0x33800000)) // 2^-24
                .build();
    }

    private static ConformanceCase columnBiasAndPositiveZeroStart() {
        // A = [[-1],[2]], B = [[0, 3]]: products [[-0, -3],[0, 6]]; the chain starts at +0, and
        // fma(-1, 0, +0) = +0 (not the product's -0). bias [[0],[0.5]] (a column) added after:
        // [[+0 + 0, -3 + 0], [0 + 0.5, 6 + 0.5]] = [[+0, -3], [0.5, 6.5]]
        return CaseBuilder.of(Family.MATMUL, "column-bias-and-positive-zero-start", "the chain starts at +0; a [M,1] bias broadcasts along each row")
                .input("a", f32(dims(2, 1), -1, 2)).input("b", f32(dims(1, 2), 0, 3)).input("bias", f32(dims(2, 1), 0, 0.5f))
                .output("out", DType.F32, 2, 2)
                .buffer("A", DType.F32, 2, 1).buffer("B", DType.F32, 1, 2).buffer("bb", DType.F32, 2, 1).buffer("C", DType.F32, 2, 2)
                .loadAll("la", "a", "A").loadAll("lb", "b", "B").loadAll("lbias", "bias", "bb")
                .compute("mm", List.of("A", "B"), "C", new ComputeOp.MatMul(false, false, "bb", null))
                .storeAll("store", "C", "out")
                .expect("out", bits(DType.F32, dims(2, 2), 0x00000000, 0xC0400000, 0x3F000000, 0x40D00000))
                .build();
    }

    private static ConformanceCase emptyContraction() {
        // K = 0: no fma step; every element is +0 + bias = the bias [1.5, -2]
        return CaseBuilder.of(Family.MATMUL, "empty-contraction", "with K = 0 the product is +0 and the output is the bias")
                .input("a", f32(dims(2, 0))).input("b", f32(dims(0, 2))).input("bias", f32(dims(2), 1.5f, -2))
                .output("out", DType.F32, 2, 2)
                .buffer("A", DType.F32, 2, 0).buffer("B", DType.F32, 0, 2).buffer("bb", DType.F32, 2).buffer("C", DType.F32, 2, 2)
                .loadAll("la", "a", "A").loadAll("lb", "b", "B").loadAll("lbias", "bias", "bb")
                .compute("mm", List.of("A", "B"), "C", new ComputeOp.MatMul(false, false, "bb", null))
                .storeAll("store", "C", "out")
                .expect("out", f32(dims(2, 2), 1.5f, -2, 1.5f, -2))
                .build();
    }

    private static ConformanceCase mixedNarrowOperands() {
        // A e4m3 [[1.5, -2]], B e5m2 [[3],[0.5]]: 1.5*3 + -2*0.5 = 4.5 - 1 = 3.5, written as e4m3 (1.75 * 2^1, exact);
        // A bf16 [[0.5, 0.25]] x B f16 [[0.5],[4]] = 0.25 + 1 = 1.25 written as f32
        return CaseBuilder.of(Family.MATMUL, "narrow-operands", "operands of any floating dtype (8 and 16 bits, mixed) widen exactly to f32")
                .input("a8", exact(DType.E4M3, dims(1, 2), 1.5f, -2)).input("b8", exact(DType.E5M2, dims(2, 1), 3, 0.5f))
                .input("a16", exact(DType.BF16, dims(1, 2), 0.5f, 0.25f)).input("b16", exact(DType.F16, dims(2, 1), 0.5f, 4))
                .output("out8", DType.E4M3, 1, 1).output("out16", DType.F32, 1, 1)
                .buffer("A8", DType.E4M3, 1, 2).buffer("B8", DType.E5M2, 2, 1).buffer("A16", DType.BF16, 1, 2).buffer("B16", DType.F16, 2, 1)
                .buffer("c8", DType.E4M3, 1, 1).buffer("c16", DType.F32, 1, 1)
                .loadAll("la8", "a8", "A8").loadAll("lb8", "b8", "B8").loadAll("la16", "a16", "A16").loadAll("lb16", "b16", "B16")
                .compute("mm8", List.of("A8", "B8"), "c8", ComputeOp.MatMul.plain())
                .compute("mm16", List.of("A16", "B16"), "c16", ComputeOp.MatMul.plain())
                .storeAll("s8", "c8", "out8").storeAll("s16", "c16", "out16")
                .expect("out8", exact(DType.E4M3, dims(1, 1), 3.5f))
                .expect("out16", f32(dims(1, 1), 1.25f))
                .build();
    }

    private static ConformanceCase severalTiles() {
        // M = 65, K = 257, N = 260: past one 64-row tile, one 256-wide k chunk and one 256-column tile.
        // A[i,k] = i mod 3, B[k,j] = j + (k mod 2); out[i,j] = (i mod 3) * (257 j + 128), as 128 of the
        // k in 0..256 are odd. Every partial sum is an integer below 2^24, so f32 holds it exactly.
        int m = 65;
        int k = 257;
        int n = 260;
        float[] a = new float[m * k];
        float[] b = new float[k * n];
        float[] c = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int kk = 0; kk < k; kk++) {
                a[i * k + kk] = i % 3;
            }
            for (int j = 0; j < n; j++) {
                c[i * n + j] = (i % 3) * (257f * j + 128);
            }
        }
        for (int kk = 0; kk < k; kk++) {
            for (int j = 0; j < n; j++) {
                b[kk * n + j] = j + (kk % 2);
            }
        }
        return CaseBuilder.of(Family.MATMUL, "several-tiles", "a product larger than one tile in every direction")
                .input("a", f32(dims(m, k), a)).input("b", f32(dims(k, n), b))
                .output("out", DType.F32, m, n)
                .buffer("A", DType.F32, m, k).buffer("B", DType.F32, k, n).buffer("C", DType.F32, m, n)
                .loadAll("la", "a", "A").loadAll("lb", "b", "B")
                .compute("mm", List.of("A", "B"), "C", ComputeOp.MatMul.plain())
                .storeAll("store", "C", "out")
                .expect("out", f32(dims(m, n), c))
                .build();
    }
}
