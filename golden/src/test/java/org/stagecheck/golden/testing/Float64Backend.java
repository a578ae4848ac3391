package org.stagecheck.golden.testing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * A correct backend that computes the whole run in float64 (the interpreter's float64 mode) and
 * writes every value it records, traced stage outputs and DRAM tensors alike, rounded to its
 * dtype: as an independent float64 forward of the model would. Each stage is fed its inputs
 * before their rounding, so its recorded value is not what a stage computes from the recorded
 * inputs; only within their rounding.
 */
public final class Float64Backend implements Backend {
    @Override
    public String name() {
        return "float64";
    }

    @Override
    public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
        RunResult r = new Interpreter(RunOptions.defaults().withPrecision(Precision.F64).withTrace(trace)).run(program, bound, params);
        Map<String, List<Tensor>> traced = new LinkedHashMap<>();
        r.trace().forEach((id, ports) -> traced.put(id, ports.stream().map(Float64Backend::rounded).toList()));
        Map<String, Tensor> tensors = new LinkedHashMap<>();
        r.tensors().forEach((name, t) -> tensors.put(name, rounded(t)));
        return new RunResult(tensors, traced, r.faults(), r.stoppedAtStage());
    }

    /** A float64-mode value rounded to its dtype (through f32; other values unchanged). */
    private static Tensor rounded(Tensor t) {
        return t.isFloat64() ? Tensor.fromFloats(t.dtype(), t.shape(), t.toFloats()) : t;
    }
}
