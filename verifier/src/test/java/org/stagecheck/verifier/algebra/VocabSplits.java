package org.stagecheck.verifier.algebra;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.verifier.adversarial.CorpusRuns;
import org.stagecheck.verifier.fuzz.ClassCase;
import org.stagecheck.verifier.fuzz.SplitClass;

/**
 * Random vocabulary splits: logits {@code h w} sharded by vocabulary, chip c holding columns
 * {@code [c*width, (c+1)*width)} of w. Either a greedy arg-max (the pattern of
 * {@link VocabParallelArgmaxTest}: local maximum and arg-max, the offset added, kept where the
 * local maximum is the all-reduced one and a sentinel elsewhere, a min all-reduce), or a softmax
 * whose probabilities stay sharded by vocabulary (a max all-reduce of the local maxima, a sum
 * all-reduce of {@code exp(l - M)}).
 */
public final class VocabSplits {
    public enum Variant {
        ARGMAX(false),
        /** One chip (not the first) leaves its offset out. */
        ARGMAX_OFFSET_MISSING(true),
        /** One chip adds its offset plus one. */
        ARGMAX_OFFSET_OFF_BY_ONE(true),
        /** The candidates are combined by a max all-reduce. */
        ARGMAX_CANDIDATES_BY_MAX(true),
        /** The sentinel is position 0 of the vocabulary. */
        ARGMAX_SENTINEL_INSIDE_VOCABULARY(true),
        SOFTMAX(false),
        /** Each chip exponentiates against its local maximum instead of the all-reduced one. */
        SOFTMAX_LOCAL_MAX(true),
        /** One chip divides by its local sum instead of the all-reduced one. */
        SOFTMAX_LOCAL_SUM(true);

        final boolean planted;

        Variant(boolean planted) {
            this.planted = planted;
        }
    }

    private VocabSplits() {}

    public static ClassCase random(SplittableRandom r) {
        Variant v = Variants.pick(r, Variant.values(), x -> x.planted);
        int chips = 2 + r.nextInt(3);
        int rows = 1 + r.nextInt(3);
        int hidden = 2 + r.nextInt(3);
        int width = 2 + r.nextInt(3);
        int vocab = chips * width;
        int odd = 1 + r.nextInt(chips - 1);
        boolean argmax = v.ordinal() < Variant.SOFTMAX.ordinal();
        SplitText parent = new SplitText(argmax ? "greedy" : "softmax", 1).input("h", 0, rows, hidden).input("w", 0, hidden, vocab)
                .matmul(0, "logits", "h", "w", false, false);
        if (argmax) {
            parent.reduce(0, "idx", "argmax", 1, "logits").output("idx", 0, "idx");
        } else {
            parent.reduce(0, "m", "max", 1, "logits").generic(0, "e", new int[] {rows, vocab}, "exp(sub(in0, in1))", "logits", "m")
                    .reduce(0, "l", "sum", 1, "e").generic(0, "p", new int[] {rows, vocab}, "div(in0, in1)", "e", "l").output("p", 0, "p");
        }
        SplitText s = new SplitText("vocab-parallel", chips);
        for (int c = 0; c < chips; c++) {
            s.input("h." + c, c, rows, hidden).shard("h." + c, "h", 0, 0, rows, rows);
            s.input("w." + c, c, hidden, width).shard("w." + c, "w", 1, c * width, c * width + width, vocab);
            s.matmul(c, "logits." + c, "h." + c, "w." + c, false, false).reduce(c, "lmax." + c, "max", 1, "logits." + c);
        }
        if (argmax) {
            argmax(s, v, chips, rows, width, vocab, odd, r);
        } else {
            softmax(s, v, chips, rows, width, odd);
        }
        return new ClassCase(SplitClass.VOCABULARY, v.name(), v.planted, s.program(), s.certificate(), parent.program(), CorpusRuns.Inputs.DEFAULT);
    }

    private static List<String> named(String prefix, int chips) {
        List<String> out = new ArrayList<>();
        for (int c = 0; c < chips; c++) {
            out.add(prefix + c);
        }
        return out;
    }

    private static void argmax(SplitText s, Variant v, int chips, int rows, int width, int vocab, int odd, SplittableRandom r) {
        int[] row = {rows, 1};
        boolean ge = r.nextBoolean();
        int sentinel = v == Variant.ARGMAX_SENTINEL_INSIDE_VOCABULARY ? 0 : vocab + r.nextInt(1000);
        for (int c = 0; c < chips; c++) {
            int offset = c * width;
            if (c == odd && v == Variant.ARGMAX_OFFSET_MISSING) {
                offset = 0;
            } else if (c == odd && v == Variant.ARGMAX_OFFSET_OFF_BY_ONE) {
                offset += 1;
            }
            s.reduce(c, "lidx." + c, "argmax", 1, "logits." + c).generic(c, "gidx." + c, "i32", row, "add(in0, " + offset + ")", "lidx." + c);
        }
        s.allReduce("global_max", "max", "lmax", named("lmax.", chips), named("M.", chips));
        for (int c = 0; c < chips; c++) {
            s.generic(c, "cand." + c, "i32", row, "select(" + (ge ? "ge" : "eq") + "(in0, in1), in2, " + sentinel + ")", "lmax." + c, "M." + c, "gidx." + c);
        }
        s.allReduce("global_argmax", v == Variant.ARGMAX_CANDIDATES_BY_MAX ? "max" : "min", "idx", named("cand.", chips), named("idx.", chips));
        for (int c = 0; c < chips; c++) {
            s.output("idx." + c, c, "idx." + c).shard("idx." + c, "idx", 0, 0, rows, rows);
        }
    }

    private static void softmax(SplitText s, Variant v, int chips, int rows, int width, int odd) {
        int vocab = chips * width;
        s.allReduce("global_max", "max", "m", named("lmax.", chips), named("M.", chips));
        for (int c = 0; c < chips; c++) {
            String against = v == Variant.SOFTMAX_LOCAL_MAX ? "lmax." + c : "M." + c;
            s.generic(c, "e." + c, new int[] {rows, width}, "exp(sub(in0, in1))", "logits." + c, against).reduce(c, "l." + c, "sum", 1, "e." + c);
        }
        s.allReduce("global_sum", "sum", "l", named("l.", chips), named("L.", chips));
        for (int c = 0; c < chips; c++) {
            String divisor = v == Variant.SOFTMAX_LOCAL_SUM && c == odd ? "l." + c : "L." + c;
            s.generic(c, "p." + c, new int[] {rows, width}, "div(in0, in1)", "e." + c, divisor).output("p." + c, c, "p." + c)
                    .shard("p." + c, "p", 1, c * width, c * width + width, vocab);
        }
    }
}
