package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.numeric.RoundFromDouble;
import org.stagecheck.tensor.npy.Npy;

/** model.json in every authored directory, tensor names never leaving it, weights rounded once. */
class AuthoredDirectoryHardeningTest {
    @TempDir
    Path tmp;

    @Test
    void everyAuthoredDirectoryRecordsTheModelsHyperparameters() throws Exception {
        ModelSpec m = ModelSpec.tiny();
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(m, Cut.decode(8), AuthorOptions.split(2));
        Path dir = tmp.resolve("d");
        a.writeTo(dir);
        JsonNode j = new ObjectMapper().readTree(dir.resolve("model.json").toFile());
        assertThat(j.get("heads").asInt()).isEqualTo(8);
        assertThat(j.get("kvHeads").asInt()).isEqualTo(4);
        assertThat(j.get("headDim").asInt()).isEqualTo(8);
        assertThat(j.get("ropeTheta").asDouble()).isEqualTo(10000.0);
        assertThat(j.get("normEps").asDouble()).isEqualTo(1e-5);
        assertThat(ModelSpec.read(dir.resolve("model.json"))).isEqualTo(m);
    }

    @Test
    void tensorNamesThatArePathsStayInsideTheDirectory() throws Exception {
        AuthorOutcome.Authored real = (AuthorOutcome.Authored) Author.author(ModelSpec.tiny(), Cut.decodeHead(), AuthorOptions.single());
        Map<String, Tensor> weights = new LinkedHashMap<>();
        Tensor t = Tensor.zeros(DType.F32, Shape.of(1));
        for (String name : new String[] {"../../escaped", "/abs/escaped", "a/b", "nul\0", "..", "CON", "W", "w"}) {
            weights.put(name, t);
        }
        Path dir = tmp.resolve("x/y/d");
        new AuthorOutcome.Authored(real.program(), null, weights, Map.of(), Map.of()).writeTo(dir);
        try (Stream<Path> s = Files.walk(tmp)) {
            assertThat(s.filter(Files::isRegularFile).allMatch(p -> p.startsWith(dir))).isTrue();
        }
        JsonNode m = new ObjectMapper().readTree(dir.resolve("inputs.json").toFile());
        for (String name : weights.keySet()) {
            Path f = dir.resolve(m.get("tensors").get(name).asText());
            assertThat(f.normalize().getParent()).as(name).isEqualTo(dir.resolve("weights"));
            assertThat(Npy.read(f).bitEquals(t)).isTrue();
        }
        assertThat(dir.resolve("model.json")).doesNotExist(); // this Authored knows no model
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"BF16", "F16"})
    void narrowWeightsAreRoundedOnceFromTheirExactValue(DType dtype) {
        ModelSpec m = ModelSpec.tiny();
        Tensor w = Weights.all(m, 0, dtype).get("wq.l0");
        long stream = m.seed() ^ Weights.fnv1a64("wq.l0");
        double scale = 1.0 / Math.sqrt(m.hidden());
        for (int i = 0; i < w.size(); i++) {
            double exact = scale * Weights.unit(stream, i);
            short once = dtype == DType.BF16 ? RoundFromDouble.bf16(exact) : RoundFromDouble.f16(exact);
            assertThat(w.rawBits16()[i]).as("element %d", i).isEqualTo(once);
        }
        // f32 weights are exactly the double rounded once to nearest
        Tensor f32 = Weights.all(m, 0, DType.F32).get("wq.l0");
        for (int i = 0; i < 16; i++) {
            assertThat(f32.getFloat(i)).isEqualTo((float) (scale * Weights.unit(stream, i)));
        }
    }

    @Test
    void writingReportsEveryTensorFileInOrder() throws Exception {
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(ModelSpec.tiny(), Cut.decode(4), AuthorOptions.single());
        java.util.List<int[]> seen = new java.util.ArrayList<>();
        long[] lastBytes = {0};
        a.writeTo(tmp.resolve("p"), (done, total, bytes) -> {
            seen.add(new int[] {done, total});
            assertThat(bytes).isGreaterThan(lastBytes[0]);
            lastBytes[0] = bytes;
        });
        int total = a.weights().size() + a.inputs().size();
        assertThat(seen).hasSize(total);
        for (int i = 0; i < total; i++) {
            assertThat(seen.get(i)).containsExactly(i + 1, total);
        }
    }
}
