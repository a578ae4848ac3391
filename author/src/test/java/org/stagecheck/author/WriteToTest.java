package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.json.ProgramCodec;

/** The output directory: program, certificate, weights, inputs and the inputs manifest. */
class WriteToTest {
    @TempDir
    Path tmp;

    @Test
    void writesEveryBoundTensorAndTheManifest() throws Exception {
        AuthorOutcome.Authored a = AuthorTest.authored(Cut.decode(8), AuthorOptions.split(2));
        Path dir = tmp.resolve("out");
        a.writeTo(dir);
        assertThat(Files.readAllBytes(dir.resolve("program.json"))).isEqualTo(new ProgramCodec().write(a.program()));
        assertThat(dir.resolve("certificate.json")).exists();
        JsonNode m = new ObjectMapper().readTree(dir.resolve("inputs.json").toFile());
        assertThat(m.get("format").asText()).isEqualTo("stagecheck-inputs");
        assertThat(m.get("version").asInt()).isEqualTo(1);
        assertThat(m.get("params").get("pos").asLong()).isZero();
        Set<String> listed = new HashSet<>();
        m.get("tensors").fieldNames().forEachRemaining(listed::add);
        for (TensorDecl t : a.program().tensors()) {
            assertThat(listed.contains(t.name())).as(t.name()).isEqualTo(t.role().isBoundBeforeRun());
        }
        assertThat(m.get("tensors").get("embed").asText()).isEqualTo("weights/embed.npy");
        assertThat(m.get("tensors").get("kv_k.l0.c1").asText()).isEqualTo("inputs/kv_k.l0.c1.npy");
        for (String name : listed) {
            Tensor back = Npy.read(dir.resolve(m.get("tensors").get(name).asText()));
            assertThat(back.bitEquals(a.bound().get(name))).as(name).isTrue();
        }
        assertThat(a.weightManifest()).containsEntry("wq.l1.c0", "weights/wq.l1.c0.npy");
        try (var s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString())).containsExactly("out"); // no temporary left behind
        }
    }

    /** What {@code stagecheck run DIR/program.json --inputs DIR} does, done by hand: same tokens and logits. */
    @Test
    void theDirectoryAloneReproducesTheRun() throws Exception {
        AuthorOutcome.Authored a = AuthorTest.authored(Cut.batch(2, 8),
                AuthorOptions.split(2).withWeights(org.stagecheck.spec.ir.DType.BF16)); // bf16 .npy as <u2 bit patterns
        Path dir = tmp.resolve("batch");
        a.writeTo(dir);
        Program program = new ProgramCodec().read(Files.readString(dir.resolve("program.json")));
        JsonNode m = new ObjectMapper().readTree(dir.resolve("inputs.json").toFile());
        Map<String, Tensor> bound = new LinkedHashMap<>();
        for (var it = m.get("tensors").fields(); it.hasNext(); ) {
            var e = it.next();
            bound.put(e.getKey(), Npy.read(dir.resolve(e.getValue().asText())));
        }
        Map<String, Long> params = new LinkedHashMap<>();
        m.get("params").fields().forEachRemaining(e -> params.put(e.getKey(), e.getValue().asLong()));
        Interpreter interpreter = new Interpreter(RunOptions.defaults());
        RunResult fromDisk = interpreter.run(program, bound, params);
        RunResult inMemory = interpreter.run(a.program(), a.bound(), a.params());
        assertThat(fromDisk.faults()).isEmpty();
        assertThat(fromDisk.tensor("next_token").bitEquals(inMemory.tensor("next_token"))).isTrue();
        assertThat(fromDisk.tensor("logits").bitEquals(inMemory.tensor("logits"))).isTrue();
    }

    @Test
    void anUnsplitCutHasNoCertificate() throws IOException {
        Path dir = tmp.resolve("single");
        AuthorTest.authored(Cut.decodeHead(), AuthorOptions.single()).writeTo(dir);
        assertThat(dir.resolve("certificate.json")).doesNotExist();
        assertThat(dir.resolve("inputs/h_in.npy")).exists();
    }

    @Test
    void refusesToOverwriteANonEmptyDirectory() throws IOException {
        Path dir = tmp.resolve("taken");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("program.json"), "mine");
        AuthorOutcome.Authored a = AuthorTest.authored(Cut.decodeEmbed(), AuthorOptions.single());
        assertThatThrownBy(() -> a.writeTo(dir)).isInstanceOf(IOException.class)
                .hasMessageContaining("refusing to overwrite an existing output directory");
        assertThat(Files.readString(dir.resolve("program.json"))).isEqualTo("mine");
        Path empty = tmp.resolve("empty");
        Files.createDirectories(empty);
        a.writeTo(empty);
        assertThat(empty.resolve("program.json")).exists();
    }
}
