package org.stagecheck.author;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The parsing behind {@link Cut#fromOptions}: which options each cut kind takes. */
final class CutOptions {
    private CutOptions() {
    }

    static final List<String> NAMES = List.of("decode", "prefill", "batch", "forward", "forward-layer",
            "forward-head", "decode-embed", "decode-layer", "decode-head", "batch-embed", "batch-layer",
            "batch-head", "prefill-layer", "prefill-head");

    static Cut.CutOrRefusal parse(String name, Integer ctx, Integer rows, Integer layer) {
        if (name == null || !NAMES.contains(name)) {
            return new Cut.CutOrRefusal.Refused(RefusalReason.UNKNOWN_CUT,
                    "unknown cut '" + name + "'; expected one of " + String.join(", ", NAMES));
        }
        Set<String> wanted = switch (name) {
            case "decode" -> Set.of("ctx");
            case "prefill", "batch" -> Set.of("rows", "ctx");
            case "forward", "forward-head", "decode-embed", "decode-head" -> Set.of();
            case "forward-layer" -> Set.of("layer");
            case "decode-layer" -> Set.of("layer", "ctx");
            case "batch-embed", "batch-head", "prefill-head" -> Set.of("rows");
            case "batch-layer", "prefill-layer" -> Set.of("layer", "rows", "ctx");
            default -> throw new AssertionError(name); // unreachable: NAMES was checked above
        };
        List<String> problems = new ArrayList<>();
        check(problems, name, "ctx", ctx, wanted, 1);
        check(problems, name, "rows", rows, wanted, 1);
        check(problems, name, "layer", layer, wanted, 0);
        if (!problems.isEmpty()) {
            return new Cut.CutOrRefusal.Refused(RefusalReason.BAD_OPTION, String.join("; ", problems));
        }
        Cut cut = switch (name) {
            case "decode" -> new Cut.Decode(ctx);
            case "prefill" -> new Cut.Prefill(rows, ctx);
            case "batch" -> new Cut.Batch(rows, ctx);
            case "forward" -> new Cut.Forward();
            case "forward-layer" -> new Cut.ForwardLayer(layer);
            case "forward-head" -> new Cut.ForwardHead();
            case "decode-embed" -> new Cut.DecodeEmbed();
            case "decode-layer" -> new Cut.DecodeLayer(layer, ctx);
            case "decode-head" -> new Cut.DecodeHead();
            case "batch-embed" -> new Cut.BatchEmbed(rows);
            case "batch-layer" -> new Cut.BatchLayer(layer, rows, ctx);
            case "batch-head" -> new Cut.BatchHead(rows);
            case "prefill-layer" -> new Cut.PrefillLayer(layer, rows, ctx);
            case "prefill-head" -> new Cut.PrefillHead(rows);
            default -> throw new AssertionError(name);
        };
        return new Cut.CutOrRefusal.Ok(cut);
    }

    private static void check(List<String> problems, String cut, String option, Integer value, Set<String> wanted,
                              int min) {
        if (wanted.contains(option) && value == null) {
            problems.add("cut " + cut + " needs --" + option);
        } else if (!wanted.contains(option) && value != null) {
            problems.add("cut " + cut + " takes no --" + option);
        } else if (value != null && value < min) {
            problems.add("--" + option + " must be at least " + min + ", not " + value);
        }
    }
}
