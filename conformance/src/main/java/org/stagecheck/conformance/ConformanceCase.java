package org.stagecheck.conformance;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * One conformance case, the unit a backend is held to (like one directory of the ONNX backend
 * tests): a small program, the tensors and parameters it runs on, and the hand-worked final value
 * of each output or state tensor it checks.
 *
 * @param name     unique, {@code family/what-it-tests}, e.g. {@code matmul/spill-and-bias}
 * @param family   the stage kind or op family under test
 * @param what     one sentence: the rule the case checks
 * @param program  the program
 * @param bound    values of its input, weight and state tensors (and of outputs that start non-zero)
 * @param params   a value for every program parameter
 * @param expected the DRAM tensors compared after the run, each with its tolerance
 */
public record ConformanceCase(String name, Family family, String what, Program program,
                              Map<String, Tensor> bound, Map<String, Long> params, List<Expected> expected) {
    public ConformanceCase {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(family, "family");
        Objects.requireNonNull(what, "what");
        Objects.requireNonNull(program, "program");
        if (!name.startsWith(family.prefix() + "/")) {
            throw new IllegalArgumentException("case '" + name + "' must be named " + family.prefix() + "/...");
        }
        bound = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(bound));
        params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
        expected = List.copyOf(expected);
        if (expected.isEmpty()) {
            throw new IllegalArgumentException("case '" + name + "' checks no tensor");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
