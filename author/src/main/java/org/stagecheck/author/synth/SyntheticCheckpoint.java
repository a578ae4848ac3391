package org.stagecheck.author.synth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.io.WriterTemp;
import org.stagecheck.tensor.safetensors.SafetensorsWriter;
import org.stagecheck.tensor.safetensors.TensorSpec;

/**
 * Writes a Hugging Face model directory with random weights for tests and benchmarks:
 * {@code config.json} and {@code model.safetensors}, or shards and their index when
 * {@link SyntheticModel#maxShardBytes()} is set. Tensors are made and written one at a time, so a
 * checkpoint of gigabytes ({@link #oneBillionClass}) needs only its largest tensor in memory.
 *
 * <pre>{@code
 * SyntheticCheckpoint.write(dir, SyntheticModel.builder(SynthFamily.QWEN3).dtype(DType.BF16).seed(7).build());
 * }</pre>
 */
public final class SyntheticCheckpoint {
    public static final String CONFIG_FILE = "config.json";

    private SyntheticCheckpoint() {
    }

    /**
     * Writes {@code model} into {@code dir} (created when missing). Files already there with the
     * same names are replaced, and the other form's entry point ({@code model.safetensors} or the
     * index) is removed, so that a directory written again is one checkpoint, not two.
     */
    public static void write(Path dir, SyntheticModel model) throws IOException {
        SyntheticTensors tensors = new SyntheticTensors(model);
        Files.createDirectories(dir);
        if (model.maxShardBytes() == 0) {
            Files.deleteIfExists(dir.resolve(SafetensorsWriter.INDEX_FILE));
            SafetensorsWriter.write(dir.resolve(SafetensorsWriter.SINGLE_FILE), tensors.specs(), Map.of("format", "pt"), tensors::values);
        } else {
            Files.deleteIfExists(dir.resolve(SafetensorsWriter.SINGLE_FILE));
            SafetensorsWriter.writeSharded(dir, tensors.specs(), model.maxShardBytes(), tensors::values);
        }
        Path config = dir.resolve(CONFIG_FILE);
        try (WriterTemp tmp = WriterTemp.file(config); java.io.OutputStream out = tmp.stream()) {
            out.write(SyntheticConfig.json(model).getBytes(StandardCharsets.UTF_8));
            out.flush();
            tmp.moveTo(config);
        }
    }

    /** The config.json text {@link #write} writes for {@code model}. */
    public static String configJson(SyntheticModel model) {
        return SyntheticConfig.json(model);
    }

    /** The tensors {@link #write} writes, in file order: names, dtype and torch {@code [out, in]} shapes. */
    public static List<TensorSpec> tensors(SyntheticModel model) {
        return new SyntheticTensors(model).specs();
    }

    /** The values {@link #write} writes for the tensor {@code name} of {@code model} (the same on every call). */
    public static Tensor values(SyntheticModel model, String name) {
        SyntheticTensors tensors = new SyntheticTensors(model);
        for (TensorSpec s : tensors.specs()) {
            if (s.name().equals(name)) {
                return tensors.values(s);
            }
        }
        throw new IllegalArgumentException(name + " is not a tensor of this model");
    }

    /**
     * A Llama 3.2 1B-class model: hidden 2048, 16 layers, 32 heads, 8 KV heads, head_dim 64, ffn
     * 8192, vocab 128256, bf16, rope theta 500000 with llama3 scaling, tied embeddings; about 1.24
     * billion parameters, 2.5 GB in one {@code model.safetensors}.
     */
    public static SyntheticModel oneBillionClass(long seed) {
        return SyntheticModel.builder(SynthFamily.LLAMA).vocab(128256).hidden(2048).layers(16).heads(32).kvHeads(8).headDim(64).ffn(8192)
                .ropeTheta(500_000.0).rmsNormEps(1e-5).tieWordEmbeddings(true).ropeScaling(Llama3RopeScaling.llama32())
                .maxPositionEmbeddings(131072).dtype(DType.BF16).seed(seed).build();
    }
}
