package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Long commands print progress on stderr when it is a terminal or {@code STAGECHECK_PROGRESS=1}
 * asks for it, never with {@code --json} and never into a log that did not ask; stdout keeps the
 * report alone either way.
 */
class ProgressLinesTest {
    @Test
    void theRule() {
        assertThat(ProgressLines.enabled(false, "1")).isTrue();
        assertThat(ProgressLines.enabled(true, "1")).as("never with --json").isFalse();
        assertThat(ProgressLines.enabled(false, "0")).isFalse();
        // the test's stderr is a pipe to surefire, not a terminal
        assertThat(ProgressLines.enabled(false, null)).isFalse();
    }

    private record Ran(int exit, String out, String err) {}

    private static Ran bench(String progress, String... args) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(ChildJvm.command(args));
        pb.environment().remove(ProgressLines.ENV);
        if (progress != null) {
            pb.environment().put(ProgressLines.ENV, progress);
        }
        pb.redirectError(ProcessBuilder.Redirect.PIPE);
        Process p = pb.start();
        // stderr is small here (a few lines): read stdout to its end, then stderr
        byte[] out = p.getInputStream().readAllBytes();
        byte[] e = p.getErrorStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Ran(p.exitValue(), new String(out, StandardCharsets.UTF_8), new String(e, StandardCharsets.UTF_8));
    }

    @Test
    @Tag("slow") // three JVMs
    void benchVerifierSaysWhatItIsDoingWhenAsked() throws Exception {
        Ran asked = bench("1", "bench", "verifier", "1000");
        assertThat(asked.exit()).as(asked.err()).isZero();
        assertThat(asked.err()).contains("bench verifier [").contains("generating and verifying programs of [1000] stages");
        assertThat(asked.out()).contains("ns/stage").doesNotContain("bench verifier [");

        Ran json = bench("1", "bench", "verifier", "1000", "--json");
        assertThat(json.exit()).as(json.err()).isZero();
        assertThat(json.err()).doesNotContain("bench verifier [");

        Ran log = bench(null, "bench", "verifier", "1000");
        assertThat(log.exit()).as(log.err()).isZero();
        assertThat(log.err()).as("stderr is a pipe here").doesNotContain("bench verifier [");
    }

    @Test
    @Tag("slow") // three JVMs
    void verifySaysWhatItReadsAndChecksWhenAsked() throws Exception {
        String program = "examples/tp2-matmul-allreduce.json";
        java.nio.file.Path root = java.nio.file.Path.of(System.getProperty("user.dir")).getParent();
        String p = root.resolve(program).toString();
        String cert = root.resolve("examples/certificates/tp2-matmul-allreduce.json").toString();
        Ran asked = bench("1", "verify", p, "--cert", cert);
        assertThat(asked.exit()).as(asked.err()).isZero();
        assertThat(asked.err()).contains("verify [").contains("reading " + p).contains("reading " + cert)
                .contains("checking 13 stages on 2 chip(s)");
        assertThat(asked.out()).contains("verified").doesNotContain("verify [");

        Ran json = bench("1", "verify", p, "--cert", cert, "--json");
        assertThat(json.exit()).as(json.err()).isZero();
        assertThat(json.err()).doesNotContain("verify [");

        Ran log = bench(null, "verify", p, "--cert", cert);
        assertThat(log.err()).as("stderr is a pipe here").doesNotContain("verify [");
    }
}
