package org.stagecheck.author.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.Family;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.author.synth.SynthFamily;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.safetensors.SafetensorsCheckpoint;
import org.stagecheck.tensor.safetensors.SafetensorsWriter;

/** What a model directory must hold: every tensor the config needs, nothing it would not use, one dtype. */
class HfModelTest {
    @TempDir
    Path dir;

    private static final SyntheticModel TIED = SyntheticModel.builder(SynthFamily.LLAMA).vocab(24).hidden(16).layers(1).heads(2)
            .kvHeads(1).headDim(8).ffn(20).tieWordEmbeddings(true).dtype(DType.BF16).seed(3).build();

    @Test
    void aGeneratedCheckpointOpensWithItsFamilyAndDtype() throws Exception {
        SyntheticCheckpoint.write(dir, TIED);
        ModelSpec spec = HfModel.open(dir);
        assertThat(spec.arch().family()).isEqualTo(Family.LLAMA);
        assertThat(spec.arch().tiedEmbeddings()).isTrue();
        assertThat(spec.checkpoint().dtype()).isEqualTo(DType.BF16);
    }

    @Test
    void aTiedCheckpointMayStoreItsHeadTwiceButNotADifferentOne() throws Exception {
        SyntheticCheckpoint.write(dir, TIED);
        rewrite(t -> t.put("lm_head.weight", t.get("model.embed_tokens.weight")));
        assertThat(HfModel.open(dir).arch().tiedEmbeddings()).isTrue();
        rewrite(t -> t.put("lm_head.weight", Tensor.zeros(DType.BF16, Shape.of(24, 16))));
        assertThatThrownBy(() -> HfModel.open(dir)).isInstanceOf(ModelSpecException.class)
                .hasMessageContaining("lm_head.weight").hasMessageContaining("differs");
    }

    @Test
    void anUnusedTensorIsRefusedByName() throws Exception {
        SyntheticCheckpoint.write(dir, TIED);
        rewrite(t -> t.put("model.layers.0.self_attn.q_proj.bias", Tensor.zeros(DType.BF16, Shape.of(16))));
        assertThatThrownBy(() -> HfModel.open(dir)).isInstanceOf(ModelSpecException.class)
                .hasMessageContaining("model.layers.0.self_attn.q_proj.bias").hasMessageContaining("does not use");
    }

    @Test
    void aMissingTensorAndAWrongShapeAndMixedDtypesAreRefused() throws Exception {
        SyntheticCheckpoint.write(dir, TIED);
        rewrite(t -> t.remove("model.layers.0.mlp.up_proj.weight"));
        assertThatThrownBy(() -> HfModel.open(dir)).hasMessageContaining("lacks").hasMessageContaining("up_proj");
        SyntheticCheckpoint.write(dir, TIED);
        rewrite(t -> t.put("model.layers.0.mlp.up_proj.weight", Tensor.zeros(DType.BF16, Shape.of(16, 20))));
        assertThatThrownBy(() -> HfModel.open(dir)).hasMessageContaining("up_proj").hasMessageContaining("[20, 16]");
        SyntheticCheckpoint.write(dir, TIED);
        rewrite(t -> t.put("model.norm.weight", Tensor.zeros(DType.F32, Shape.of(16))));
        assertThatThrownBy(() -> HfModel.open(dir)).hasMessageContaining("model.norm.weight").hasMessageContaining("one dtype");
    }

    /** Reads the single-file checkpoint, edits its tensors, writes it back. */
    private void rewrite(Consumer<SequencedMap<String, Tensor>> edit) throws Exception {
        SequencedMap<String, Tensor> tensors = new LinkedHashMap<>();
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            for (String name : ck.entries().keySet()) {
                tensors.put(name, ck.read(name));
            }
        }
        edit.accept(tensors);
        SafetensorsWriter.write(dir.resolve(SafetensorsWriter.SINGLE_FILE), tensors, Map.of("format", "pt"));
    }
}
