package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.tensor.npy.Npy;

/** author: weight dtypes, model limits refused before any work, the spec file's reader rules, model.json. */
class AuthorHardeningTest {
    @TempDir
    Path tmp;

    @Test
    @Tag("slow") // authors and runs a model per narrow format
    void narrowWeightsAreAuthoredAndRun() throws Exception {
        for (String dtype : new String[] {"bf16", "f16", "e4m3", "e5m2"}) {
            Path dir = tmp.resolve(dtype);
            CliRunner a = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--tp", "2", "--weights", dtype, "--out", dir.toString());
            assertThat(a.exit()).as(a.err()).isZero();
            assertThat(a.out()).contains(dtype + " weight tensors");
            DType d = DType.fromJsonName(dtype);
            assertThat(Npy.read(dir.resolve("weights/wq.l0.c0.npy"), d).dtype()).isEqualTo(d);
            assertThat(Npy.read(dir.resolve("weights/rope_cos.npy")).dtype()).isEqualTo(DType.F32);
            CliRunner r = CliRunner.run("run", dir.resolve("program.json").toString(), "--inputs", dir.toString(), "--out", tmp.resolve("o" + dtype).toString());
            assertThat(r.exit()).as(r.err()).isZero();
        }
        CliRunner bad = CliRunner.run("author", "--model", "tiny", "--cut", "decode", "--ctx", "8", "--weights", "i32", "--out", tmp.resolve("x").toString());
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).contains("--weights takes a floating dtype");
    }

    @Test
    void aMillionLayerSpecIsRefusedBeforeAnyWorkWithLineAndColumnRulesKept() throws IOException {
        Path spec = tmp.resolve("m.json");
        Files.writeString(spec, "{\"name\":\"m\",\"vocab\":64,\"hidden\":32,\"layers\":1000000,\"heads\":2,\"kvHeads\":1,\"headDim\":8,"
                + "\"ffn\":64,\"ropeTheta\":10000,\"normEps\":1e-5,\"seed\":1}");
        CliRunner r = CliRunner.run("author", "--model", spec.toString(), "--cut", "decode", "--ctx", "4", "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("layers is 1000000; at most 256 are authored");
        assertThat(tmp.resolve("o")).doesNotExist();
        Files.writeString(spec, "{\"name\":\"m\",\"name\":\"n\"}");
        r = CliRunner.run("author", "--model", spec.toString(), "--cut", "decode", "--ctx", "4", "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(spec + ":1:").contains("Duplicate field 'name'");
    }

    @Test
    void modelJsonOfAnAuthoredDirectoryAuthorsTheSameModelAgain() throws IOException {
        Path one = tmp.resolve("one");
        assertThat(CliRunner.run("author", "--model", "tiny", "--cut", "decode-head", "--out", one.toString()).exit()).isZero();
        Path two = tmp.resolve("two");
        CliRunner again = CliRunner.run("author", "--model", one.resolve("model.json").toString(), "--cut", "decode-head", "--out", two.toString());
        assertThat(again.exit()).as(again.err()).isZero();
        assertThat(Files.readAllBytes(two.resolve("weights/head.npy"))).isEqualTo(Files.readAllBytes(one.resolve("weights/head.npy")));
        assertThat(Files.readString(two.resolve("model.json"))).isEqualTo(Files.readString(one.resolve("model.json")));
    }
}
