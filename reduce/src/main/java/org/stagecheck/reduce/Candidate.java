package org.stagecheck.reduce;

import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * A program with everything one run of it needs: the bound tensors (input, weight, state; a cut
 * may bind an output or scratch tensor with its contents at the cut) and a value per parameter.
 */
public record Candidate(Program program, Map<String, Tensor> bound, Map<String, Long> params) {
    public Candidate {
        bound = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(bound));
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
    }

    /** Stages, and elements of every declared tensor and buffer: the two sizes a shrink reports. */
    public Size size() {
        long elements = 0;
        for (TensorDecl t : program.tensors()) {
            elements += t.shape().elementCount();
        }
        for (var b : program.buffers()) {
            elements += b.shape().elementCount();
        }
        return new Size(program.stages().size(), elements);
    }

    /** A program's size for a shrink report. */
    public record Size(int stages, long elements) {
        @Override
        public String toString() {
            return stages + " stages, " + elements + " elements";
        }
    }
}
