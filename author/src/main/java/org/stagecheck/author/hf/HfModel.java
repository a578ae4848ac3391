package org.stagecheck.author.hf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.author.model.Binding;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.tensor.npy.TensorFileException;
import org.stagecheck.tensor.safetensors.SafetensorsCheckpoint;
import org.stagecheck.tensor.safetensors.SafetensorsEntry;

/**
 * A Hugging Face model directory as a stagecheck model (docs/author.md, "Checkpoints"): the
 * safetensors files give the one weight dtype, {@code config.json} the family and sizes
 * ({@link HfConfig}), and every tensor the family needs must be there with its shape; a tensor
 * stagecheck would not use is refused by name rather than ignored (it means the checkpoint is
 * not the model stagecheck would compute).
 */
public final class HfModel {
    /** Stored tensors that are derived, not weights: older Llama checkpoints carry the rotary frequencies. */
    private static final String INERT_SUFFIX = ".self_attn.rotary_emb.inv_freq";
    private static final String LM_HEAD = "lm_head.weight";
    private static final String EMBED = "model.embed_tokens.weight";

    private HfModel() {
    }

    /** Whether {@code dir} looks like a Hugging Face model directory (it has a config.json). */
    public static boolean isModelDir(Path dir) {
        return Files.isDirectory(dir) && Files.exists(dir.resolve("config.json"));
    }

    /** The model in {@code dir}, every needed tensor checked; refused with a message naming the file and the problem. */
    public static ModelSpec open(Path dir) throws ModelSpecException {
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            refuseConfigOutside(dir);
            DType dtype = weightDType(dir, ck);
            ModelSpec spec = HfConfig.read(dir, dtype);
            check(dir, spec, ck);
            return spec;
        } catch (TensorFileException e) {
            throw new ModelSpecException(e.getMessage());
        }
    }

    /** config.json, like the safetensors files, must resolve inside the directory: a link that leads out is refused, naming it. */
    private static void refuseConfigOutside(Path dir) throws ModelSpecException {
        Path file = dir.resolve("config.json");
        try {
            Path real = file.toRealPath();
            if (!real.startsWith(dir.toRealPath())) {
                throw new ModelSpecException(file + " leads to " + real + ", outside the model directory " + dir
                        + "; stagecheck reads only files inside it");
            }
        } catch (java.io.IOException e) {
            // unreadable or dangling: HfConfig.read names the file and the reason
        }
    }

    /** The one dtype of the checkpoint's tensors, f32, bf16 or f16; mixed or other dtypes are refused by name. */
    private static DType weightDType(Path dir, SafetensorsCheckpoint ck) throws ModelSpecException {
        DType found = null;
        String first = null;
        for (SafetensorsEntry e : ck.entries().values()) {
            if (e.name().endsWith(INERT_SUFFIX)) {
                continue;
            }
            DType d = e.dtype();
            if (d != DType.F32 && d != DType.BF16 && d != DType.F16) {
                throw new ModelSpecException(dir + ": tensor \"" + e.name() + "\" is " + e.dtypeName()
                        + "; stagecheck uses checkpoint weights as stored and reads F32, BF16 and F16 only");
            }
            if (found == null) {
                found = d;
                first = e.name();
            } else if (d != found) {
                throw new ModelSpecException(dir + ": tensor \"" + e.name() + "\" is " + e.dtypeName() + " but \"" + first
                        + "\" is " + found + "; stagecheck reads checkpoints whose weights share one dtype");
            }
        }
        if (found == null) {
            throw new ModelSpecException(dir + ": the checkpoint holds no tensors");
        }
        return found;
    }

    private static void check(Path dir, ModelSpec spec, SafetensorsCheckpoint ck) throws ModelSpecException, TensorFileException {
        SequencedMap<String, CheckpointNames.Source> needed = CheckpointNames.of(spec);
        Map<String, String> keys = new LinkedHashMap<>();
        needed.forEach((logical, s) -> s.keys().forEach(k -> keys.putIfAbsent(k, logical)));
        List<String> missing = new ArrayList<>();
        for (Map.Entry<String, CheckpointNames.Source> e : needed.entrySet()) {
            CheckpointNames.Source s = e.getValue();
            for (String key : s.keys()) {
                SafetensorsEntry entry = ck.entry(key);
                if (entry == null) {
                    missing.add(key);
                    continue;
                }
                List<Long> shape = entry.shape();
                if (!shape.equals(s.storedShape())) {
                    throw new ModelSpecException(dir + ": tensor \"" + key + "\" (in " + ck.fileOf(key) + ") is " + shape
                            + " but config.json makes it " + s.storedShape());
                }
            }
        }
        if (!missing.isEmpty()) {
            throw new ModelSpecException(dir + ": the checkpoint lacks " + missing.size() + " tensor(s) the " + spec.arch().family().architecture()
                    + " config needs, e.g. \"" + missing.getFirst() + "\"" + (missing.getFirst().equals("lm_head.weight")
                    ? " (a checkpoint without a head sets tie_word_embeddings: true)" : ""));
        }
        for (String name : ck.entries().keySet()) {
            if (name.equals(LM_HEAD) && spec.arch().tiedEmbeddings()) {
                tiedHeadMatches(dir, ck);
                continue;
            }
            if (!keys.containsKey(name) && !name.endsWith(INERT_SUFFIX)) {
                throw new ModelSpecException(dir + ": the checkpoint holds tensor \"" + name + "\" (in " + ck.fileOf(name)
                        + "), which the " + spec.arch().family().architecture() + " config does not use; stagecheck refuses it rather than"
                        + " compute a different model (e.g. a bias or norm the config does not declare, or experts)");
            }
        }
    }

    private static CheckpointRefs.FileFacts facts(SafetensorsCheckpoint ck, String file) throws TensorFileException {
        long modified;
        try {
            modified = Files.getLastModifiedTime(ck.dir().resolve(file)).toMillis();
        } catch (java.io.IOException e) {
            throw new TensorFileException(ck.dir().resolve(file) + ": " + e.getMessage(), e);
        }
        return new CheckpointRefs.FileFacts(ck.fileBytes(file), ck.headerSha256(file), ck.dataSha256(file), modified);
    }

    /**
     * A tied checkpoint that still stores {@code lm_head.weight}: transformers ties the head to
     * the embedding, so the stored head is accepted only when it is the embedding bit for bit (an
     * export that wrote the tied tensor twice); a different one is refused, since which of the two
     * the reference would use depends on its loading order.
     */
    private static void tiedHeadMatches(Path dir, SafetensorsCheckpoint ck) throws ModelSpecException, TensorFileException {
        SafetensorsEntry head = ck.entry(LM_HEAD);
        SafetensorsEntry embed = ck.entry(EMBED);
        if (embed == null || !head.shape().equals(embed.shape()) || !head.dtypeName().equals(embed.dtypeName())
                || !ck.read(LM_HEAD).bitEquals(ck.read(EMBED))) {
            throw new ModelSpecException(dir + ": config.json ties the head to the embedding (tie_word_embeddings: true) but the"
                    + " checkpoint's \"" + LM_HEAD + "\" (in " + ck.fileOf(LM_HEAD) + ") differs from \"" + EMBED
                    + "\"; stagecheck refuses to guess which one the model uses");
        }
    }

    /**
     * The references of {@code program}'s weights to the checkpoint: every WEIGHT tensor whose
     * logical source is a checkpoint tensor, with its file, key, view and (split) slice, and the
     * facts of every file used. Rotary tables are computed, not referenced.
     */
    public static CheckpointRefs refs(ModelSpec spec, Program program, Map<String, Binding> bindings) throws TensorFileException {
        SequencedMap<String, CheckpointNames.Source> names = CheckpointNames.of(spec);
        Path dir = spec.checkpoint().dir();
        Map<String, CheckpointRefs.TensorRef> tensors = new LinkedHashMap<>();
        Map<String, CheckpointRefs.FileFacts> files = new LinkedHashMap<>();
        try (SafetensorsCheckpoint ck = SafetensorsCheckpoint.open(dir)) {
            for (TensorDecl t : program.tensors()) {
                if (t.role() != TensorRole.WEIGHT) {
                    continue;
                }
                Binding b = bindings.get(t.name());
                CheckpointNames.Source s = b == null ? null : names.get(b.logical());
                if (s == null) {
                    continue;
                }
                for (String key : s.keys()) {
                    String file = ck.fileOf(key);
                    if (!files.containsKey(file)) {
                        files.put(file, facts(ck, file));
                    }
                }
                CheckpointRefs.Slice slice = b.isWhole() ? null : new CheckpointRefs.Slice(b.axis(), b.start(), b.end());
                String file = s.experts() > 0 ? CheckpointRefs.TensorRef.BY_INDEX : ck.fileOf(s.key());
                tensors.put(t.name(), new CheckpointRefs.TensorRef(file, s.key(), s.view(), slice, s.experts()));
            }
        }
        return new CheckpointRefs(dir.toString(), files, tensors);
    }
}
