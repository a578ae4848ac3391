package org.stagecheck.golden;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.report.TextReport;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;

/**
 * The interpreter's own regression gate: every case of the checked-in suite golden/cases/
 * (recorded by bin/golden-suite) is reproduced bit for bit, and passes under its recorded policy.
 */
@Tag("slow")
class GoldenSuiteTest {
    static Path suite() {
        return Subjects.root().resolve("golden/cases");
    }

    static Stream<Path> cases() throws GoldenException {
        return Golden.expand(List.of(suite())).stream();
    }

    @Test
    void theSuiteHoldsEveryExampleAndTheTinyCuts() throws Exception {
        List<String> names = cases().map(p -> p.getFileName().toString()).toList();
        for (Subjects.Subject s : Subjects.examples()) {
            assertThat(names).contains(s.name());
        }
        assertThat(names).contains("tiny-decode", "tiny-decode-tp2", "tiny-prefill", "tiny-batch", "tiny-batch-tp2");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void theEvaluatorReproducesTheCaseBitExactly(Path caseDir) {
        Actuals interp = new Actuals.FromBackend(new Interpreter(RunOptions.defaults()));
        CaseResult exact = Golden.check(caseDir, interp, new Policy.Exact());
        assertThat(exact.status()).as(TextReport.caseText(exact, true)).isEqualTo(CaseResult.Status.PASS);
        CaseResult recorded = Golden.check(caseDir, interp);
        assertThat(recorded.status()).as(TextReport.caseText(recorded, true)).isEqualTo(CaseResult.Status.PASS);
    }
}
