package org.stagecheck.author;

import java.util.LinkedHashMap;
import java.util.Objects;
import java.util.SequencedMap;
import java.util.StringJoiner;

/**
 * Which part of a model's computation a program covers (brief, "Cuts of a model"): a
 * {@link Step} (a forward with no history, a decode step, a prefill chunk, a batch of sequences)
 * and a {@link Part} of it (the whole step, its embedding, one layer, its head). Every cut's
 * program reads and writes DRAM tensors with fixed names, so the parts of a step chain: an embed
 * or layer cut writes {@code h_out}, a layer or head cut reads {@code h_in}; whole steps and heads
 * write {@code logits} (f32 {@code [rows, vocab]}) and {@code next_token} (i32 {@code [rows]}).
 * See docs/author.md for each cut's tensors and parameters.
 *
 * <p>The fourteen cuts have names (the factories below, and {@link #name()}) and CLI spellings
 * ({@link #cliName()}): {@code Decode{ctx}}, {@code Prefill{rows,ctx}}, {@code Batch{rows,ctx}},
 * {@code Forward}, {@code ForwardLayer{layer}}, {@code ForwardHead}, {@code DecodeEmbed},
 * {@code DecodeLayer{layer,ctx}}, {@code DecodeHead}, {@code BatchEmbed{rows}},
 * {@code BatchLayer{layer,rows,ctx}}, {@code BatchHead{rows}}, {@code PrefillLayer{layer,rows,ctx}},
 * {@code PrefillHead{rows}}.
 *
 * <p>A cut is canonical: the constructor drops what its part does not use, so that equal
 * programs come from equal cuts. The embedding and the head read no cache (their step's
 * {@code ctx} becomes 0), and the embedding is the same lookup for every step of as many rows:
 * a forward's or a decode step's embedding is {@code DecodeEmbed}, a prefill chunk's is
 * {@code BatchEmbed{rows}}. Values are not range-checked here; {@link Author#author} refuses
 * what it cannot write (a cache of no positions, a layer the model does not have).
 *
 * @param step the step the program belongs to, with its rows and cache length
 * @param part which part of that step the program computes
 */
public record Cut(Step step, Part part) {

    /**
     * The kind of step, which fixes how rows, positions and the KV cache work: one token with no
     * history; a decode step at parameter {@code pos}; a prefill chunk at positions
     * {@code pos..pos+rows-1} of one sequence; a batch of independent sequences, each with its
     * position in the i32 input {@code positions}. {@code ctx} is the KV cache length, 0 for a
     * part that reads no cache.
     */
    public sealed interface Step {
        /** Rows of the activations: tokens of a prefill chunk, sequences of a batch, else 1. */
        int rows();

        /** Positions of the KV cache (per sequence), 0 when the cut reads no cache. */
        int ctx();

        /** One token's forward with no history (position 0, attention over itself alone). */
        record Forward() implements Step {
            @Override
            public int rows() {
                return 1;
            }

            @Override
            public int ctx() {
                return 0;
            }
        }

        /** One decode step over a cache of {@code ctx} positions, at parameter {@code pos}. */
        record Decode(int ctx) implements Step {
            @Override
            public int rows() {
                return 1;
            }
        }

        /** A prefill chunk of {@code rows} tokens of one sequence at positions {@code pos..pos+rows-1}. */
        record Prefill(int rows, int ctx) implements Step {}

        /** One decode step of {@code rows} sequences at once, each with its own position and cache. */
        record Batch(int rows, int ctx) implements Step {}
    }

    /** Which part of a step a cut's program computes. */
    public sealed interface Part {
        /** The whole step: embedding, every layer, head. */
        Part WHOLE = new Whole();
        /** The embedding lookup alone. */
        Part EMBED = new Embed();
        /** The final norm, head projection and arg-max alone. */
        Part HEAD = new Head();

        record Whole() implements Part {}

        record Embed() implements Part {}

        /** Layer {@code layer} alone, reading {@code h_in} and writing {@code h_out}. */
        record Layer(int layer) implements Part {}

        record Head() implements Part {}
    }

    public Cut {
        Objects.requireNonNull(step, "step");
        Objects.requireNonNull(part, "part");
        step = canonical(step, part);
    }

    /** The step as far as {@code part} uses it (see the class comment). */
    private static Step canonical(Step step, Part part) {
        return switch (part) {
            case Part.Whole _, Part.Layer _ -> step;
            case Part.Embed _ -> switch (step) {
                case Step.Forward _, Step.Decode _ -> new Step.Decode(0);
                case Step.Prefill p -> new Step.Batch(p.rows(), 0);
                case Step.Batch b -> new Step.Batch(b.rows(), 0);
            };
            case Part.Head _ -> switch (step) {
                case Step.Forward f -> f;
                case Step.Decode _ -> new Step.Decode(0);
                case Step.Prefill p -> new Step.Prefill(p.rows(), 0);
                case Step.Batch b -> new Step.Batch(b.rows(), 0);
            };
        };
    }

    // ------------------------------------------------------------------ the fourteen cuts

    /** One decode step over a cache of {@code ctx} positions, at parameter {@code pos}. */
    public static Cut decode(int ctx) {
        return new Cut(new Step.Decode(ctx), Part.WHOLE);
    }

    /** A prefill chunk of {@code rows} tokens of one sequence at positions {@code pos..pos+rows-1}. */
    public static Cut prefill(int rows, int ctx) {
        return new Cut(new Step.Prefill(rows, ctx), Part.WHOLE);
    }

    /** One decode step of {@code rows} sequences at once, each with its own position and cache. */
    public static Cut batch(int rows, int ctx) {
        return new Cut(new Step.Batch(rows, ctx), Part.WHOLE);
    }

    /** One token's forward with no history (position 0, attention over itself alone). */
    public static Cut forward() {
        return new Cut(new Step.Forward(), Part.WHOLE);
    }

    /** Layer {@code layer} of the forward alone. */
    public static Cut forwardLayer(int layer) {
        return new Cut(new Step.Forward(), new Part.Layer(layer));
    }

    /** The forward's final norm, head and arg-max alone. */
    public static Cut forwardHead() {
        return new Cut(new Step.Forward(), Part.HEAD);
    }

    /** A decode step's (or a forward's) embedding lookup alone. */
    public static Cut decodeEmbed() {
        return new Cut(new Step.Decode(0), Part.EMBED);
    }

    /** Layer {@code layer} of a decode step alone. */
    public static Cut decodeLayer(int layer, int ctx) {
        return new Cut(new Step.Decode(ctx), new Part.Layer(layer));
    }

    /** A decode step's final norm, head and arg-max alone. */
    public static Cut decodeHead() {
        return new Cut(new Step.Decode(0), Part.HEAD);
    }

    /** The embedding lookups of {@code rows} stacked rows alone (a batch's or a prefill chunk's). */
    public static Cut batchEmbed(int rows) {
        return new Cut(new Step.Batch(rows, 0), Part.EMBED);
    }

    /** Layer {@code layer} of a batch of {@code rows} sequences alone. */
    public static Cut batchLayer(int layer, int rows, int ctx) {
        return new Cut(new Step.Batch(rows, ctx), new Part.Layer(layer));
    }

    /** A batch's head alone: every sequence's next token. */
    public static Cut batchHead(int rows) {
        return new Cut(new Step.Batch(rows, 0), Part.HEAD);
    }

    /** Layer {@code layer} of a prefill chunk of {@code rows} tokens alone. */
    public static Cut prefillLayer(int layer, int rows, int ctx) {
        return new Cut(new Step.Prefill(rows, ctx), new Part.Layer(layer));
    }

    /** A prefill chunk's head alone, read off its last row. */
    public static Cut prefillHead(int rows) {
        return new Cut(new Step.Prefill(rows, 0), Part.HEAD);
    }

    // ------------------------------------------------------------------ derived facts

    /** Part {@code other} of this cut's step, e.g. the embedding of a whole decode step. */
    public Cut withPart(Part other) {
        return new Cut(step, other);
    }

    /** Rows of the activations (see {@link Step#rows()}). */
    public int rows() {
        return step.rows();
    }

    /** KV cache positions per sequence, 0 when the cut reads no cache. */
    public int ctx() {
        return step.ctx();
    }

    /** Whether the cut attends over a KV cache: a whole step or a layer, of any step but a forward. */
    public boolean usesCache() {
        boolean layers = switch (part) {
            case Part.Whole _, Part.Layer _ -> true;
            case Part.Embed _, Part.Head _ -> false;
        };
        return layers && !(step instanceof Step.Forward);
    }

    /**
     * The cut's options by their CLI names, in the order {@code layer, rows, ctx}: {@code layer}
     * for a layer, {@code rows} for a prefill or batch step, {@code ctx} when the cut reads a
     * cache. These are the options {@code author --cut} takes for this cut's kind.
     */
    public SequencedMap<String, Integer> options() {
        SequencedMap<String, Integer> out = new LinkedHashMap<>();
        switch (part) {
            case Part.Layer(int layer) -> out.put("layer", layer);
            case Part.Whole _, Part.Embed _, Part.Head _ -> { }
        }
        switch (step) {
            case Step.Prefill p -> out.put("rows", p.rows());
            case Step.Batch b -> out.put("rows", b.rows());
            case Step.Forward _, Step.Decode _ -> { }
        }
        if (usesCache()) {
            out.put("ctx", step.ctx());
        }
        return out;
    }

    /** The CLI spelling of this cut's kind, e.g. {@code decode-layer}. */
    public String cliName() {
        String stepName = switch (step) {
            case Step.Forward _ -> "forward";
            case Step.Decode _ -> "decode";
            case Step.Prefill _ -> "prefill";
            case Step.Batch _ -> "batch";
        };
        String partName = switch (part) {
            case Part.Whole _ -> "";
            case Part.Embed _ -> "-embed";
            case Part.Layer _ -> "-layer";
            case Part.Head _ -> "-head";
        };
        return stepName + partName;
    }

    /** The name of this cut's kind, e.g. {@code DecodeLayer}. */
    public String name() {
        StringBuilder sb = new StringBuilder();
        for (String word : cliName().split("-")) {
            sb.append(Character.toUpperCase(word.charAt(0))).append(word, 1, word.length());
        }
        return sb.toString();
    }

    /** The name and the options, e.g. {@code DecodeLayer{layer=1, ctx=8}} or {@code DecodeHead}. */
    @Override
    public String toString() {
        SequencedMap<String, Integer> options = options();
        if (options.isEmpty()) {
            return name();
        }
        StringJoiner j = new StringJoiner(", ", name() + "{", "}");
        options.forEach((k, v) -> j.add(k + "=" + v));
        return j.toString();
    }

    /** A cut, or why the options named none. */
    public sealed interface CutOrRefusal {
        record Ok(Cut cut) implements CutOrRefusal {}

        record Refused(RefusalReason reason, String message) implements CutOrRefusal {}
    }

    /**
     * The cut the CLI options name. Each kind takes exactly the options it has (see
     * {@link #options()}); a missing or extra option, or a value below its minimum, is a
     * {@link CutOrRefusal.Refused}, never an exception.
     */
    public static CutOrRefusal fromOptions(String name, Integer ctx, Integer rows, Integer layer) {
        return CutOptions.parse(name, ctx, rows, layer);
    }
}
