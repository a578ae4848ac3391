package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;

/**
 * Hostile Hugging Face model directories on the command line: each is refused with exit 2 and
 * one line naming the file (and the key or tensor), no stack trace and no output directory; and
 * a checkpoint changed or gone after authoring is refused by {@code run}, never read.
 */
class CheckpointHostileInputTest {
    private static final String NORM = "model.norm.weight";
    private static final String SHARDED_VICTIM = "model-00004-of-00019.safetensors";

    @TempDir
    Path tmp;

    private Path llama(String name) throws IOException {
        Path dir = tmp.resolve(name);
        SyntheticCheckpoint.write(dir, CheckpointAuthorCommandTest.tiny(SynthFamily.LLAMA).build());
        return dir;
    }

    private Path sharded(String name) throws IOException {
        Path dir = tmp.resolve(name);
        SyntheticModel m = CheckpointAuthorCommandTest.tiny(SynthFamily.LLAMA).maxShardBytes(4096).build();
        SyntheticCheckpoint.write(dir, m);
        assertThat(dir.resolve(SHARDED_VICTIM)).exists();
        return dir;
    }

    private CliRunner author(Path model, String... extra) {
        String[] args = Stream.concat(Stream.of("author", "--model", model.toString(), "--cut", "decode", "--ctx", "8",
                "--out", tmp.resolve("out." + model.getFileName()).toString()), Arrays.stream(extra)).toArray(String[]::new);
        return CliRunner.run(args);
    }

    private CliRunner run(Path authored) {
        return CliRunner.run("run", authored.resolve("program.json").toString(), "--inputs", authored.toString(),
                "--out", tmp.resolve("run." + authored.getFileName()).toString());
    }

    /** Exit 2, one line on stderr holding every mention, no stack trace, nothing written. */
    private void refused(CliRunner r, String... mentions) {
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(2);
        String err = r.err().strip();
        assertThat(err.lines().count()).as(err).isEqualTo(1);
        assertThat(err).startsWith("error: ").contains(mentions).doesNotContain("Exception").doesNotContain("\tat ");
    }

    /** {@link #refused}, and neither the output directory nor a temporary one beside it is left. */
    private void refusedAuthor(Path model, String... mentions) throws IOException {
        refused(author(model), mentions);
        assertThat(tmp.resolve("out." + model.getFileName())).doesNotExist();
        try (Stream<Path> s = Files.list(tmp)) {
            assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".out."));
        }
    }

    private static void editConfig(Path dir, String from, String to) throws IOException {
        Path config = dir.resolve("config.json");
        String text = Files.readString(config);
        assertThat(text).contains(from);
        Files.writeString(config, text.replace(from, to));
    }

    private static RawSafetensors raw(Path dir) throws IOException {
        return RawSafetensors.read(dir.resolve("model.safetensors"));
    }

    @Test
    void anUnknownConfigKeyIsNamedWithItsFile() throws IOException {
        Path dir = llama("unknown-key");
        editConfig(dir, "\"model_type\"", "\"frobnicate\" : 3, \"model_type\"");
        refusedAuthor(dir, dir.resolve("config.json").toString(), "\"frobnicate\"");
    }

    @Test
    void anUnsupportedArchitectureIsNamed() throws IOException {
        Path dir = llama("gpt2");
        editConfig(dir, "\"LlamaForCausalLM\"", "\"GPT2LMHeadModel\"");
        refusedAuthor(dir, dir.resolve("config.json").toString(), "GPT2LMHeadModel");
    }

    @Test
    void aMissingTensorIsNamed() throws IOException {
        Path dir = llama("missing");
        RawSafetensors r = raw(dir);
        r.entries().remove(NORM);
        r.write(dir.resolve("model.safetensors"));
        refusedAuthor(dir, dir.toString(), NORM);
    }

    @Test
    void aTensorTheConfigDoesNotUseIsNamed() throws IOException {
        Path dir = llama("extra");
        RawSafetensors r = raw(dir);
        r.entries().put("model.layers.0.mlp.experts.0.weight", new RawSafetensors.Entry("F32", new long[] {2}, new byte[8]));
        r.write(dir.resolve("model.safetensors"));
        refusedAuthor(dir, dir.toString(), "model.layers.0.mlp.experts.0.weight", "does not use");
    }

    @Test
    void aTensorOfTheWrongShapeIsNamed() throws IOException {
        Path dir = llama("shape");
        RawSafetensors r = raw(dir);
        RawSafetensors.Entry norm = r.entries().get(NORM);
        r.entries().put(NORM, new RawSafetensors.Entry("F32", new long[] {16, 2}, norm.bytes()));
        r.write(dir.resolve("model.safetensors"));
        refusedAuthor(dir, dir.toString(), NORM, "[16, 2]", "[32]");
    }

    @Test
    void mixedDtypesAreRefusedNamingBothTensors() throws IOException {
        Path dir = llama("mixed");
        RawSafetensors r = raw(dir);
        r.entries().put(NORM, new RawSafetensors.Entry("BF16", new long[] {32}, new byte[64]));
        r.write(dir.resolve("model.safetensors"));
        refusedAuthor(dir, dir.toString(), NORM, "BF16", "model.embed_tokens.weight");
    }

    @Test
    void f64AndI64TensorsAreRefusedByName() throws IOException {
        for (String dtype : new String[] {"F64", "I64"}) {
            Path dir = llama("wide-" + dtype);
            RawSafetensors r = raw(dir);
            r.entries().put(NORM, new RawSafetensors.Entry(dtype, new long[] {32}, new byte[256]));
            r.write(dir.resolve("model.safetensors"));
            refusedAuthor(dir, dir.toString(), NORM, dtype);
        }
    }

    @Test
    void aTruncatedFileAndAHeaderLengthPastTheFileAreRefusedNamingTheFile() throws IOException {
        Path dir = llama("truncated");
        Path file = dir.resolve("model.safetensors");
        byte[] all = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(all, all.length - 100));
        refusedAuthor(dir, file.toString(), "lm_head.weight", "truncated");

        Path dir2 = llama("header-past");
        Path file2 = dir2.resolve("model.safetensors");
        byte[] bytes = Files.readAllBytes(file2);
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(0, bytes.length + 10L);
        Files.write(file2, bytes);
        refusedAuthor(dir2, file2.toString(), "header length", "past the end");
        ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putLong(0, -1L); // 2^64 - 1 read unsigned
        Files.write(file2, bytes);
        refusedAuthor(dir2, file2.toString(), "header length 18446744073709551615");
    }

    @Test
    void aShardOrConfigLeadingOutOfTheDirectoryIsRefusedNamingTheLink() throws IOException {
        Path dir = sharded("linked");
        Path outside = Files.createDirectories(tmp.resolve("elsewhere"));
        Files.move(dir.resolve(SHARDED_VICTIM), outside.resolve(SHARDED_VICTIM));
        Files.createSymbolicLink(dir.resolve(SHARDED_VICTIM), outside.resolve(SHARDED_VICTIM));
        refusedAuthor(dir, dir.resolve(SHARDED_VICTIM).toString(), "outside the model directory");

        Path dir2 = llama("linked-config");
        Files.move(dir2.resolve("config.json"), outside.resolve("config.json"));
        Files.createSymbolicLink(dir2.resolve("config.json"), outside.resolve("config.json"));
        refusedAuthor(dir2, dir2.resolve("config.json").toString(), "outside the model directory");
    }

    @Test
    void anIndexNamingAFileThatDoesNotExistIsRefusedNamingIt() throws IOException {
        Path dir = sharded("index-missing");
        Files.delete(dir.resolve(SHARDED_VICTIM));
        refusedAuthor(dir, dir.resolve(SHARDED_VICTIM).toString(), "no such file");
    }

    @Test
    void weightsOtherThanTheCheckpointsAreRefused() throws IOException {
        Path dir = llama("weights");
        refused(author(dir, "--weights", "bf16"), "--weights bf16", "f32");
        assertThat(author(dir, "--weights", "f32").exit()).isZero(); // the checkpoint's own dtype is no conflict
    }

    @Test
    void aDirectoryWithoutConfigJsonIsRefused() throws IOException {
        Path dir = llama("no-config");
        Files.delete(dir.resolve("config.json"));
        refusedAuthor(dir, dir.toString(), "config.json");
    }

    @Test
    void aCheckpointChangedSinceAuthoringIsRefusedByRun() throws IOException {
        Path dir = llama("changed");
        CliRunner a = author(dir);
        assertThat(a.exit()).as(a.err()).isZero();
        Path authored = tmp.resolve("out.changed");
        assertThat(run(authored).exit()).isZero();
        Path file = dir.resolve("model.safetensors");
        byte[] original = Files.readAllBytes(file);

        // other values of the same shapes (a checkpoint retrained and written over): same size, same header
        SyntheticCheckpoint.write(dir, CheckpointAuthorCommandTest.tiny(SynthFamily.LLAMA).seed(8).build());
        byte[] retrained = Files.readAllBytes(file);
        assertThat(retrained).hasSameSizeAs(original).isNotEqualTo(original);
        refused(run(authored), file.toString(), "changed since the program was authored");

        // another size: named as changed, not as a broken file
        byte[] longer = Arrays.copyOf(original, original.length + 8);
        Files.write(file, longer);
        refused(run(authored), file.toString(), "changed since the program was authored", (original.length + 8) + " bytes");
        Files.write(file, Arrays.copyOf(original, 1000));
        refused(run(authored), file.toString(), "changed since the program was authored");

        Files.write(file, original);
        assertThat(run(authored).exit()).isZero(); // as it was: runs again
    }

    @Test
    void aCheckpointGoneOrLinkedOutAfterAuthoringIsRefusedByRun() throws IOException {
        Path dir = sharded("gone");
        assertThat(author(dir).exit()).isZero();
        Path authored = tmp.resolve("out.gone");
        Path outside = Files.createDirectories(tmp.resolve("away"));
        Files.move(dir.resolve(SHARDED_VICTIM), outside.resolve(SHARDED_VICTIM));
        Files.createSymbolicLink(dir.resolve(SHARDED_VICTIM), outside.resolve(SHARDED_VICTIM));
        refused(run(authored), dir.resolve(SHARDED_VICTIM).toString(), "outside the model directory");
        Files.delete(dir.resolve(SHARDED_VICTIM));
        refused(run(authored), dir.resolve(SHARDED_VICTIM).toString());
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
        refused(run(authored), dir.toString(), "does not exist");
    }
}
