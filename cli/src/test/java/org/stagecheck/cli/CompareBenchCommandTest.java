package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code bench compare}: the report alone on stdout (one JSON document with --json), progress on
 * stderr, nothing left in the work directory, a clear refusal when the data cannot fit on disk,
 * and a heap that does not grow with the data: a JVM with a 48 MiB heap runs it on sets of
 * 192 MiB (which the bench used to hold in memory three times over).
 */
@Tag("slow")
class CompareBenchCommandTest {
    @TempDir
    Path work;

    @Test
    void theReportIsAloneOnStdoutProgressGoesToStderrAndTheDataIsDeleted() throws Exception {
        CliRunner r = CliRunner.run("bench", "compare", "--mib", "4", "--tensors", "2", "--repeats", "1", "--work", work.toString(), "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(doc.get("status").asText()).isEqualTo("measured");
        String report = doc.get("report").asText();
        assertThat(report).contains("| engine | policy | seconds | CPU seconds | GB/s | x np.allclose | passed |",
                "| stagecheck | allclose 1.3e-6 1e-5 |", "| stagecheck | derived |", "JVM heap limit");
        assertThat(report.lines().filter(l -> l.startsWith("| stagecheck") || l.startsWith("| numpy"))).allMatch(l -> l.endsWith("| true |"));
        // numpy either ran on the same files, with its ratio, or the report says why not
        assertThat(report).containsAnyOf("| numpy | np.allclose(a, e, rtol=1.3e-06, atol=1e-05) |", "numpy not measured");
        assertThat(r.err()).contains("bench compare [", "writing", "round 1 of 1: stagecheck derived", "done; deleting");
        try (Stream<Path> left = Files.list(work)) {
            assertThat(left).as("what the bench left in --work").isEmpty();
        }
    }

    @Test
    void dataThatCannotFitOnDiskIsRefusedBeforeAnythingIsWritten() throws Exception {
        // 1000 tensors of 2.4 GiB: a few terabytes of files
        CliRunner r = CliRunner.run("bench", "compare", "--mib", "2500000", "--tensors", "1000", "--work", work.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("error: the bench writes").contains("GiB free").doesNotContain("Exception");
        try (Stream<Path> left = Files.list(work)) {
            assertThat(left).isEmpty();
        }
        CliRunner missing = CliRunner.run("bench", "compare", "--work", work.resolve("none").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err()).contains("is not a directory");
    }

    @Test
    void aHeapOfAFourthOfOneSetIsEnough() throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-Xmx48m", "-cp", System.getProperty("java.class.path"), "org.stagecheck.cli.Main",
                "bench", "compare", "--mib", "192", "--tensors", "2", "--repeats", "1", "--no-numpy", "--work", work.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        assertThat(out).contains("two f32 tensor sets of 0.19 GiB each (2 tensors)", "JVM heap limit 48 MiB", "numpy not measured (--no-numpy)");
        assertThat(out.lines().filter(l -> l.startsWith("| stagecheck"))).hasSize(2).allMatch(l -> l.endsWith("| true |"));
        try (Stream<Path> left = Files.list(work)) {
            assertThat(left).isEmpty();
        }
    }
}
