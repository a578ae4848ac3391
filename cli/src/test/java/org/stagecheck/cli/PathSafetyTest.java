package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.SafeNames;

/**
 * Names in a program are data: no tensor name or stage id makes run, run --trace or author write
 * outside the output directory or read outside the inputs directory.
 */
@Tag("slow") // a sweep of hostile output names
class PathSafetyTest {
    @TempDir
    Path tmp;

    /** Names with .., absolute paths, separators, NUL and other control characters. */
    static Stream<String> hostile() {
        return Stream.of("../../escaped", "../escaped", "/tmp/stagecheck-escaped-absolute", "sub/escaped", "sub\\escaped",
                "..", ".", "nul\0byte", "line\nbreak", "esc\u001b[2J", "del\u007f", "");
    }

    private Set<String> treeOf(Path root) throws IOException {
        try (Stream<Path> s = Files.walk(root)) {
            return s.map(p -> root.relativize(p).toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @ParameterizedTest
    @MethodSource("hostile")
    void aHostileOutputNameOrStageIdIsRefusedAndNothingIsWrittenAnywhere(String name) throws IOException {
        Path sandbox = tmp.resolve("a/b/c");
        Path program = HostileProgram.write(sandbox.resolve("p.json"), name, "x", name);
        Set<String> before = treeOf(tmp);
        for (List<String> extra : List.of(List.<String>of(), List.of("--trace"), List.of("--json"))) {
            List<String> args = new java.util.ArrayList<>(List.of("run", program.toString(), "--random", "1", "--out", sandbox.resolve("out").toString()));
            args.addAll(extra);
            CliRunner r = CliRunner.run(args.toArray(String[]::new));
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
            assertThat(r.out() + r.err()).contains("BAD_NAME").doesNotContain("\0").doesNotContain("\u001b");
        }
        assertThat(treeOf(tmp)).isEqualTo(before);
        assertThat(Path.of("/tmp/stagecheck-escaped-absolute.npy")).doesNotExist();
    }

    @ParameterizedTest
    @MethodSource("hostile")
    void aHostileInputNameIsRefusedBeforeAnyFileIsRead(String name) throws IOException {
        Path inputs = tmp.resolve("in/d");
        Files.createDirectories(inputs);
        // a file the name would reach if it were a path
        Npy.write(tmp.resolve("escaped.npy"), Tensor.zeros(DType.F32, Shape.of(4, 8)));
        Path program = HostileProgram.write(tmp.resolve("p.json"), "y", name, "silu");
        CliRunner r = CliRunner.run("run", program.toString(), "--inputs", inputs.toString(), "--out", tmp.resolve("out").toString());
        assertThat(r.exit()).as(r.err()).isEqualTo(1);
        assertThat(r.err()).contains("BAD_NAME");
        assertThat(tmp.resolve("out")).doesNotExist();
    }

    /** Names every file system takes only after encoding: written inside OUT, and the index maps them back. */
    @ParameterizedTest
    @ValueSource(strings = {"CON", "a:b*c?", ".hidden", "trailing.", "spaces in it", "%41", "\u00e9t\u00e9", "Y"})
    void namesThatAreOnlyAwkwardAreWrittenInsideOutUnderTheirSafeNames(String name) throws IOException {
        Path out = tmp.resolve("out");
        Path program = HostileProgram.write(tmp.resolve("p.json"), name, "x", name);
        CliRunner r = CliRunner.run("run", program.toString(), "--random", "1", "--trace", "--out", out.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        Path file = out.resolve(SafeNames.encode(name) + ".npy");
        assertThat(file).isRegularFile();
        JsonNode index = new ObjectMapper().readTree(out.resolve("tensors.json").toFile());
        assertThat(index.get("format").asText()).isEqualTo("stagecheck-inputs");
        assertThat(index.get("tensors").get(name).asText()).isEqualTo(file.getFileName().toString());
        assertThat(out.resolve("trace/00002_" + SafeNames.encode(name) + ".out0.npy")).isRegularFile();
        JsonNode trace = new ObjectMapper().readTree(out.resolve("trace/index.json").toFile());
        assertThat(trace.get("stages").get(2).get("id").asText()).isEqualTo(name);
        try (Stream<Path> s = Files.walk(tmp)) {
            assertThat(s.filter(p -> !p.startsWith(out) && !p.equals(tmp) && !p.equals(program))).isEmpty();
        }
    }

    @Test
    void aModelNameThatIsAPathIsRefusedByAuthor() throws IOException {
        for (String name : List.of("../../x", "/abs", "a\0b", "a\nb", "..")) {
            Path spec = tmp.resolve("m.json");
            Files.writeString(spec, new ObjectMapper().writeValueAsString(java.util.Map.ofEntries(
                    java.util.Map.entry("name", name), java.util.Map.entry("vocab", 64), java.util.Map.entry("hidden", 32),
                    java.util.Map.entry("layers", 1), java.util.Map.entry("heads", 2), java.util.Map.entry("kvHeads", 1),
                    java.util.Map.entry("headDim", 8), java.util.Map.entry("ffn", 64), java.util.Map.entry("ropeTheta", 10000),
                    java.util.Map.entry("normEps", 1e-5), java.util.Map.entry("seed", 1))));
            CliRunner r = CliRunner.run("author", "--model", spec.toString(), "--cut", "decode", "--ctx", "4", "--out", tmp.resolve("o").toString());
            assertThat(r.exit()).as(name).isEqualTo(2);
            assertThat(r.err()).contains("the model name");
            assertThat(tmp.resolve("o")).doesNotExist();
        }
    }

    @Test
    void aSymbolicLinkLeavingTheInputsDirectoryIsRefusedNamingTheLink() throws IOException {
        Path outside = tmp.resolve("outside");
        Files.createDirectories(outside);
        Npy.write(outside.resolve("x.npy"), Tensor.zeros(DType.F32, Shape.of(4, 8)));
        Npy.write(outside.resolve("bias.npy"), Tensor.zeros(DType.F32, Shape.of(1, 8)));
        Path in = tmp.resolve("in");
        Files.createDirectories(in);
        Files.createSymbolicLink(in.resolve("x.npy"), outside.resolve("x.npy"));
        Npy.write(in.resolve("bias.npy"), Tensor.zeros(DType.F32, Shape.of(1, 8)));
        CliRunner r = CliRunner.run("run", "../examples/elementwise-chain.json", "--inputs", in.toString(), "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(in.resolve("x.npy") + " leads to").contains("outside the --inputs directory");

        // a linked directory on the way, through the manifest
        Path in2 = tmp.resolve("in2");
        Files.createDirectories(in2);
        Files.createSymbolicLink(in2.resolve("w"), outside);
        Files.writeString(in2.resolve("inputs.json"), "{\"format\":\"stagecheck-inputs\",\"version\":1,\"tensors\":{\"x\":\"w/x.npy\",\"bias\":\"w/bias.npy\"}}");
        r = CliRunner.run("run", "../examples/elementwise-chain.json", "--inputs", in2.toString(), "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains(in2.resolve("w") + " leads to");

        // a link that stays inside is fine
        Path in3 = tmp.resolve("in3");
        Files.createDirectories(in3.resolve("real"));
        Npy.write(in3.resolve("real/x.npy"), Tensor.zeros(DType.F32, Shape.of(4, 8)));
        Files.createSymbolicLink(in3.resolve("x.npy"), in3.resolve("real/x.npy"));
        Npy.write(in3.resolve("bias.npy"), Tensor.zeros(DType.F32, Shape.of(1, 8)));
        r = CliRunner.run("run", "../examples/elementwise-chain.json", "--inputs", in3.toString(), "--out", tmp.resolve("o").toString());
        assertThat(r.exit()).as(r.err()).isZero();
    }

    @Test
    void aSymbolicLinkInsideOutIsNeverWrittenThrough() throws IOException {
        Path victim = tmp.resolve("victim.txt");
        Files.writeString(victim, "keep me");
        Path out = tmp.resolve("out");
        Files.createDirectories(out);
        Files.createSymbolicLink(out.resolve("y.npy"), victim);
        // no earlier run wrote that link: OUT is not a run's output to replace, and is refused
        CliRunner r = CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "1", "--out", out.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("holds files an earlier stagecheck run did not write (y.npy)");
        assertThat(Files.readString(victim)).isEqualTo("keep me");
        assertThat(Files.isSymbolicLink(out.resolve("y.npy"))).isTrue();
        // a run's own OUT with a trace directory that is a link out of it is refused before the run too
        Files.delete(out.resolve("y.npy"));
        assertThat(CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "1", "--out", out.toString()).exit()).isZero();
        Files.createSymbolicLink(out.resolve("trace"), tmp);
        r = CliRunner.run("run", "../examples/elementwise-chain.json", "--random", "1", "--trace", "--out", out.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("(trace)");
        assertThat(Files.readString(victim)).isEqualTo("keep me");
        assertThat(Files.isSymbolicLink(out.resolve("trace"))).isTrue();
    }
}
