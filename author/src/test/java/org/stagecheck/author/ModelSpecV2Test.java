package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.DType;

/** model.json version 2: the architecture and the checkpoint round-trip; version 1 stays for the plain model. */
class ModelSpecV2Test {
    @TempDir
    Path dir;

    @Test
    void architectureAndCheckpointRoundTrip() throws Exception {
        Architecture arch = new Architecture(Family.LLAMA, true, true, true, false, 5,
                new RopeScaling.Llama3(32.0, 1.0, 4.0, 8192), true);
        ModelSpec spec = new ModelSpec("m", 64, 32, 2, 8, 4, 8, 64, 500000.0, 1e-5, 0L, arch,
                new CheckpointSource(dir.resolve("ckpt"), DType.BF16));
        Path f = dir.resolve("model.json");
        write(spec, f);
        assertThat(Files.readString(f)).contains("\"version\" : 2", "\"family\" : \"llama\"", "\"dtype\" : \"bf16\"");
        assertThat(ModelSpec.read(f)).isEqualTo(spec);
    }

    @Test
    void aMixtureOfExpertsRoundTrips() throws Exception {
        ModelSpec spec = ModelSpec.tinyMoe().withArch(ModelSpec.tinyMoe().arch().withMoe(new Moe(8, 3, 16, false, 2, java.util.List.of(1, 3), 0)));
        Path f = dir.resolve("moe.json");
        write(spec, f);
        assertThat(Files.readString(f)).contains("\"moe\"", "\"denseLayers\" : [ 1, 3 ]");
        assertThat(ModelSpec.read(f)).isEqualTo(spec);
        write(ModelSpec.tinyMoe(), f);
        assertThat(ModelSpec.read(f)).isEqualTo(ModelSpec.tinyMoe());
    }

    @Test
    void thePlainModelIsStillVersionOne() throws Exception {
        Path f = dir.resolve("model.json");
        write(ModelSpec.tiny(), f);
        assertThat(Files.readString(f)).contains("\"version\" : 1").doesNotContain("family");
        assertThat(ModelSpec.read(f)).isEqualTo(ModelSpec.tiny());
    }

    @Test
    void versionOneRefusesTheNewFieldsAndBadValuesAreLocated() throws Exception {
        String base = "\"name\":\"m\",\"vocab\":8,\"hidden\":4,\"layers\":1,\"heads\":1,\"kvHeads\":1,\"headDim\":2,"
                + "\"ffn\":4,\"ropeTheta\":100,\"normEps\":1e-6,\"seed\":9";
        Path v1 = dir.resolve("v1.json");
        Files.writeString(v1, "{\"version\":1," + base + ",\"qkNorm\":true}");
        assertThatThrownBy(() -> ModelSpec.read(v1)).isInstanceOf(ModelSpecException.class).hasMessageContaining("unknown field \"qkNorm\"");
        Path bad = dir.resolve("bad.json");
        Files.writeString(bad, "{\"version\":2," + base + ",\"ropeScaling\":{\"type\":\"yarn\"}}");
        assertThatThrownBy(() -> ModelSpec.read(bad)).isInstanceOf(ModelSpecException.class).hasMessageContaining("ropeScaling");
        Path window = dir.resolve("w.json");
        Files.writeString(window, "{\"version\":2," + base + ",\"slidingWindow\":-3}");
        assertThatThrownBy(() -> ModelSpec.read(window)).isInstanceOf(ModelSpecException.class).hasMessageContaining("slidingWindow");
    }

    /** Values of the v2 objects that do not fit together are named at their object's line:column. */
    @Test
    void moeAndRopeScalingValuesThatDoNotFitTogetherAreLocated() throws Exception {
        String base = "{\"version\":2,\"name\":\"m\",\"vocab\":8,\"hidden\":4,\"layers\":1,\"heads\":1,\"kvHeads\":1,\"headDim\":2,"
                + "\"ffn\":4,\"ropeTheta\":100,\"normEps\":1e-6,\"seed\":9,\n";
        Path moe = dir.resolve("moe-bad.json");
        Files.writeString(moe, base + "  \"moe\":{\"experts\":2,\"topK\":3,\"expertFfn\":4,\"normTopK\":true,\"sparseStep\":1,"
                + "\"denseLayers\":[],\"sharedFfn\":0}}");
        assertThatThrownBy(() -> ModelSpec.read(moe)).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith(moe + ":2:9: a mixture of 2 experts needs 1 <= topK <= experts");
        Path rope = dir.resolve("rope-bad.json");
        Files.writeString(rope, base + "  \"ropeScaling\":{\"type\":\"llama3\",\"factor\":8,\"lowFreqFactor\":4,\"highFreqFactor\":1,"
                + "\"originalMaxPositions\":8192}}");
        assertThatThrownBy(() -> ModelSpec.read(rope)).isInstanceOf(ModelSpecException.class)
                .hasMessageStartingWith(rope + ":2:17: llama3 rope scaling needs");
    }

    private static void write(ModelSpec spec, Path f) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        spec.writeJson(out);
        Files.writeString(f, out.toString(StandardCharsets.UTF_8));
    }
}
