package org.stagecheck.golden.derive;

import org.stagecheck.backend.MathMode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.interp.Precision;
import org.stagecheck.interp.StageFault;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.tensor.Tensor;

/**
 * The derived bound of one stage taken alone (docs/debugging.md, "Rounding or bug"): its inputs
 * are given and taken as exact, and the result is the stage's float64 value and the bound on how
 * far any conforming f32 evaluation of it may be from that value, port by port. The same rules as
 * {@link DerivedBounds} apply, stage by stage.
 */
public final class StageBound {
    private StageBound() {
    }

    /**
     * @param values   the float64 value of each output port (float64-mode tensors for floating dtypes)
     * @param bounds   the bound of each output port (float64-mode tensors; integers: the exact value)
     * @param warnings integer outputs another conforming evaluation may compute differently
     */
    public record Result(List<Tensor> values, List<Tensor> bounds, List<String> warnings) {
        public Result {
            values = List.copyOf(values);
            bounds = List.copyOf(bounds);
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * @param inputs a value for every buffer {@code stage} reads (by buffer name); a spill never
     *               written may be absent
     * @throws StageFault when the stage faults on these inputs (or reads what is not given)
     */
    public static Result of(Program program, Stage stage, Map<String, Tensor> inputs, Map<String, Long> params, MathMode mode) throws StageFault {
        try (Stepper val = new Stepper(program, Precision.F64, params);
             Stepper err = new Stepper(program, Precision.F64, params)) {
            for (Map.Entry<String, Tensor> e : new LinkedHashMap<>(inputs).entrySet()) {
                BufferDecl d = val.bufferDecl(e.getKey());
                Tensor t = e.getValue();
                if (d.dtype().isFloating()) {
                    val.write(d.name(), Tensor.wrapDoubles(d.dtype(), d.shape(), t.toDoubles()));
                    err.write(d.name(), Tensor.zerosFloat64(d.dtype(), d.shape()));
                } else {
                    Tensor v = Tensor.wrapInts(d.shape(), t.toInts());
                    val.write(d.name(), v);
                    err.write(d.name(), v);
                }
            }
            List<String> warnings = new ArrayList<>();
            DerivedBounds.step(stage, val, err, params, mode, warnings, true);
            List<Tensor> values = new ArrayList<>();
            List<Tensor> bounds = new ArrayList<>();
            for (String out : stage.outs()) {
                values.add(val.read(out));
                bounds.add(err.read(out));
            }
            return new Result(values, bounds, warnings);
        }
    }
}
