package org.stagecheck.cuda.runtime;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;

/**
 * The fault record a kernel writes ({@code F[0]} = stage + 1, {@code F[1]} = code, two details;
 * sc_rt.h) as the reference's diagnostic: same code, the stage named.
 */
final class RuntimeFaults {
    private RuntimeFaults() {
    }

    static Diagnostic diagnostic(Program program, int index, long[] f) {
        Stage st = program.stages().get(index);
        String at = "/stages/" + index;
        return switch ((int) f[1]) {
            case 1 -> FaultCode.INDEX_OUT_OF_RANGE.atStage(index, st.id(), at + "/kind/pattern/indexBuffer", null,
                    "index buffer element " + f[2] + " is " + f[3] + ", outside the tensor's axis 0.");
            case 2 -> FaultCode.BLOCK_OUT_OF_BOUNDS.atStage(index, st.id(), at + "/kind/pattern/origin", null,
                    "the block at " + f[3] + " on axis " + f[2] + " lies past the tensor's end.");
            case 3 -> FaultCode.OFFSET_OVERFLOW.atStage(index, st.id(), at + "/kind/pattern", null,
                    "an offset on axis " + f[2] + " overflows 64 bits.");
            case 4 -> FaultCode.DIV_BY_ZERO.atStage(index, st.id(), at + "/kind", null,
                    "integer division or remainder by zero at element " + f[2] + ".");
            // the code is a number a kernel wrote to device memory: any other value is reported, not trusted
            default -> FaultCode.INTERNAL.atStage(index, st.id(), at, null,
                    "a kernel of this stage reported an unknown fault code " + f[1] + "; this is a bug in stagecheck-cuda-backend.");
        };
    }
}
