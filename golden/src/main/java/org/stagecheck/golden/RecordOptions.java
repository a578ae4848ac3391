package org.stagecheck.golden;

import java.util.LinkedHashMap;
import java.util.Map;

import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.derive.Ensemble;
import org.stagecheck.backend.MathMode;

/**
 * How a case is recorded.
 *
 * @param policy    the policy of every output not named in {@code perOutput}
 * @param perOutput policies of single outputs, by tensor name
 * @param trace     also record every stage's outputs
 * @param mathMode  the function budgets the derived tolerances allow a backend
 * @param update    replace an existing case (without it, an existing case is refused)
 * @param ensemble  the conforming ensemble the derived tolerances come from (sample count, seed, threads)
 */
public record RecordOptions(Policy policy, Map<String, Policy> perOutput, boolean trace, MathMode mathMode, boolean update,
                            Ensemble.Options ensemble) {
    public RecordOptions {
        perOutput = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(perOutput));
    }

    /** Policy {@code derived}, no trace, the default math budgets ({@link MathMode#DEFAULT}), no update, the default ensemble. */
    public static RecordOptions defaults() {
        return new RecordOptions(new Policy.Derived(1), Map.of(), false, MathMode.DEFAULT, false, Ensemble.Options.defaults());
    }

    public RecordOptions withEnsemble(Ensemble.Options e) {
        return new RecordOptions(policy, perOutput, trace, mathMode, update, e);
    }

    public RecordOptions withPolicy(Policy p) {
        return new RecordOptions(p, perOutput, trace, mathMode, update, ensemble);
    }

    public RecordOptions withPolicy(String tensor, Policy p) {
        Map<String, Policy> m = new LinkedHashMap<>(perOutput);
        m.put(tensor, p);
        return new RecordOptions(policy, m, trace, mathMode, update, ensemble);
    }

    public RecordOptions withTrace(boolean t) {
        return new RecordOptions(policy, perOutput, t, mathMode, update, ensemble);
    }

    public RecordOptions withMathMode(MathMode m) {
        return new RecordOptions(policy, perOutput, trace, m, update, ensemble);
    }

    public RecordOptions withUpdate(boolean u) {
        return new RecordOptions(policy, perOutput, trace, mathMode, u, ensemble);
    }

    /** The policy of output {@code tensor}. */
    public Policy policyOf(String tensor) {
        return perOutput.getOrDefault(tensor, policy);
    }
}
