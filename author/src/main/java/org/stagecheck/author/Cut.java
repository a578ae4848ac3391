package org.stagecheck.author;

/**
 * Which part of a model's computation a program covers (brief, "Cuts of a model"; seed page
 * {@code Cut}). Every cut's program reads and writes DRAM tensors with fixed names, so cuts chain:
 * an embed or layer cut writes {@code h_out}, a layer or head cut reads {@code h_in}; whole
 * steps and heads write {@code logits} (f32 {@code [rows, vocab]}) and {@code next_token}
 * (i32 {@code [rows]}). See docs/author.md for each cut's tensors and parameters.
 */
public sealed interface Cut {
    /** One decode step over a cache of {@code ctx} positions, at parameter {@code pos}. */
    record Decode(int ctx) implements Cut {}

    /** A prefill chunk of {@code rows} tokens of one sequence at positions {@code pos..pos+rows-1}. */
    record Prefill(int rows, int ctx) implements Cut {}

    /** One decode step of {@code rows} sequences at once, each with its own position and cache. */
    record Batch(int rows, int ctx) implements Cut {}

    /** One token's forward with no history (position 0, attention over itself alone). */
    record Forward() implements Cut {}

    /** Layer {@code layer} of the forward alone. */
    record ForwardLayer(int layer) implements Cut {}

    /** The forward's final norm, head and arg-max alone. */
    record ForwardHead() implements Cut {}

    /** A decode step's embedding lookup alone. */
    record DecodeEmbed() implements Cut {}

    /** Layer {@code layer} of a decode step alone. */
    record DecodeLayer(int layer, int ctx) implements Cut {}

    /** A decode step's final norm, head and arg-max alone. */
    record DecodeHead() implements Cut {}

    /** The embedding lookups of {@code rows} stacked rows alone. */
    record BatchEmbed(int rows) implements Cut {}

    /** Layer {@code layer} of a batch of {@code rows} sequences alone. */
    record BatchLayer(int layer, int rows, int ctx) implements Cut {}

    /** A batch's head alone: every sequence's next token. */
    record BatchHead(int rows) implements Cut {}

    /** Layer {@code layer} of a prefill chunk of {@code rows} tokens alone. */
    record PrefillLayer(int layer, int rows, int ctx) implements Cut {}

    /** A prefill chunk's head alone, read off its last row. */
    record PrefillHead(int rows) implements Cut {}

    /** A cut, or why the options named none. */
    sealed interface CutOrRefusal {
        record Ok(Cut cut) implements CutOrRefusal {}

        record Refused(RefusalReason reason, String message) implements CutOrRefusal {}
    }

    /** The CLI spelling of this cut's kind, e.g. {@code decode-layer}. */
    default String cliName() {
        return switch (this) {
            case Decode d -> "decode";
            case Prefill p -> "prefill";
            case Batch b -> "batch";
            case Forward f -> "forward";
            case ForwardLayer f -> "forward-layer";
            case ForwardHead f -> "forward-head";
            case DecodeEmbed d -> "decode-embed";
            case DecodeLayer d -> "decode-layer";
            case DecodeHead d -> "decode-head";
            case BatchEmbed b -> "batch-embed";
            case BatchLayer b -> "batch-layer";
            case BatchHead b -> "batch-head";
            case PrefillLayer p -> "prefill-layer";
            case PrefillHead p -> "prefill-head";
        };
    }

    /**
     * The cut the CLI options name. Each kind takes exactly the options it has fields for
     * ({@code ctx}, {@code rows}, {@code layer}); a missing or extra option, or a value below its
     * minimum, is a {@link CutOrRefusal.Refused}, never an exception.
     */
    static CutOrRefusal fromOptions(String name, Integer ctx, Integer rows, Integer layer) {
        return CutOptions.parse(name, ctx, rows, layer);
    }
}
