package org.stagecheck.golden.assertj;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.assertj.core.api.AbstractAssert;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.report.TextReport;
import org.stagecheck.tensor.Tensor;

/**
 * AssertJ entry point for gating a JUnit test on a golden case:
 * <pre>{@code
 * import static org.stagecheck.golden.assertj.GoldenAssertions.assertThat;
 *
 * RunResult r = myBackend.run(program, bound, params);
 * assertThat(r).matchGolden(Path.of("golden/cases/tiny-decode"));
 * }</pre>
 * The failure message is the text report of the case (every failing output's figures). Needs
 * AssertJ on the test class path (golden declares it optional).
 */
public final class GoldenAssertions {
    private GoldenAssertions() {
    }

    public static OutputsAssert assertThat(Map<String, Tensor> outputs) {
        return new OutputsAssert(outputs);
    }

    public static OutputsAssert assertThat(RunResult result) {
        return new OutputsAssert(result.tensors());
    }

    /** Assertions on a set of output tensors, by name. */
    public static final class OutputsAssert extends AbstractAssert<OutputsAssert, Map<String, Tensor>> {
        OutputsAssert(Map<String, Tensor> actual) {
            super(new LinkedHashMap<>(actual), OutputsAssert.class);
        }

        /** Every output of the case matches under its recorded policy; otherwise fails with the case's text report. */
        public OutputsAssert matchGolden(Path caseDir) {
            isNotNull();
            CaseResult r = Golden.check(caseDir, new Actuals.FromTensors(actual));
            if (!r.passed()) {
                failWithMessage("%s", TextReport.caseText(r, false));
            }
            return this;
        }
    }
}
