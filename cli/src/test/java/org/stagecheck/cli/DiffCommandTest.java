package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * {@code stagecheck diff} end to end on the tiny decode step: a backend trace with one stage's
 * output perturbed is caught at that stage by the trace diff and by replay, an untouched run
 * agrees, and bad input is exit 2 with one JSON document.
 */
class DiffCommandTest {
    @TempDir
    Path tmp;
    Path dir;
    Path program;
    Path ref;

    @BeforeEach
    void authorAndTrace() {
        dir = tmp.resolve("decode");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--out", dir.toString()).exit()).isZero();
        program = dir.resolve("program.json");
        ref = tmp.resolve("ref");
        CliRunner r = CliRunner.run("run", program.toString(), "--inputs", dir.toString(), "--out", ref.toString(), "--trace");
        assertThat(r.exit()).as(r.err()).isZero();
    }

    /** A copy of the reference's run with the trace file of the {@code n}-th traced matmul scaled by 1.5. */
    private Path backendWithPerturbedStage(Path into, int n, boolean keepTrace) throws IOException {
        Files.createDirectories(into.resolve("trace"));
        String perturbed = null;
        try (Stream<Path> files = Files.list(ref.resolve("trace"))) {
            List<Path> sorted = files.sorted().toList();
            List<Path> matmuls = sorted.stream().filter(f -> f.getFileName().toString().contains("logits") || f.getFileName().toString().contains(".t0")).toList();
            Path victim = matmuls.get(n);
            for (Path f : sorted) {
                if (f.equals(victim)) {
                    Tensor t = Npy.read(f);
                    float[] v = t.toFloats();
                    for (int i = 0; i < v.length; i++) {
                        v[i] *= 1.5f;
                    }
                    Npy.write(into.resolve("trace").resolve(f.getFileName()), Tensor.fromFloats(t.dtype(), t.shape(), v));
                    perturbed = f.getFileName().toString();
                } else if (keepTrace) {
                    Files.copy(f, into.resolve("trace").resolve(f.getFileName()));
                }
            }
        } catch (org.stagecheck.tensor.npy.TensorFileException e) {
            throw new IOException(e);
        }
        try (Stream<Path> files = Files.list(ref)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Files.copy(f, into.resolve(f.getFileName()));
            }
        }
        return into.resolve("trace").resolve(perturbed);
    }

    private static String stageIdOf(Path traceFile) {
        return traceFile.getFileName().toString().replaceFirst("^\\d{5}_", "").replaceFirst("\\.out\\d+\\.npy$", "");
    }

    @Test
    void anHtmlPathInAMissingDirectoryIsRefusedBeforeTheWork() throws Exception {
        CliRunner r = CliRunner.run("diff", ref.toString(), ref.toString(), "--program", program.toString(),
                "--html", tmp.resolve("nowhere/diff.html").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--html").contains("does not exist");
    }

    @Test
    void aPerturbedStageIsTheFirstDivergentStageOfTheTraceDiffWithTextJsonAndHtml() throws Exception {
        Path back = tmp.resolve("back");
        String victim = stageIdOf(backendWithPerturbedStage(back, 1, true));
        Files.createDirectories(tmp.resolve("report")); // report paths are checked, never created, before the work
        CliRunner text = CliRunner.run("diff", ref.toString(), back.toString(), "--program", program.toString(), "--inputs", dir.toString(),
                "--html", tmp.resolve("report/diff.html").toString());
        assertThat(text.exit()).as(text.out() + text.err()).isEqualTo(1);
        assertThat(text.out()).contains("first divergent stage").contains("'" + victim + "'").contains("backend beyond its bound");
        assertThat(text.out()).containsPattern("#0 \\S+ \\(Load\\): agrees");
        String html = Files.readString(tmp.resolve("report/diff.html"));
        assertThat(html).contains("<tr class=\"diverges first\">").contains("href=\"diff.divergent.html\"");
        assertThat(Files.readString(tmp.resolve("report/diff.divergent.html"))).contains(victim).contains("FAIL");

        CliRunner json = CliRunner.run("diff", ref.toString(), back.toString(), "--program", program.toString(), "--json");
        assertThat(json.exit()).isEqualTo(1);
        JsonNode doc = new ObjectMapper().readTree(json.out());
        assertThat(doc.get("firstDivergentStage").get("id").asText()).isEqualTo(victim);
        assertThat(doc.get("threeWay").get("verdict").asText()).isEqualTo("beyond_bound");
        assertThat(doc.get("divergentStageReport").get("cases").get(0).get("status").asText()).isEqualTo("fail");
    }

    @Test
    void replayOfTheBackendsTraceNamesThePerturbedStageAndAnUntouchedRunAgrees() throws Exception {
        Path back = tmp.resolve("back");
        String victim = stageIdOf(backendWithPerturbedStage(back, 2, true));
        CliRunner r = CliRunner.run("diff", "--replay", "--program", program.toString(), "--inputs", dir.toString(), "--actual", back.toString(), "--json");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(doc.get("mode").asText()).isEqualTo("replay");
        assertThat(doc.get("firstDivergentStage").get("id").asText()).isEqualTo(victim);

        CliRunner same = CliRunner.run("diff", "--replay", "--program", program.toString(), "--inputs", dir.toString(), "--actual", ref.toString());
        assertThat(same.exit()).as(same.out() + same.err()).isZero();
        assertThat(same.out()).contains("everything recorded agrees");
        CliRunner bisect = CliRunner.run("diff", "--replay", "--program", program.toString(), "--inputs", dir.toString(), "--backend", "interp");
        assertThat(bisect.exit()).as(bisect.out() + bisect.err()).isZero();
    }

    @Test
    void badInputIsExitTwoWithOneJsonDocument() throws Exception {
        CliRunner missing = CliRunner.run("diff", ref.toString(), tmp.resolve("nope").toString(), "--program", program.toString(), "--json");
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(new ObjectMapper().readTree(missing.out()).get("error").asText()).contains("nope");

        Path other = tmp.resolve("other");
        Files.createDirectories(other.resolve("trace"));
        Files.writeString(other.resolve("trace/00000_no_such_stage.out0.npy"), "x");
        CliRunner foreign = CliRunner.run("diff", ref.toString(), other.toString(), "--program", program.toString());
        assertThat(foreign.exit()).isEqualTo(2);
        assertThat(foreign.err()).contains("no_such_stage");

        CliRunner derived = CliRunner.run("diff", ref.toString(), ref.toString(), "--program", program.toString(), "--policy", "derived");
        assertThat(derived.exit()).isEqualTo(2);
        assertThat(derived.err()).contains("derived");

        CliRunner neither = CliRunner.run("diff", "--replay", "--program", program.toString(), "--inputs", dir.toString());
        assertThat(neither.exit()).isEqualTo(2);
        assertThat(CliRunner.run("diff", ref.toString(), "--program", program.toString()).exit()).isEqualTo(2);
    }
}
