package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fifth hostile-input sweep: a model spec's value that the spec refuses is named at its
 * line:column, as every JSON reader names its errors; a tolerance policy's number that means
 * nothing (NaN, infinite, too large) is refused naming the policy and what the number must be,
 * never with Java's number-format text; a bench's stage count beyond an int is a usage error
 * naming the limit, not an "unmatched argument".
 */
class HostileInputs5Test {
    private static final String GOOD = "{\"name\":\"m\",\n\"vocab\":64,\n\"hidden\":32,\n\"layers\":2,\n\"heads\":8,\n\"kvHeads\":4,\n"
            + "\"headDim\":8,\n\"ffn\":64,\n\"ropeTheta\":10000,\n\"normEps\":1e-5,\n\"seed\":1}";

    @TempDir
    Path tmp;

    /** Exit 2, stderr starting "error: " and holding every mention, no stack trace, no Java number text. */
    private static void refused(CliRunner r, String... mentions) {
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
        String err = r.err().strip();
        assertThat(err).startsWith("error: ").contains(mentions).doesNotContain("Exception").doesNotContain("\tat ")
                .doesNotContain("For input string").doesNotContain("Unmatched argument");
    }

    @Test
    void modelSpecValuesTheSpecRefusesAreNamedAtTheirLineAndColumn() throws IOException {
        for (String[] edit : List.of(
                new String[] {"\"kvHeads\":4", "\"kvHeads\":3", ":6:11: heads (8) must be a multiple of kvHeads (3)"},
                new String[] {"\"normEps\":1e-5", "\"normEps\":0", ":10:11: normEps must be a finite positive number"},
                new String[] {"\"ropeTheta\":10000", "\"ropeTheta\":0.5", ":9:13: ropeTheta must be a finite number above 1"},
                new String[] {"\"headDim\":8", "\"headDim\":7", ":7:11: headDim must be even"})) {
            Path spec = tmp.resolve("spec.json");
            Files.writeString(spec, GOOD.replace(edit[0], edit[1]));
            Path out = tmp.resolve("authored");
            refused(CliRunner.run("author", "--model", spec.toString(), "--cut", "decode", "--ctx", "8", "--out", out.toString()),
                    spec + edit[2]);
            assertThat(out).doesNotExist();
        }
    }

    @Test
    void policyNumbersThatMeanNothingNameThePolicyAndWhatTheNumberMustBe() {
        Path missing = tmp.resolve("no-case");
        refused(CliRunner.run("golden", "check", missing.toString(), "--actual", missing.toString(), "--policy", "pcc NaN"),
                "--policy: tolerance policy 'pcc NaN': MIN must be a correlation in [-1, 1], not 'nan'");
        refused(CliRunner.run("golden", "check", missing.toString(), "--actual", missing.toString(), "--policy", "allclose 1e-3 Infinity"),
                "ATOL must be a finite number at least 0");
        refused(CliRunner.run("golden", "check", missing.toString(), "--actual", missing.toString(), "--policy", "ulp 99999999999999999999"),
                "N must be a whole number at least 0");
    }

    @Test
    void aBenchStageCountBeyondTheLimitIsAUsageErrorNamingIt() {
        for (String count : List.of("99999999999", "0", "-5", "7", "20000001", "abc")) {
            refused(CliRunner.run("bench", "verifier", count), "STAGES '" + count + "'", "from 8 to 20000000");
        }
    }
}
