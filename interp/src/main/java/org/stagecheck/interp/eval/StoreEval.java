package org.stagecheck.interp.eval;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.rules.MoveRules;
import org.stagecheck.spec.rules.Rule;

/**
 * {@code Store} (brief, "Stages"): input port 0 written into the region of the tensor, in place,
 * bits unchanged: the buffer has the tensor's dtype and the region's shape ({@link MoveRules#store},
 * as the validator).
 * Each block is written as {@code subRows x subCols} sub-blocks of its last two axes in row-major
 * order of sub-block positions; blocks in pattern order. As sub-blocks of one block never overlap,
 * the result equals a plain write of each block in turn, which is how it is computed; the tiling
 * itself is checked. Between blocks, a later block wins (an indirect store with a repeated index).
 */
final class StoreEval {
    private StoreEval() {
    }

    static void run(Stage st, StageKind.Store k, RunState s) throws Fault {
        TensorDecl td = s.tensorDecl(k.tensor());
        if (td.chip() != st.site().chip()) {
            throw new Fault(Rule.TENSOR_WRONG_CHIP, "kind/tensor", null, "tensor '" + td.name() + "' lives on chip " + td.chip()
                    + " but the stage runs on chip " + st.site().chip() + ".");
        }
        String in = Ports.in(st, 0);
        Tensor buf = s.read(in);
        Region r = Region.resolvePlanned(k.pattern(), -1, td, buf.shape(), s);
        Fault.throwFirst(MoveRules.store(s.bufferDecl(in), Shape.of(r.bufferShape()), td));
        int[] block = r.blockShape();
        int rank = block.length;
        int rows = rank >= 2 ? block[rank - 2] : 1;
        int cols = rank >= 1 ? block[rank - 1] : 1;
        if (rows % k.subRows() != 0 || cols % k.subCols() != 0) {
            throw new Fault(Rule.SUBBLOCK_TILING, "kind/subBlocks", null, k.subRows() + "x" + k.subCols()
                    + " sub-blocks do not tile the block's last two axes " + rows + "x" + cols + ".");
        }
        r.scatter(buf, s.tensorForWrite(k.tensor()));
    }
}
