package org.stagecheck.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.GoldenException;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.tensor.Tensor;

/**
 * A golden case directory given as {@code --inputs}: the bound tensors and parameter values the
 * case was recorded with, so that a case that fails is re-run (reduced) from the case itself.
 */
final class CaseInputs {
    private CaseInputs() {}

    /** Whether {@code dir} is a golden case (a manifest, and no inputs manifest of its own). */
    static boolean isCase(Path dir) {
        return Files.isRegularFile(dir.resolve("manifest.json")) && !Files.exists(dir.resolve("inputs.json"));
    }

    /** A run's bound tensors and parameter values. */
    record Bindings(Map<String, Tensor> bound, Map<String, Long> params) {}

    /** The case's bindings and parameters for {@code program}, which must declare them as the case's program does. */
    static Bindings of(String option, Path dir, Program program) throws BadInputException {
        Golden.Recorded r;
        try {
            r = Golden.recorded(dir);
        } catch (GoldenException e) {
            throw new BadInputException(option + " " + dir + ": " + e.getMessage());
        }
        Map<String, Tensor> bound = new LinkedHashMap<>();
        for (TensorDecl t : program.tensors()) {
            Tensor v = r.inputs().get(t.name());
            if (v == null && t.role().isBoundBeforeRun()) {
                throw new BadInputException(option + " " + dir + ": the case binds no tensor '" + t.name() + "'");
            }
            if (v != null && (v.dtype() != t.dtype() || !v.shape().equals(t.shape()))) {
                throw new BadInputException(option + " " + dir + ": the case binds '" + t.name() + "' to " + v.dtype() + v.shape()
                        + " but the program declares " + t.dtype() + t.shape());
            }
            if (v != null) {
                bound.put(t.name(), v);
            }
        }
        Map<String, Long> params = new LinkedHashMap<>();
        for (Param p : program.params()) {
            Long v = r.params().get(p.name());
            if (v == null || v < p.min() || v > p.max()) {
                throw new BadInputException("parameter " + p.name() + " needs a value in [" + p.min() + ", " + p.max() + "]; the case "
                        + dir + " gives " + v);
            }
            params.put(p.name(), v);
        }
        return new Bindings(bound, params);
    }
}
