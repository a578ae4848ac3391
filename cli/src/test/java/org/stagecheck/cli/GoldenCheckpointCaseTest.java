package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.store.ManifestCodec;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.spec.json.InputsManifestCodec;

/**
 * {@code golden record --inputs DIR} of a program authored from a checkpoint (docs/golden.md,
 * "Checkpoint references"): the case holds the authored references (split slices included), not
 * copies of the weights; {@code golden check} and {@code run --inputs CASE} bind them from the
 * checkpoint; a checkpoint edited after recording is exit 2 naming its file.
 */
class GoldenCheckpointCaseTest {
    @TempDir
    Path tmp;

    private Path checkpoint;
    private Path authored;
    private Path caseDir;

    @BeforeEach
    void authorAndRecord() throws IOException {
        checkpoint = tmp.resolve("qwen2");
        SyntheticCheckpoint.write(checkpoint, model(DType.F32));
        authored = tmp.resolve("m");
        CliRunner a = CliRunner.run("author", "--model", checkpoint.toString(), "--cut", "decode", "--ctx", "8", "--tp", "2",
                "--out", authored.toString());
        assertThat(a.exit()).as(a.out() + a.err()).isZero();
        caseDir = tmp.resolve("case");
        CliRunner r = CliRunner.run("golden", "record", program(), "--inputs", authored.toString(), "--out", caseDir.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).containsPattern("; \\d+ input\\(s\\) referenced in the checkpoint " + java.util.regex.Pattern.quote(
                checkpoint.toAbsolutePath().normalize().toString()) + ", not copied");
    }

    private static SyntheticModel model(DType dtype) {
        return SyntheticModel.builder(SynthFamily.QWEN2).vocab(40).hidden(32).layers(2).heads(4).kvHeads(2).headDim(8).ffn(48)
                .ropeTheta(10000.0).rmsNormEps(1e-6).maxPositionEmbeddings(64).dtype(dtype).seed(3).build();
    }

    private String program() {
        return authored.resolve("program.json").toString();
    }

    @Test
    void theCaseHoldsTheAuthoredReferencesAndNoCopyOfTheWeights() throws Exception {
        CheckpointRefs authoredRefs = new InputsManifestCodec().read(authored.resolve("inputs.json")).checkpoint();
        Manifest m = ManifestCodec.read(caseDir.resolve(Manifest.FILE_NAME));
        assertThat(m.checkpoint()).isEqualTo(authoredRefs);
        assertThat(m.checkpoint().tensors().values()).anyMatch(t -> t.slice() != null); // split over 2 chips: shards
        assertThat(m.inputs()).extracting(Manifest.TensorFile::tensor).doesNotContainAnyElementsOf(authoredRefs.tensors().keySet());
        Map<String, byte[]> files = allFiles(caseDir);
        assertThat(files.keySet()).filteredOn(f -> f.startsWith("inputs/")).hasSize(m.inputs().size());
        long caseInputBytes = files.entrySet().stream().filter(e -> e.getKey().startsWith("inputs/")).mapToLong(e -> e.getValue().length).sum();
        assertThat(caseInputBytes).isLessThan(Files.size(checkpoint.resolve("model.safetensors")) / 4);
    }

    @Test
    void goldenCheckPassesAndTheCaseServesAsInputs() {
        CliRunner check = CliRunner.run("golden", "check", caseDir.toString(), "--policy", "exact");
        assertThat(check.exit()).as(check.out() + check.err()).isZero();
        CliRunner fromAuthored = CliRunner.run("run", program(), "--inputs", authored.toString(), "--out", tmp.resolve("a").toString());
        CliRunner fromCase = CliRunner.run("run", program(), "--inputs", caseDir.toString(), "--out", tmp.resolve("b").toString());
        assertThat(fromAuthored.exit()).as(fromAuthored.err()).isZero();
        assertThat(fromCase.exit()).as(fromCase.err()).isZero();
        Map<String, byte[]> a = allFiles(tmp.resolve("a"));
        Map<String, byte[]> b = allFiles(tmp.resolve("b"));
        assertThat(a).containsKey("logits.npy");
        assertThat(b).containsOnlyKeys(a.keySet());
        a.forEach((name, bytes) -> assertThat(b.get(name)).as(name).isEqualTo(bytes));
    }

    @Test
    void recordingFromTheCaseRecordsTheSameCase() {
        Path again = tmp.resolve("again");
        CliRunner r = CliRunner.run("golden", "record", program(), "--inputs", caseDir.toString(), "--out", again.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        Map<String, byte[]> first = allFiles(caseDir);
        Map<String, byte[]> second = allFiles(again);
        assertThat(second).containsOnlyKeys(first.keySet());
        first.forEach((name, bytes) -> assertThat(second.get(name)).as(name).isEqualTo(bytes));
    }

    @Test
    void aCheckpointEditedAfterRecordingIsExitTwoNamingTheFile() throws IOException {
        SyntheticCheckpoint.write(checkpoint, model(DType.BF16));
        String file = checkpoint.toAbsolutePath().normalize().resolve("model.safetensors").toString();
        CliRunner check = CliRunner.run("golden", "check", caseDir.toString());
        assertThat(check.exit()).isEqualTo(2);
        assertThat(check.out() + check.err()).contains("checkpoint file " + file + " changed since");
        CliRunner run = CliRunner.run("run", program(), "--inputs", caseDir.toString(), "--out", tmp.resolve("c").toString());
        assertThat(run.exit()).isEqualTo(2);
        assertThat(run.err()).contains("checkpoint file " + file + " changed since");
    }

    /** Every regular file under {@code dir}, by its path relative to it ('/'-separated). */
    private static Map<String, byte[]> allFiles(Path dir) {
        Map<String, byte[]> out = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                out.put(dir.relativize(p).toString().replace('\\', '/'), Files.readAllBytes(p));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }
}
