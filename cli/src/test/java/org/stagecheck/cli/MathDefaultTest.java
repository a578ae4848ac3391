package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.backend.MathMode;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/** One {@code --math} default, {@link MathMode#DEFAULT}, for golden record, diff and {@link RecordOptions#defaults()}. */
class MathDefaultTest {
    @TempDir
    Path tmp;

    private static final String DEFAULT = MathMode.DEFAULT.spelling();

    @Test
    void helpOfRecordAndDiffStatesTheOneDefault() {
        for (String[] command : List.of(new String[] {"golden", "record", "--help"}, new String[] {"diff", "--help"})) {
            CliRunner r = CliRunner.run(command);
            assertThat(r.exit()).isZero();
            assertThat(r.out().replaceAll("\\s+", " ")).as(String.join(" ", command))
                    .contains("--math=MODE function budgets the derived bound allows a backend: precise or fast (default " + DEFAULT + ")");
        }
        assertThat(RecordOptions.defaults().mathMode()).isEqualTo(MathMode.DEFAULT);
    }

    @Test
    void recordAndDiffWithoutMathUseTheDefault() throws Exception {
        Path program = Path.of("../examples/tiled-matmul-multicast.json");
        Path mm = tmp.resolve("mm");
        assertThat(CliRunner.run("golden", "record", program.toString(), "--random", "1", "--out", mm.toString()).exit()).isZero();
        JsonNode manifest = new ObjectMapper().readTree(mm.resolve("manifest.json").toFile());
        assertThat(manifest.at("/provenance/mathMode").asText()).isEqualTo(DEFAULT);

        // a backend trace with one stage's output scaled: diff names the budgets its three-way comparison used
        Path ref = tmp.resolve("ref");
        assertThat(CliRunner.run("run", program.toString(), "--random", "1", "--trace", "--out", ref.toString()).exit()).isZero();
        Path back = tmp.resolve("back");
        copyTree(ref, back);
        Path victim;
        try (Stream<Path> files = Files.list(back.resolve("trace"))) {
            victim = files.filter(f -> f.toString().endsWith(".npy")).sorted().reduce((a, b) -> b).orElseThrow(); // the last traced stage (every value of this program is f32)
        }
        Tensor t = Npy.read(victim);
        float[] v = t.toFloats();
        for (int i = 0; i < v.length; i++) {
            v[i] *= 1.5f;
        }
        Npy.write(victim, Tensor.fromFloats(t.dtype(), t.shape(), v));
        CliRunner diff = CliRunner.run("diff", ref.toString(), back.toString(), "--program", program.toString(), "--json");
        assertThat(diff.exit()).as(diff.out() + diff.err()).isEqualTo(1);
        assertThat(new ObjectMapper().readTree(diff.out()).at("/threeWay/mathMode").asText()).isEqualTo(DEFAULT);
    }

    private static void copyTree(Path from, Path to) throws Exception {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
