package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

/**
 * bin/gpu-pack-selftest: a pack made from the shaded jar is at most 60 MiB, and its check runs on
 * the pack's own runtime with no JDK to be found, passes in host emulation with its log and phase
 * times, and fails with the command's exit status when the command fails.
 *
 * <p>It needs the shaded jar of this build, which exists only after the package phase: the cli
 * module's pom runs this class in a second surefire execution after the shade plugin and names the
 * jar in {@value #JAR}; in the test phase (no such property) it is skipped.
 */
@Tag("slow")
@EnabledIfSystemProperty(named = GpuPackSelfTest.JAR, matches = ".+")
class GpuPackSelfTest {
    static final String JAR = "stagecheck.shadedJar";

    @Test
    void aPackBuiltFromTheJarRunsItsCheckWithoutAJdk() throws Exception {
        Path jar = Path.of(System.getProperty(JAR));
        assertThat(jar).isRegularFile();
        Path script = Path.of("../bin/gpu-pack-selftest").toAbsolutePath().normalize();
        Path output = Files.createTempFile("gpu-pack-selftest", ".log");
        try {
            Process p = new ProcessBuilder("bash", script.toString(), "--jar", jar.toAbsolutePath().toString())
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start();
            boolean finished = p.waitFor(30, TimeUnit.MINUTES);
            if (!finished) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
            String text = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(finished).as("bin/gpu-pack-selftest finished within 30 minutes:\n%s", text).isTrue();
            assertThat(p.exitValue()).as("bin/gpu-pack-selftest's exit status; its output:\n%s", text).isZero();
            assertThat(text).contains("gpu-check: passed", "gpu-check: FAILED (exit 2)")
                    .endsWith("gpu-pack-selftest: passed\n");
        } finally {
            Files.deleteIfExists(output);
        }
    }
}
