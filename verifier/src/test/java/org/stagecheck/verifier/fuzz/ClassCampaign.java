package org.stagecheck.verifier.fuzz;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.adversarial.CorpusCase;
import org.stagecheck.verifier.adversarial.CorpusRuns;

/**
 * The per-class campaign (docs/verifier.md, "The evaluator-judged campaign"): program {@code i}
 * is a random split of class {@code i mod 6} ({@link SplitClass}), right or with a planted bug of
 * that class; the checker, given the unsplit program as the parent, decides, and its verdict is
 * compared with the evaluator's (split against unsplit on 3 input seeds, {@value #RECHECK_SEEDS}
 * before a rejected program is called right). Deterministic in the seed.
 */
public final class ClassCampaign {
    /** One program's verdicts. */
    public record Result(long seed, ClassCase program, boolean accepted, boolean agrees, List<String> codes, String evidence) {
        public boolean unsound() {
            return accepted && !agrees;
        }

        public boolean incomplete() {
            return !accepted && agrees;
        }

        @Override
        public String toString() {
            return "seed " + seed + " " + program.splitClass() + " " + program.variant() + ": " + (accepted ? "accepted" : "rejected " + codes)
                    + ", evaluator " + evidence;
        }
    }

    /**
     * The last input seed tried before a rejected program the evaluator cannot show wrong is
     * called right: some planted bugs show only on some inputs (a chip's arg-max offset matters
     * only where that chip holds the row's maximum, a partial leaves f16's range only on some).
     */
    static final long RECHECK_SEEDS = 40;

    private ClassCampaign() {}

    /** Program {@code seed}, unchecked. */
    public static ClassCase program(long seed) {
        SplitClass[] classes = SplitClass.values();
        SplitClass k = classes[(int) Math.floorMod(seed, classes.length)];
        return k.generate(new SplittableRandom(seed * 0x9E3779B97F4A7C15L + 7));
    }

    /** The checker's report on program {@code seed}, given the unsplit parent. */
    public static VerifyReport report(long seed) {
        ClassCase c = program(seed);
        return new Verifier().verify(c.program(), c.certificate(), Parent.unsplit(c.parent()));
    }

    /** Program {@code seed}, checked and judged. */
    public static Result run(long seed) {
        ClassCase c = program(seed);
        VerifyReport report = new Verifier().verify(c.program(), c.certificate(), Parent.unsplit(c.parent()));
        CorpusCase asCase = new CorpusCase(c.splitClass() + "/" + c.variant() + "#" + seed, Path.of("campaign"), c.program(), c.certificate(), c.parent());
        CorpusRuns.Judgement j = CorpusRuns.judge(asCase, c.inputs());
        if (j.verdict() == CorpusRuns.Verdict.AGREES && !report.holds()) {
            // a rejection the first inputs do not show wrong: more inputs before calling it a completeness finding
            CorpusRuns.Inputs in = c.inputs();
            j = CorpusRuns.judge(asCase, new CorpusRuns.Inputs(in.scale(), in.lastSeed() + 1, RECHECK_SEEDS, in.relativeTolerance()));
        }
        return new Result(seed, c, report.holds(), j.verdict() == CorpusRuns.Verdict.AGREES, report.codes(), j.verdict() + " (" + j.detail() + ")");
    }

    /** Programs {@code from} to {@code from + count - 1}, tallied per class and variant. */
    public static Tally run(long from, int count) {
        Tally t = new Tally();
        for (long s = from; s < from + count; s++) {
            t.add(run(s));
        }
        return t;
    }

    /** Counts per class and variant: {accepted and agrees, accepted and wrong, rejected and agrees, rejected and wrong}. */
    public static final class Tally {
        private final Map<SplitClass, Map<String, int[]>> counts = new TreeMap<>();
        private final Map<String, TreeSet<String>> codes = new TreeMap<>();
        private final Map<String, Boolean> planted = new TreeMap<>();
        private final List<Result> unsound = new ArrayList<>();
        private final List<Result> incomplete = new ArrayList<>();
        private int total;

        void add(Result x) {
            ClassCase c = x.program();
            int[] n = counts.computeIfAbsent(c.splitClass(), k -> new TreeMap<>()).computeIfAbsent(c.variant(), k -> new int[4]);
            n[(x.accepted() ? 0 : 2) + (x.agrees() ? 0 : 1)]++;
            codes.computeIfAbsent(c.splitClass() + " " + c.variant(), k -> new TreeSet<>()).addAll(x.codes());
            planted.put(c.splitClass() + " " + c.variant(), c.planted());
            total++;
            if (x.unsound()) {
                unsound.add(x);
            }
            if (x.incomplete()) {
                incomplete.add(x);
            }
        }

        public List<Result> unsound() {
            return unsound;
        }

        public List<Result> incomplete() {
            return incomplete;
        }

        public int total() {
            return total;
        }

        /** The classes that got at least one program. */
        public Set<SplitClass> classes() {
            return counts.keySet();
        }

        /** The table of docs/verifier.md: a row per class and variant, a subtotal per class. */
        public String table() {
            StringBuilder sb = new StringBuilder(
                    "| class | variant | planted | programs | accepted, agree | accepted, WRONG | rejected, agree | rejected, wrong | codes |\n")
                    .append("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- |\n");
            int[] sum = new int[4];
            counts.forEach((k, variants) -> {
                int[] sub = new int[4];
                variants.forEach((v, n) -> {
                    sb.append(String.format(Locale.ROOT, "| %s | %s | %s | %d | %d | %d | %d | %d | %s |%n", k, v, plantedMark(k, v), n[0] + n[1] + n[2] + n[3],
                            n[0], n[1], n[2], n[3], String.join(" ", codes.get(k + " " + v))));
                    for (int i = 0; i < 4; i++) {
                        sub[i] += n[i];
                        sum[i] += n[i];
                    }
                });
                sb.append(String.format(Locale.ROOT, "| **%s** | all | | **%d** | %d | **%d** | **%d** | %d | |%n", k, sub[0] + sub[1] + sub[2] + sub[3],
                        sub[0], sub[1], sub[2], sub[3]));
            });
            sb.append(String.format(Locale.ROOT, "| **all** | | | **%d** | %d | **%d** | **%d** | %d | |%n", total, sum[0], sum[1], sum[2], sum[3]));
            int wrong = sum[1] + sum[3];
            sb.append(String.format(Locale.ROOT, "%nwrong programs accepted: %d of %d (%.4f); right programs rejected: %d of %d (%.4f)%n",
                    sum[1], wrong, sum[1] / (double) Math.max(1, wrong), sum[2], sum[0] + sum[2], sum[2] / (double) Math.max(1, sum[0] + sum[2])));
            return sb.toString();
        }

        private String plantedMark(SplitClass k, String v) {
            return planted.getOrDefault(k + " " + v, false) ? "bug" : "right";
        }
    }
}
