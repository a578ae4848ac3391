package org.stagecheck.author.laws;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * How the laws run a cut: author it (cached per cut and chip count), pass it through the
 * compiler under test (cached), bind its weights and the inputs it declares, run it on the
 * backend. A fault or a missing binding is a {@link RunFailed}, which fails the law.
 */
final class CutRunner {
    private final ModelSpec spec;
    private final AuthorOptions options;
    private final CutCompiler compiler;
    private final Backend backend;
    private final Map<String, AuthorOutcome.Authored> authored = new HashMap<>();
    private final Map<String, Program> compiled = new HashMap<>();
    private final Map<String, Map<String, Tensor>> loaded = new HashMap<>();

    CutRunner(ModelSpec spec, AuthorOptions options, CutCompiler compiler, Backend backend) {
        this.spec = spec;
        this.options = options;
        this.compiler = compiler;
        this.backend = backend;
    }

    /** Runs the whole-step cut; returns its outputs and state tensors. */
    Map<String, Tensor> runWhole(Cut cut, Map<String, Tensor> inputs, Map<String, Long> params) throws RunFailed {
        RunResult r = run(cut, 1, inputs, params);
        return outputsAndState(authored(cut, 1).program(), r);
    }

    /** Runs embed, each layer, head of the same step family, chaining h_out to h_in and carrying the caches. */
    Map<String, Tensor> runComposed(Cut whole, Map<String, Tensor> inputs, Map<String, Long> params) throws RunFailed {
        Map<String, Tensor> avail = new LinkedHashMap<>(inputs);
        Map<String, Tensor> out = new LinkedHashMap<>();
        RunResult embed = run(embedOf(whole), 1, avail, params);
        avail.put("h_in", embed.tensor("h_out"));
        for (int l = 0; l < spec.layers(); l++) {
            Cut layer = layerOf(whole, l);
            RunResult r = run(layer, 1, avail, params);
            avail.put("h_in", r.tensor("h_out"));
            Map<String, Tensor> state = outputsAndState(authored(layer, 1).program(), r);
            state.remove("h_out");
            avail.putAll(state);
            out.putAll(state);
        }
        RunResult head = run(headOf(whole), 1, avail, params);
        out.put("logits", head.tensor("logits"));
        out.put("next_token", head.tensor("next_token"));
        return out;
    }

    static Cut embedOf(Cut whole) {
        return partOf(whole, Cut.Part.EMBED);
    }

    static Cut layerOf(Cut whole, int l) {
        return partOf(whole, new Cut.Part.Layer(l));
    }

    static Cut headOf(Cut whole) {
        return partOf(whole, Cut.Part.HEAD);
    }

    /** Part {@code part} of a whole step; the composition law decomposes whole steps only. */
    private static Cut partOf(Cut whole, Cut.Part part) {
        return switch (whole.part()) {
            case Cut.Part.Whole _ -> whole.withPart(part);
            case Cut.Part.Embed _, Cut.Part.Layer _, Cut.Part.Head _ ->
                    throw new IllegalArgumentException(whole.cliName() + " is a part of a step, not a whole step");
        };
    }

    /**
     * Runs {@code cut} (authored over {@code tp} chips, then compiled) with its weights and the
     * subset of {@code available} and {@code params} the program declares.
     */
    RunResult run(Cut cut, int tp, Map<String, Tensor> available, Map<String, Long> params) throws RunFailed {
        AuthorOutcome.Authored a = authored(cut, tp);
        String key = cut + "@" + tp;
        Program program = compiled.get(key);
        if (program == null) {
            try {
                program = compiler.compile(cut, a.program());
            } catch (RuntimeException e) {
                throw new RunFailed("the compiler under test threw on " + cut.cliName() + ": " + e);
            }
            if (program == null) {
                throw new RunFailed("the compiler under test returned no program for " + cut.cliName());
            }
            compiled.put(key, program);
        }
        Map<String, Tensor> bound = new LinkedHashMap<>();
        for (TensorDecl t : program.tensors()) {
            if (t.role().isBoundBeforeRun()) {
                Tensor v = available.containsKey(t.name()) ? available.get(t.name()) : weights(cut, tp).get(t.name());
                if (v == null) {
                    throw new RunFailed(cut.cliName() + ": no value for bound tensor '" + t.name() + "'");
                }
                bound.put(t.name(), v);
            }
        }
        Map<String, Long> ps = new LinkedHashMap<>();
        for (Param p : program.params()) {
            Long v = params.get(p.name());
            if (v == null) {
                throw new RunFailed(cut.cliName() + ": no value for parameter '" + p.name() + "'");
            }
            ps.put(p.name(), v);
        }
        RunResult r = backend.runChecked(program, bound, ps, false);
        if (!r.ok()) {
            throw new RunFailed(cut.cliName() + (tp > 1 ? " (tp " + tp + ")" : "") + " faulted: " + r.faults().getFirst().render());
        }
        return r;
    }

    /** The weights of {@code cut}'s program over {@code tp} chips, a checkpoint's read once and kept. */
    Map<String, Tensor> weights(Cut cut, int tp) throws RunFailed {
        String key = cut + "@" + tp;
        Map<String, Tensor> w = loaded.get(key);
        if (w == null) {
            try {
                w = authored(cut, tp).loadedWeights();
            } catch (java.io.UncheckedIOException e) {
                throw new RunFailed(cut.cliName() + ": " + e.getCause().getMessage());
            }
            loaded.put(key, w);
        }
        return w;
    }

    AuthorOutcome.Authored authored(Cut cut, int tp) throws RunFailed {
        String key = cut + "@" + tp;
        AuthorOutcome.Authored a = authored.get(key);
        if (a == null) {
            switch (Author.author(spec, cut, options.withTp(tp))) {
                case AuthorOutcome.Authored ok -> a = ok;
                case AuthorOutcome.Refused no -> throw new RunFailed(cut.cliName() + " is refused: " + no.reason() + ": " + no.message());
            }
            authored.put(key, a);
        }
        return a;
    }

    static Map<String, Tensor> outputsAndState(Program program, RunResult r) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (TensorDecl t : program.tensors()) {
            switch (t.role()) {
                case OUTPUT, STATE -> out.put(t.name(), r.tensor(t.name()));
                case INPUT, WEIGHT, SCRATCH -> { }
            }
        }
        return out;
    }

    /** The KV cache tensors ({@code kv_*}) of a run's outputs and state. */
    static Map<String, Tensor> caches(Map<String, Tensor> m) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        m.forEach((k, v) -> {
            if (k.startsWith("kv_")) {
                out.put(k, v);
            }
        });
        return out;
    }
}
