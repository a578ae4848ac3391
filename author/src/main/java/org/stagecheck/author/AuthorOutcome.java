package org.stagecheck.author;

import java.io.IOException;
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
     */
    record Authored(Program program, Certificate certificate, Map<String, Tensor> weights,
                    Map<String, Tensor> inputs, Map<String, Long> params, ModelSpec model) implements AuthorOutcome {
        public Authored {
            Objects.requireNonNull(program, "program");
            weights = Collections.unmodifiableMap(new LinkedHashMap<>(weights));
            inputs = Collections.unmodifiableMap(new LinkedHashMap<>(inputs));
            params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
        }

        /** Without a model: no {@code model.json} is written. */
        public Authored(Program program, Certificate certificate, Map<String, Tensor> weights,
                        Map<String, Tensor> inputs, Map<String, Long> params) {
            this(program, certificate, weights, inputs, params, null);
        }

        /** Weights and inputs together: everything to bind for a run. */
        public Map<String, Tensor> bound() {
            Map<String, Tensor> all = new LinkedHashMap<>(weights);
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
         * written into {@code .<dir>.stagecheck-tmp} beside {@code dir} (a killed write's leftover
         * there is removed first) and moved into place; a {@code dir} that exists and is not
         * empty is refused with an IOException.
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
