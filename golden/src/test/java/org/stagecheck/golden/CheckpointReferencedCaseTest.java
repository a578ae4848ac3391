package org.stagecheck.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;
import org.stagecheck.backend.Backends;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.store.ManifestCodec;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.tensor.inputs.Inputs;
import org.stagecheck.tensor.inputs.InputsException;

/**
 * A case recorded from a program authored from a checkpoint (docs/golden.md, "Checkpoint
 * references"): the referenced weights are recorded as their references, not copied; checking the
 * case and reading it as inputs bind them from the checkpoint again, bit for bit; a checkpoint
 * changed since recording is refused, naming the file.
 */
@Tag("slow") // writes checkpoints and records cases from them
class CheckpointReferencedCaseTest {
    @TempDir
    Path tmp;

    private Path checkpoint;
    private AuthorOutcome.Authored authored;
    private Map<String, Tensor> bound;
    private Path caseDir;

    @BeforeEach
    void recordFromAnAuthoredCheckpoint() throws Exception {
        checkpoint = tmp.resolve("llama");
        SyntheticCheckpoint.write(checkpoint, model(DType.F32));
        AuthorOutcome o = Author.author(ModelSpec.resolve(checkpoint.toString()), Cut.decode(8), AuthorOptions.single());
        assertThat(o).isInstanceOf(AuthorOutcome.Authored.class);
        authored = (AuthorOutcome.Authored) o;
        assertThat(authored.checkpoint()).isNotNull();
        bound = authored.bound();
        caseDir = tmp.resolve("case");
        Golden.record(authored.program(), bound, authored.checkpoint(), authored.params(), RecordOptions.defaults(), caseDir);
    }

    private static SyntheticModel model(DType dtype) {
        return SyntheticModel.builder(SynthFamily.LLAMA).vocab(40).hidden(32).layers(2).heads(4).kvHeads(2).headDim(8).ffn(48)
                .ropeTheta(10000.0).rmsNormEps(1e-5).maxPositionEmbeddings(64).dtype(dtype).seed(7).build();
    }

    @Test
    void theReferencedWeightsAreRecordedAsTheirReferencesNotCopied() throws Exception {
        Manifest m = ManifestCodec.read(caseDir.resolve(Manifest.FILE_NAME));
        CheckpointRefs refs = authored.checkpoint();
        assertThat(m.version()).isEqualTo(Manifest.VERSION_WITH_CHECKPOINT);
        assertThat(m.checkpoint()).isEqualTo(refs); // the authored references, absolute directory, file facts and all
        assertThat(m.checkpoint().tensors()).hasSizeGreaterThan(10);
        assertThat(m.inputs()).extracting(Manifest.TensorFile::tensor).doesNotContainAnyElementsOf(refs.tensors().keySet());
        // every other bound tensor still has its file: the tokens, the caches, the rotary tables
        Set<String> copied = new java.util.HashSet<>(bound.keySet());
        copied.removeAll(refs.tensors().keySet());
        assertThat(m.inputs()).extracting(Manifest.TensorFile::tensor).containsExactlyInAnyOrderElementsOf(copied);
        try (Stream<Path> files = Files.walk(caseDir.resolve("inputs"))) {
            assertThat(files.filter(Files::isRegularFile).count()).isEqualTo(copied.size());
        }
        String text = Files.readString(caseDir.resolve(Manifest.FILE_NAME));
        assertThat(text).contains("\"version\" : 2").contains("\"checkpoint\" : {")
                .contains("\"headerSha256\" : \"" + refs.files().get("model.safetensors").headerSha256() + "\"")
                .contains("\"view\" : \"transposed\"");
        assertThat(text.indexOf("\"checkpoint\"")).isBetween(text.indexOf("\"inputs\""), text.indexOf("\"outputs\""));
    }

    @Test
    void theCaseIsCheckedWithTheWeightsBoundFromTheCheckpointBitForBit() {
        CaseResult exact = Golden.check(caseDir, new Actuals.FromBackend(Backends.named("interp")), new Policy.Exact());
        assertThat(exact.status()).as(exact.message()).isEqualTo(CaseResult.Status.PASS);
        CaseResult recorded = Golden.check(caseDir, new Actuals.FromBackend(Backends.named("interp")));
        assertThat(recorded.status()).as(recorded.message()).isEqualTo(CaseResult.Status.PASS);
    }

    @Test
    void theCaseAsInputsAndAsRecordedGivesEveryTensorItWasRecordedWith() throws Exception {
        Inputs.Read in = GoldenInputs.read(caseDir, authored.program());
        Golden.Recorded rec = Golden.recorded(caseDir);
        for (Map<String, Tensor> read : List.of(in.bound(), rec.inputs())) {
            assertThat(read).containsOnlyKeys(bound.keySet());
            bound.forEach((name, t) -> assertThat(ReferencedInputs.sameBits(read.get(name), t)).as(name).isTrue());
        }
        assertThat(in.params()).isEqualTo(authored.params());
    }

    @Test
    void recordingAgainFromTheCaseGivesTheSameBytes() throws Exception {
        Inputs.Read in = GoldenInputs.read(caseDir, authored.program());
        var dir = org.stagecheck.tensor.inputs.InputsDir.of("inputs directory", caseDir);
        CheckpointRefs refs = GoldenInputs.referenced(dir, GoldenInputs.manifest(dir, authored.program()), authored.program(), Set.of());
        Path again = tmp.resolve("again");
        Golden.record(authored.program(), in.bound(), refs, in.params(), RecordOptions.defaults(), again);
        assertThat(Files.readAllBytes(again.resolve(Manifest.FILE_NAME))).isEqualTo(Files.readAllBytes(caseDir.resolve(Manifest.FILE_NAME)));
    }

    @Test
    void aCheckpointChangedSinceRecordingIsRefusedNamingTheFile() throws Exception {
        SyntheticCheckpoint.write(checkpoint, model(DType.BF16)); // same names and shapes, another dtype: another header and size
        String file = checkpoint.toAbsolutePath().normalize().resolve("model.safetensors").toString();
        CaseResult r = Golden.check(caseDir, new Actuals.FromBackend(Backends.named("interp")));
        assertThat(r.status()).isEqualTo(CaseResult.Status.BAD_INPUT);
        assertThat(r.message()).contains("field /checkpoint").contains("checkpoint file " + file + " changed since")
                .contains("record the case again");
        assertThatThrownBy(() -> GoldenInputs.read(caseDir, authored.program())).isInstanceOf(InputsException.class)
                .hasMessageContaining("checkpoint file " + file + " changed since");
        assertThatThrownBy(() -> Golden.recorded(caseDir)).isInstanceOf(GoldenException.class).hasMessageContaining(file);
    }

    @Test
    void aBoundValueOtherThanItsReferenceIsRefusedAndNothingIsRecorded() {
        String weight = authored.checkpoint().tensors().keySet().iterator().next();
        Map<String, Tensor> changed = new LinkedHashMap<>(bound);
        Tensor w = bound.get(weight);
        float[] v = w.toFloats();
        v[0] = v[0] + 1;
        changed.put(weight, Tensor.fromFloats(w.dtype(), w.shape(), v));
        Path out = tmp.resolve("other");
        assertThatThrownBy(() -> Golden.record(authored.program(), changed, authored.checkpoint(), authored.params(), RecordOptions.defaults(), out))
                .isInstanceOf(GoldenException.class)
                .hasMessageContaining("tensor '" + weight + "' is bound to a value other than its checkpoint reference's");
        assertThat(out).doesNotExist();
    }

    @Test
    void aRelativeCheckpointDirectoryOrAReferenceOfNoBoundTensorIsRefused() {
        CheckpointRefs refs = authored.checkpoint();
        CheckpointRefs relative = new CheckpointRefs("llama", refs.files(), refs.tensors());
        assertThatThrownBy(() -> Golden.record(authored.program(), bound, relative, authored.params(), RecordOptions.defaults(), tmp.resolve("r")))
                .isInstanceOf(GoldenException.class).hasMessageContaining("\"llama\" is relative");
        Map<String, CheckpointRefs.TensorRef> tensors = new LinkedHashMap<>(refs.tensors());
        tensors.put("logits", refs.tensors().values().iterator().next());
        CheckpointRefs ofAnOutput = new CheckpointRefs(refs.dir(), refs.files(), tensors);
        assertThatThrownBy(() -> Golden.record(authored.program(), bound, ofAnOutput, authored.params(), RecordOptions.defaults(), tmp.resolve("o")))
                .isInstanceOf(GoldenException.class).hasMessageContaining("checkpoint reference of tensor 'logits'");
    }

    @Test
    void aManifestWithReferencesItsVersionCannotHoldOrThatAlsoCopiesOneIsRefused() throws IOException {
        Path mf = caseDir.resolve(Manifest.FILE_NAME);
        String text = Files.readString(mf);
        Files.writeString(mf, text.replaceFirst("\"version\" : 2", "\"version\" : 1"));
        assertThatThrownBy(() -> ManifestCodec.read(mf)).isInstanceOf(GoldenException.class)
                .hasMessageContaining("field /checkpoint: checkpoint references need \"version\": 2");
        String weight = authored.checkpoint().tensors().keySet().iterator().next();
        Files.writeString(mf, text.replaceFirst("\"inputs\" : \\[", "\"inputs\" : [ { \"tensor\" : \"" + weight
                + "\", \"file\" : \"inputs/w.npy\", \"dtype\" : \"f32\", \"shape\" : [ 1 ] },"));
        assertThatThrownBy(() -> ManifestCodec.read(mf)).isInstanceOf(GoldenException.class)
                .hasMessageContaining("tensor '" + weight + "' is bound both from a file (/inputs/0) and from the checkpoint");
        Files.writeString(mf, text.replaceFirst("\"view\" : \"transposed\"", "\"view\" : \"sideways\""));
        assertThatThrownBy(() -> ManifestCodec.read(mf)).isInstanceOf(GoldenException.class)
                .hasMessageContaining("\"view\" is as-stored, transposed, row, transposed-stacked-rows or transposed-stacked-columns");
    }

    @Test
    void aCaseWithoutReferencesIsVersionOneWithoutACheckpointField() throws Exception {
        Path plain = tmp.resolve("plain");
        Golden.record(authored.program(), bound, null, authored.params(), RecordOptions.defaults(), plain);
        Manifest m = ManifestCodec.read(plain.resolve(Manifest.FILE_NAME));
        assertThat(m.version()).isEqualTo(Manifest.VERSION);
        assertThat(m.checkpoint()).isNull();
        assertThat(m.inputs()).hasSize(bound.size());
        assertThat(Files.readString(plain.resolve(Manifest.FILE_NAME))).contains("\"version\" : 1").doesNotContain("checkpoint");
        CaseResult r = Golden.check(plain, new Actuals.FromBackend(Backends.named("interp")), new Policy.Exact());
        assertThat(r.status()).as(r.message()).isEqualTo(CaseResult.Status.PASS);
    }
}
