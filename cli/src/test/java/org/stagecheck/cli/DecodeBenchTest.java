package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code bench decode} reports, in one run, the step next to numpy's on the same weights and
 * tokens (or says that numpy is not there), the ratios, and the matvec with f32 and bf16 weights
 * next to numpy's. Only the shape of the report is checked here: its figures are timings.
 */
@Tag("slow")
class DecodeBenchTest {

    private static boolean numpyPresent() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import numpy").redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor() == 0;
        } catch (java.io.IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void theTinyStepIsReportedNextToNumpyWithTheMatvecInBothWeightTypes() {
        CliRunner r = CliRunner.run("bench", "decode", "--model", "tiny", "--ctx", "8", "--steps", "3", "--threads", "1",
                "--matvec-size", "96");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("tiny decode, ctx 8, tp 1, 1 threads:", "3 tokens timed after 2 warm-up",
                "calling-thread CPU");
        if (numpyPresent()) {
            // numpy computes the same step: the same next token on every one of the 5 steps
            assertThat(r.out()).contains("same next token on 5 of 5 steps", "(thread CPU; target 1.5x)",
                    "matvec 1x96x96 f32: stagecheck", "numpy / stagecheck", "bf16 weights: stagecheck");
        } else {
            assertThat(r.out()).contains("numpy: not measured", "matvec 1x96x96 f32: stagecheck", "bf16 weights: stagecheck");
        }
    }
}
