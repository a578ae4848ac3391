package org.stagecheck.author;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.author.hf.HfModel;
import org.stagecheck.author.model.Binding;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.npy.TensorFileException;
import org.stagecheck.author.model.CutWriter;
import org.stagecheck.author.model.Tensors;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Writes the program for a cut of a model, with its weights and sample inputs (brief, "Cuts of a
 * model"; docs/author.md). Refusals are values ({@link AuthorOutcome.Refused}), never exceptions.
 */
public final class Author {
    private Author() {
    }

    /** The program for {@code cut} of {@code spec}, or why it is refused. */
    public static AuthorOutcome author(ModelSpec spec, Cut cut, AuthorOptions options) {
        AuthorOutcome.Refused refused = refusal(spec, cut, options);
        if (refused != null) {
            return refused;
        }
        options = effective(spec, options);
        CutWriter.Written w = CutWriter.write(spec, cut, options);
        Map<String, Tensor> logical = new LinkedHashMap<>();
        CheckpointRefs refs = null;
        if (spec.fromCheckpoint()) {
            // the weights stay in the checkpoint: referenced, not copied; the rotary tables are computed
            try {
                refs = HfModel.refs(spec, w.program(), w.bindings());
            } catch (TensorFileException e) {
                return new AuthorOutcome.Refused(RefusalReason.BAD_OPTION, "cannot read the checkpoint: " + e.getMessage());
            }
            if (cut.ctx() > 0) {
                logical.putAll(Weights.rope(spec, cut.ctx()));
            }
        } else {
            logical.putAll(Weights.all(spec, cut.ctx(), options.weightDType()));
        }
        logical.putAll(SampleInputs.logical(spec, cut));
        Map<String, Tensor> weights = new LinkedHashMap<>();
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        for (TensorDecl t : w.program().tensors()) {
            if (!t.role().isBoundBeforeRun() || (refs != null && refs.tensors().containsKey(t.name()))) {
                continue;
            }
            Binding binding = w.bindings().get(t.name());
            Tensor value = Tensors.bind(binding, logical.get(binding.logical()));
            (t.role() == TensorRole.WEIGHT ? weights : inputs).put(t.name(), value);
        }
        Certificate cert = options.tp() == 1 ? null : new Certificate(w.shards(), null,
                List.of(Obligation.WELL_FORMED, Obligation.UNREDUCED_SHARD, Obligation.MULTICAST), new ProgramCodec().hash(w.program()));
        return new AuthorOutcome.Authored(w.program(), cert, weights, inputs, SampleInputs.params(w.program()), spec, refs);
    }

    /** The options a model is authored with: a checkpoint's weights keep the dtype they are stored in. */
    static AuthorOptions effective(ModelSpec spec, AuthorOptions options) {
        return spec.fromCheckpoint() ? options.withWeights(spec.checkpoint().dtype()) : options;
    }

    /**
     * The tensors to bind to {@code cut}'s program written with {@code options}, cut out of the
     * unsplit ones: {@code logical} maps the names of the unsplit program's bound tensors
     * (weights, inputs, state) to values. On one chip this is the identity on the program's bound
     * names. This is how a split program is run on the same inputs as its unsplit original.
     *
     * @throws IllegalArgumentException when a bound tensor's logical source is missing
     */
    public static Map<String, Tensor> bindSplit(ModelSpec spec, Cut cut, AuthorOptions options,
                                                Map<String, Tensor> logical) {
        options = effective(spec, options);
        CutWriter.Written w = CutWriter.write(spec, cut, options);
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (TensorDecl t : w.program().tensors()) {
            if (t.role().isBoundBeforeRun()) {
                Binding binding = w.bindings().get(t.name());
                Tensor source = logical.get(binding.logical());
                if (source == null) {
                    throw new IllegalArgumentException("no value for " + binding.logical() + ", the source of " + t.name());
                }
                out.put(t.name(), Tensors.bind(binding, source));
            }
        }
        return out;
    }

    /**
     * The split program's tensors cut from one logical tensor: for each bound tensor of
     * {@code cut}'s program (written with {@code options}) whose source is {@code logicalName},
     * its slice of {@code value}. Used to compare a split run's state shards with the unsplit state.
     */
    public static Map<String, Tensor> shardsOf(ModelSpec spec, Cut cut, AuthorOptions options, String logicalName,
                                               Tensor value) {
        options = effective(spec, options);
        CutWriter.Written w = CutWriter.write(spec, cut, options);
        Map<String, Tensor> out = new LinkedHashMap<>();
        w.bindings().forEach((name, binding) -> {
            if (binding.logical().equals(logicalName)) {
                out.put(name, Tensors.bind(binding, value));
            }
        });
        return out;
    }

    /** Whether {@code cut} may be split over chips: a decode step, a batch, or one layer of either. */
    public static boolean splittable(Cut cut) {
        boolean step = switch (cut.step()) {
            case Cut.Step.Decode _, Cut.Step.Batch _ -> true;
            case Cut.Step.Forward _, Cut.Step.Prefill _ -> false;
        };
        boolean part = switch (cut.part()) {
            case Cut.Part.Whole _, Cut.Part.Layer _ -> true;
            case Cut.Part.Embed _, Cut.Part.Head _ -> false;
        };
        return step && part;
    }

    /** The layer a layer cut runs, or 0 (always in range) for the other parts. */
    private static int layerOf(Cut cut) {
        return switch (cut.part()) {
            case Cut.Part.Layer(int layer) -> layer;
            case Cut.Part.Whole _, Cut.Part.Embed _, Cut.Part.Head _ -> 0;
        };
    }

    /** Why this combination is refused, or null when it can be written. */
    static AuthorOutcome.Refused refusal(ModelSpec spec, Cut cut, AuthorOptions options) {
        String bad = options.problem();
        if (bad != null) {
            return new AuthorOutcome.Refused(RefusalReason.BAD_OPTION, bad);
        }
        int rows = cut.rows();
        int ctx = cut.ctx();
        int layer = layerOf(cut);
        if (rows < 1 || rows > 4096) {
            return new AuthorOutcome.Refused(RefusalReason.BAD_OPTION, "rows must be in [1, 4096], not " + rows);
        }
        if (cut.usesCache() && (ctx < 1 || ctx > 65536)) {
            return new AuthorOutcome.Refused(RefusalReason.BAD_OPTION, "ctx must be in [1, 65536], not " + ctx);
        }
        if (cut.step() instanceof Cut.Step.Prefill && cut.usesCache() && rows > ctx) {
            return new AuthorOutcome.Refused(RefusalReason.BAD_OPTION,
                    "a prefill chunk of " + rows + " rows does not fit a cache of " + ctx + " positions");
        }
        if ((long) rows * Math.max(ctx, 1) * spec.kvWidth() > Integer.MAX_VALUE) {
            return new AuthorOutcome.Refused(RefusalReason.BAD_OPTION, "the KV cache would exceed 2^31 elements");
        }
        if (layer < 0 || layer >= spec.layers()) {
            return new AuthorOutcome.Refused(RefusalReason.LAYER_OUT_OF_RANGE,
                    "layer " + layer + " is outside [0, " + spec.layers() + ") of model " + spec.name());
        }
        int tp = options.tp();
        if (tp > 1) {
            if (!splittable(cut)) {
                return new AuthorOutcome.Refused(RefusalReason.CUT_NOT_SPLITTABLE, "cut " + cut.cliName()
                        + " is not split over chips; only decode, batch, decode-layer and batch-layer are");
            }
            if (spec.heads() % tp != 0 || spec.kvHeads() % tp != 0 || spec.ffn() % tp != 0) {
                return new AuthorOutcome.Refused(RefusalReason.WIDTH_NOT_DIVISIBLE, "tp " + tp
                        + " does not divide the model's heads (" + spec.heads() + "), kvHeads (" + spec.kvHeads()
                        + ") and ffn (" + spec.ffn() + ")");
            }
            Moe moe = spec.arch().moe();
            if (moe.present()) {
                if (options.denseExperts()) {
                    return new AuthorOutcome.Refused(RefusalReason.BAD_OPTION, "the dense lowering of the experts is written on one chip only");
                }
                int split = options.expertSplit() == ExpertSplit.EXPERT_PARALLEL ? moe.experts() : moe.expertFfn();
                String what = options.expertSplit() == ExpertSplit.EXPERT_PARALLEL ? "experts" : "expert width";
                if (split % tp != 0 || moe.sharedFfn() % tp != 0) {
                    return new AuthorOutcome.Refused(RefusalReason.WIDTH_NOT_DIVISIBLE, "tp " + tp + " does not divide the model's "
                            + what + " (" + split + ")" + (moe.shared() ? " and shared expert width (" + moe.sharedFfn() + ")" : ""));
                }
            }
        }
        return null;
    }
}
