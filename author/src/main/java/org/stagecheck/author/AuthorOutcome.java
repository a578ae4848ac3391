package org.stagecheck.author;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.tensor.inputs.Inputs;
import org.stagecheck.tensor.inputs.InputsDir;
import org.stagecheck.tensor.inputs.InputsException;
import org.stagecheck.tensor.inputs.InputsManifest;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;

/** What {@link Author#author} gives: the authored cut, or the reason it was refused. */
public sealed interface AuthorOutcome {

    /**
     * An authored cut (brief, "Cuts of a model").
     *
     * @param program     the stage program
     * @param certificate the shards of the split (null when tp == 1)
     * @param weights     every WEIGHT tensor of the program, by its name in the program
     * @param inputs      sample values of every INPUT and STATE tensor: token ids, positions,
     *                    {@code h_in}, zero KV caches
     * @param params      sample parameters, e.g. {@code pos = 0}
     * @param model       the model's hyperparameters, written as {@code model.json} (null: not known)
     * @param checkpoint  the weights referenced in a checkpoint rather than held in {@code weights}
     *                    (null for generated weights); {@link #loadedWeights()} reads them
     */
    record Authored(Program program, Certificate certificate, Map<String, Tensor> weights,
                    Map<String, Tensor> inputs, Map<String, Long> params, ModelSpec model,
                    CheckpointRefs checkpoint) implements AuthorOutcome {
        public Authored {
            Objects.requireNonNull(program, "program");
            weights = Collections.unmodifiableMap(new LinkedHashMap<>(weights));
            inputs = Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
            params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        }

        /** Generated weights, all held. */
        public Authored(Program program, Certificate certificate, Map<String, Tensor> weights,
                        Map<String, Tensor> inputs, Map<String, Long> params, ModelSpec model) {
            this(program, certificate, weights, inputs, params, model, null);
        }

        /** Without a model: no {@code model.json} is written. */
        public Authored(Program program, Certificate certificate, Map<String, Tensor> weights,
                        Map<String, Tensor> inputs, Map<String, Long> params) {
            this(program, certificate, weights, inputs, params, null, null);
        }

        /** The number of WEIGHT tensors, held or referenced. */
        public int weightCount() {
            return weights.size() + (checkpoint == null ? 0 : checkpoint.tensors().size());
        }

        /**
         * Every WEIGHT tensor: those held, and those the checkpoint references read from its
         * files (bit for bit, viewed and sliced as referenced). Reads the checkpoint each call.
         *
         * @throws UncheckedIOException when a referenced file cannot be read as it was at authoring
         */
        public Map<String, Tensor> loadedWeights() {
            if (checkpoint == null) {
                return weights;
            }
            Map<String, Tensor> all = new LinkedHashMap<>();
            try {
                Map<String, Tensor> read = Inputs.fromCheckpoint(InputsDir.of("checkpoint", Path.of(checkpoint.dir())),
                        new InputsManifest(Map.of(), Map.of(), checkpoint), program, Set.of());
                for (org.stagecheck.spec.ir.TensorDecl t : program.tensors()) {
                    Tensor v = weights.containsKey(t.name()) ? weights.get(t.name()) : read.get(t.name());
                    if (v != null) {
                        all.put(t.name(), v);
                    }
                }
            } catch (InputsException e) {
                throw new UncheckedIOException(new IOException(e.getMessage(), e));
            }
            return all;
        }

        /** Weights (loaded) and inputs together: everything to bind for a run. */
        public Map<String, Tensor> bound() {
            Map<String, Tensor> all = new LinkedHashMap<>(loadedWeights());
            all.putAll(inputs);
            return all;
        }

        /**
         * The weight manifest: each weight's file relative to the output directory,
         * {@code weights/<tensor>.npy}. The program text does not name these files.
         */
        public Map<String, String> weightManifest() {
            Map<String, String> m = new LinkedHashMap<>();
            AuthoredWriter.weightFiles(this).forEach((n, f) -> m.put(n, AuthoredWriter.WEIGHTS + "/" + f));
            return m;
        }

        /**
         * Writes {@code dir/program.json} (canonical, ProgramCodec), {@code dir/certificate.json}
         * (when split), {@code dir/model.json}, {@code dir/weights/<file>.npy},
         * {@code dir/inputs/<file>.npy} and {@code dir/inputs.json} (docs/author.md, "Output
         * directory"; file names from tensor names through {@code SafeNames}). Everything is
         * written into {@code .<dir>.<random>.stagecheck-tmp} beside {@code dir}, this writer's
         * own (what killed writers left there is removed first), and moved into place; a
         * {@code dir} that exists and is not empty, or that a concurrent writer fills first, is
         * refused with an IOException.
         */
        public void writeTo(Path dir) throws IOException {
            AuthoredWriter.write(this, dir, WriteProgress.NONE);
        }

        /** {@link #writeTo(Path)}, reporting each tensor file written. */
        public void writeTo(Path dir, WriteProgress progress) throws IOException {
            AuthoredWriter.write(this, dir, progress);
        }
    }

    /** Told after each tensor file an authored directory gets: for progress on long authoring. */
    @FunctionalInterface
    interface WriteProgress {
        WriteProgress NONE = (done, total, bytes) -> { };

        void wrote(int done, int total, long bytes);
    }

    /** A refused combination and a one-sentence reason. */
    record Refused(RefusalReason reason, String message) implements AuthorOutcome {
        public Refused {
            Objects.requireNonNull(reason, "reason");
            Objects.requireNonNull(message, "message");
        }
    }
}
