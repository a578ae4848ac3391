package org.stagecheck.conformance;

import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.f32;
import static org.stagecheck.conformance.Tensors.iota;

import java.util.List;

import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.tensor.Tensor;

/**
 * The layout ops (docs/semantics.md, "Layout ops"): pure element moves. Bit-exact moves of every
 * dtype's special codes are in {@link DTypeCases}.
 */
final class LayoutCases {
    private LayoutCases() {
    }

    static List<ConformanceCase> cases() {
        Tensor x = f32(dims(2, 3), iota(6)); // [[0,1,2],[3,4,5]]
        return List.of(
                layout("transpose-2d", "output axis i is input axis perm[i]", List.of(x), new ComputeOp.Transpose(List.of(1, 0)),
                        f32(dims(3, 2), 0, 3, 1, 4, 2, 5)),
                // x[a][b][c] = 4a + 2b + c over [2,2,2]; perm [2,0,1]: out[i][j][k] = x[j][k][i] = 4j + 2k + i
                layout("transpose-3d", "a rank-3 permutation", List.of(f32(dims(2, 2, 2), iota(8))), new ComputeOp.Transpose(List.of(2, 0, 1)),
                        f32(dims(2, 2, 2), 0, 2, 4, 6, 1, 3, 5, 7)),
                // the [2,2] window at (0,1) of x: [[1,2],[4,5]]
                layout("slice", "a slice is the window at starts of the output's shape", List.of(x), new ComputeOp.Slice(List.of(0, 1)),
                        f32(dims(2, 2), 1, 2, 4, 5)),
                // iota [3,4]; window [2,2] at (1,1): [[5,6],[9,10]]
                layout("slice-offset-both-axes", "slice starts apply on every axis", List.of(f32(dims(3, 4), iota(12))),
                        new ComputeOp.Slice(List.of(1, 1)), f32(dims(2, 2), 5, 6, 9, 10)),
                // x ++ [[1,2],[4,5]] along axis 1: rows [0,1,2,1,2] and [3,4,5,4,5]
                layout("concat-axis1", "inputs are laid end to end along the axis in port order",
                        List.of(x, f32(dims(2, 2), 1, 2, 4, 5)), new ComputeOp.Concat(1),
                        f32(dims(2, 5), 0, 1, 2, 1, 2, 3, 4, 5, 4, 5)),
                // [[9,8,7]] ++ x ++ [[-1,-2,-3]] along axis 0: shapes [1,3], [2,3], [1,3] -> [4,3]
                layout("concat-three-axis0", "three inputs along axis 0, in port order",
                        List.of(f32(dims(1, 3), 9, 8, 7), x, f32(dims(1, 3), -1, -2, -3)), new ComputeOp.Concat(0),
                        f32(dims(4, 3), 9, 8, 7, 0, 1, 2, 3, 4, 5, -1, -2, -3)),
                // [[0,1,2],[3,4,5]] as [3,2] keeps row-major order: [[0,1],[2,3],[4,5]]
                layout("reshape", "reshape keeps the row-major order of the elements", List.of(x), new ComputeOp.Reshape(),
                        f32(dims(3, 2), iota(6))),
                // [2,3] as [1,6,1]: the same six elements in order
                layout("reshape-rank-change", "reshape may change the rank", List.of(x), new ComputeOp.Reshape(),
                        f32(dims(1, 6, 1), iota(6))));
    }

    private static ConformanceCase layout(String name, String what, List<Tensor> inputs, ComputeOp op, Tensor expected) {
        return CaseBuilder.oneCompute(Family.LAYOUT, name, what, inputs, "move", op, expected, Tolerance.exact());
    }
}
