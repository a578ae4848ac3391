package org.stagecheck.author.hf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.stagecheck.tensor.safetensors.SafetensorsCheckpoint;

/**
 * A stacked expert view finds each expert through the checkpoint's index, but reads only the
 * files recorded when the program was authored: an index edited afterwards to send an expert to
 * another file is refused, not read.
 */
class StackedExpertsIndexTest {
    @Test
    void anExpertMovedToAnUnrecordedFileIsRefused(@TempDir Path dir) throws Exception {
        SyntheticCheckpoint.write(dir, SyntheticModel.builder(SynthFamily.QWEN3_MOE).vocab(40).hidden(32).layers(2).heads(4)
                .kvHeads(2).headDim(8).ffn(48).numExperts(4).expertsPerToken(2).moeIntermediate(16).seed(3).maxShardBytes(4096).build());
        ModelSpec spec = ModelSpec.resolve(dir.toString());
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(spec, Cut.decode(8), AuthorOptions.single());
        assertThat(a.loadedWeights()).containsKey("experts_gate.l0");
        String key = "model.layers.0.mlp.experts.1.gate_proj.weight";
        String file;
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            file = ck.fileOf(key);
        }
        Files.copy(dir.resolve(file), dir.resolve("evil.safetensors"));
        Path index = dir.resolve("model.safetensors.index.json");
        // every tensor of that shard now in a file of the same contents under another name, the shard gone
        Files.writeString(index, Files.readString(index).replaceAll("\"" + java.util.regex.Pattern.quote(file) + "\"", "\"evil.safetensors\""));
        Files.delete(dir.resolve(file));
        assertThat(Files.readString(index)).contains("evil.safetensors");
        assertThatThrownBy(a::loadedWeights).isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining("not one of the files recorded");
    }
}
