package org.stagecheck.verifier.algebra;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.verifier.adversarial.CorpusRuns;
import org.stagecheck.verifier.fuzz.ClassCase;
import org.stagecheck.verifier.fuzz.SplitClass;

/**
 * Random splits in narrow formats: {@code y = act(x) w} with the contraction split over the
 * chips, the output (or the partials) in bf16, f16, e4m3 or e5m2, rounded after the reduce or
 * before it. The evaluator compares within one unit in the last place of the output's format
 * (relative to the output's scale): two roundings of nearly equal sums can differ by that much,
 * so a split that rounds where the parent does is right; partials rounded where they fit the
 * format get the bound of that double rounding (below). Planted bugs narrow partials the parent
 * keeps in f32, and round partials that leave the format's finite range (f16 overflows to
 * infinity past 65504, e4m3 and e5m2 saturate at 448 and 57344) on inputs scaled to reach it.
 */
public final class NarrowFormatSplits {
    public enum Variant {
        /** f32 partials, a sum all-reduce, the sum rounded to the format (as the parent rounds its product). */
        ROUNDED_AFTER_THE_REDUCE(false),
        /** Each partial rounded to the format before the reduce, as the parent rounds the same partials. */
        ROUNDED_BEFORE_AS_THE_PARENT_DOES(false),
        /** Each partial rounded before the reduce where bounds keep it in range (tanh, e4m3 weights). */
        ROUNDED_BEFORE_WITHIN_RANGE(false),
        /** Partials rounded to the format where the parent keeps f32 throughout. */
        PARTIALS_NARROWED(true),
        /** Partials rounded to the format on inputs that take them past its range, the parent rounding only the sum. */
        PARTIALS_LEAVE_THE_RANGE(true);

        final boolean planted;

        Variant(boolean planted) {
            this.planted = planted;
        }
    }

    /** A format's name, its stored significand bits, and an input scale whose square is twice its largest finite value. */
    private record Format(String name, int significand, double pastRange) {}

    private static final Format BF16 = new Format("bf16", 7, 0);
    private static final Format F16 = new Format("f16", 10, 362);
    private static final Format E4M3 = new Format("e4m3", 3, 30);
    private static final Format E5M2 = new Format("e5m2", 2, 340);
    private static final Format[] ALL = {BF16, F16, E4M3, E5M2};

    private NarrowFormatSplits() {}

    public static ClassCase random(SplittableRandom r) {
        Variant v = Variants.pick(r, Variant.values(), x -> x.planted);
        Format f = switch (v) {
            case ROUNDED_AFTER_THE_REDUCE, ROUNDED_BEFORE_AS_THE_PARENT_DOES, PARTIALS_NARROWED -> ALL[r.nextInt(ALL.length)];
            case ROUNDED_BEFORE_WITHIN_RANGE -> new Format[] {BF16, F16, E5M2}[r.nextInt(3)];
            case PARTIALS_LEAVE_THE_RANGE -> new Format[] {F16, E4M3, E5M2}[r.nextInt(3)];
        };
        int chips = 2 + r.nextInt(3);
        // the range bug shows on an element whose partial leaves the range while the sum does not: many elements
        int rows = v == Variant.PARTIALS_LEAVE_THE_RANGE ? 3 : 1 + r.nextInt(3);
        int cols = v == Variant.PARTIALS_LEAVE_THE_RANGE ? 4 : 1 + r.nextInt(4);
        int depth = 1 + r.nextInt(3);
        boolean tanh = v == Variant.ROUNDED_BEFORE_WITHIN_RANGE || (v != Variant.PARTIALS_LEAVE_THE_RANGE && r.nextBoolean());
        String weight = v == Variant.ROUNDED_BEFORE_WITHIN_RANGE ? "e4m3" : "f32";
        boolean castInExpression = r.nextBoolean();
        String output = v == Variant.PARTIALS_NARROWED ? "f32" : f.name();
        double scale = switch (v) {
            case PARTIALS_LEAVE_THE_RANGE -> f.pastRange();
            case ROUNDED_AFTER_THE_REDUCE -> r.nextBoolean() ? 1 : Math.max(1, f.pastRange());
            case ROUNDED_BEFORE_AS_THE_PARENT_DOES, ROUNDED_BEFORE_WITHIN_RANGE, PARTIALS_NARROWED -> 1;
        };
        double ulp = Math.scalb(1.0, -f.significand());
        double tolerance = switch (v) {
            case PARTIALS_NARROWED -> CorpusRuns.Inputs.DEFAULT.relativeTolerance();
            // |a| <= 1 and |w| < 1: each partial is below depth, rounding it moves it by at most ulp/2 of that
            case ROUNDED_BEFORE_WITHIN_RANGE -> ulp * (1 + chips * depth);
            case ROUNDED_AFTER_THE_REDUCE, ROUNDED_BEFORE_AS_THE_PARENT_DOES, PARTIALS_LEAVE_THE_RANGE -> ulp;
        };
        int contraction = chips * depth;
        String act = tanh ? "tanh(in0)" : "in0";
        boolean parentRoundsPartials = v == Variant.ROUNDED_BEFORE_AS_THE_PARENT_DOES;
        boolean splitRoundsPartials = v != Variant.ROUNDED_AFTER_THE_REDUCE;

        SplitText parent = new SplitText("narrow", 1).input("x", 0, rows, contraction).input("w", weight, 0, contraction, cols)
                .generic(0, "a", new int[] {rows, contraction}, act, "x");
        if (parentRoundsPartials) {
            StringBuilder sum = new StringBuilder("in0");
            List<String> parts = new ArrayList<>();
            for (int c = 0; c < chips; c++) {
                parent.slice(0, "a" + c, "a", new int[] {0, c * depth}, rows, depth)
                        .slice(0, "w" + c, "w", new int[] {c * depth, 0}, depth, cols)
                        .matmul(0, "h" + c, "a" + c, "w" + c, false, false)
                        .generic(0, "q" + c, f.name(), new int[] {rows, cols}, "in0", "h" + c);
                parts.add("q" + c);
                if (c > 0) {
                    sum = new StringBuilder("add(" + sum + ", in" + c + ")");
                }
            }
            parent.generic(0, "h", new int[] {rows, cols}, sum.toString(), parts.toArray(String[]::new));
        } else {
            parent.matmul(0, "h", "a", "w", false, false);
        }
        parent.generic(0, "y", output, new int[] {rows, cols}, "in0", "h").output("y", 0, "y");

        SplitText s = new SplitText("narrow-split", chips);
        List<String> partials = new ArrayList<>();
        List<String> sums = new ArrayList<>();
        for (int c = 0; c < chips; c++) {
            s.input("x." + c, c, rows, depth).shard("x." + c, "x", 1, c * depth, c * depth + depth, contraction);
            s.input("w." + c, weight, c, depth, cols).shard("w." + c, "w", 0, c * depth, c * depth + depth, contraction);
            s.generic(c, "a." + c, new int[] {rows, depth}, act, "x." + c).matmul(c, "p." + c, "a." + c, "w." + c, false, false);
            String partial = "p." + c;
            if (splitRoundsPartials) {
                if (castInExpression) {
                    s.generic(c, "q." + c, new int[] {rows, cols}, f.name() + "(in0)", "p." + c);
                } else {
                    s.generic(c, "q." + c, f.name(), new int[] {rows, cols}, "in0", "p." + c);
                }
                partial = "q." + c;
            }
            partials.add(partial);
            sums.add("r." + c);
        }
        s.allReduce("reduce", "sum", "h", partials, sums);
        for (int c = 0; c < chips; c++) {
            s.generic(c, "y." + c, output, new int[] {rows, cols}, "in0", "r." + c).output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, rows, rows);
        }
        return new ClassCase(SplitClass.NARROW_FORMAT, v.name() + " " + f.name(), v.planted, s.program(), s.certificate(), parent.program(),
                new CorpusRuns.Inputs(scale, 1, 3, tolerance));
    }
}
