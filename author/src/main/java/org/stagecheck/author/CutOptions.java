package org.stagecheck.author;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** The parsing behind {@link Cut#fromOptions}: which options each cut kind takes. */
final class CutOptions {
    private CutOptions() {
    }

    /**
     * One cut of each kind, in the order the CLI lists them; the values are placeholders: a
     * kind's name is its {@link Cut#cliName()} and its options are the keys of {@link Cut#options()}.
     */
    private static final List<Cut> KINDS = List.of(Cut.decode(1), Cut.prefill(1, 1), Cut.batch(1, 1), Cut.forward(),
            Cut.forwardLayer(0), Cut.forwardHead(), Cut.decodeEmbed(), Cut.decodeLayer(0, 1), Cut.decodeHead(),
            Cut.batchEmbed(1), Cut.batchLayer(0, 1, 1), Cut.batchHead(1), Cut.prefillLayer(0, 1, 1), Cut.prefillHead(1));

    static final List<String> NAMES = KINDS.stream().map(Cut::cliName).toList();

    static Cut.CutOrRefusal parse(String name, Integer ctx, Integer rows, Integer layer) {
        Cut kind = KINDS.stream().filter(k -> k.cliName().equals(name)).findFirst().orElse(null);
        if (kind == null) {
            return new Cut.CutOrRefusal.Refused(RefusalReason.UNKNOWN_CUT,
                    "unknown cut '" + name + "'; expected one of " + String.join(", ", NAMES));
        }
        Set<String> wanted = kind.options().keySet();
        List<String> problems = new ArrayList<>();
        check(problems, name, "ctx", ctx, wanted, 1);
        check(problems, name, "rows", rows, wanted, 1);
        check(problems, name, "layer", layer, wanted, 0);
        if (!problems.isEmpty()) {
            return new Cut.CutOrRefusal.Refused(RefusalReason.BAD_OPTION, String.join("; ", problems));
        }
        // every wanted option is present and no other: absent ones are unused by the kind
        int c = ctx == null ? 0 : ctx;
        int r = rows == null ? 1 : rows;
        Cut.Step step = switch (kind.step()) {
            case Cut.Step.Forward f -> f;
            case Cut.Step.Decode _ -> new Cut.Step.Decode(c);
            case Cut.Step.Prefill _ -> new Cut.Step.Prefill(r, c);
            case Cut.Step.Batch _ -> new Cut.Step.Batch(r, c);
        };
        Cut.Part part = switch (kind.part()) {
            case Cut.Part.Layer _ -> new Cut.Part.Layer(layer);
            case Cut.Part.Whole _, Cut.Part.Embed _, Cut.Part.Head _ -> kind.part();
        };
        return new Cut.CutOrRefusal.Ok(new Cut(step, part));
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
