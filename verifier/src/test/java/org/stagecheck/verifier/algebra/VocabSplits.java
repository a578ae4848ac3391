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
        SOFTMAX_LOCAL_SUM(true),
        /**
         * An embedding table sharded by vocabulary: each chip gathers rows at its local ids
         * (clamped into its shard), zeroes those outside its shard, and a sum all-reduce joins them.
         */
        EMBEDDING_GATHER(false),
        /** One chip (not the first) gathers at the global ids, its offset left out. */
        EMBEDDING_OFFSET_MISSING(true),
        /** One chip keeps the rows it gathered for ids outside its shard. */
        EMBEDDING_MASK_MISSING(true);

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
        if (v.ordinal() >= Variant.EMBEDDING_GATHER.ordinal()) {
            return embedding(v, chips, 1 + r.nextInt(4), hidden, width, odd);
        }
        boolean argmax = v.ordinal() < Variant.SOFTMAX.ordinal();
        SplitText parent = argmax ? greedy(rows, hidden, vocab) : softmaxParent(rows, hidden, vocab);
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

    /**
     * Token ids computed from a float input {@code u} in {@code [-1, 1)} (so the evaluator's random
     * inputs give ids all over the vocabulary), as a column {@code [tokens, 1]} and as the rank-1
     * index buffer a gather takes.
     */
    private static void ids(SplitText s, int chip, String suffix, int tokens, int vocab) {
        s.input("u" + suffix, chip, tokens, 1);
        // (u + 1) * (vocab/2 - 0.01) is below vocab - 0.02: truncated, an id in [0, vocab)
        s.generic(chip, "idcol" + suffix, "i32", new int[] {tokens, 1}, "i32(mul(add(in0, 1.0), " + (vocab / 2.0 - 0.01) + "))", "u" + suffix);
        s.reshape(chip, "ids" + suffix, new int[] {tokens}, "idcol" + suffix);
    }

    private static ClassCase embedding(Variant v, int chips, int tokens, int dim, int width, int odd) {
        int vocab = chips * width;
        SplitText parent = new SplitText("embedding", 1).table("table", "f32", 0, vocab, dim);
        ids(parent, 0, "", tokens, vocab);
        parent.gather(0, "rows", "table", "ids").generic(0, "y", new int[] {tokens, dim}, "in0", "rows").output("y", 0, "y");
        SplitText s = new SplitText("vocab-sharded-embedding", chips);
        for (int c = 0; c < chips; c++) {
            String at = "." + c;
            int offset = v == Variant.EMBEDDING_OFFSET_MISSING && c == odd ? 0 : c * width;
            s.table("table" + at, "f32", c, width, dim).shard("table" + at, "table", 0, c * width, c * width + width, vocab);
            ids(s, c, at, tokens, vocab);
            s.shard("u" + at, "u", 0, 0, tokens, tokens);
            String inShard = "and(ge(sub(in0, " + offset + "), 0), lt(sub(in0, " + offset + "), " + width + "))";
            s.generic(c, "local" + at, "i32", new int[] {tokens}, "select(" + inShard + ", sub(in0, " + offset + "), 0)", "ids" + at);
            s.gather(c, "rows" + at, "table" + at, "local" + at);
            String kept = v == Variant.EMBEDDING_MASK_MISSING && c == odd ? "in0" : "select(" + inShard.replace("in0", "in1") + ", in0, 0.0)";
            s.generic(c, "part" + at, new int[] {tokens, dim}, kept, "rows" + at, "idcol" + at);
        }
        s.allReduce("join", "sum", "y", named("part.", chips), named("y.", chips));
        for (int c = 0; c < chips; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, tokens, tokens);
        }
        return new ClassCase(SplitClass.VOCABULARY, v.name(), v.planted, s.program(), s.certificate(), parent.program(), CorpusRuns.Inputs.DEFAULT);
    }

    /** The greedy parent: the arg-max over the vocabulary of {@code logits = h w}. */
    static SplitText greedy(int rows, int hidden, int vocab) {
        return new SplitText("greedy", 1).input("h", 0, rows, hidden).input("w", 0, hidden, vocab).matmul(0, "logits", "h", "w", false, false)
                .reduce(0, "idx", "argmax", 1, "logits").output("idx", 0, "idx");
    }

    /** The softmax parent: {@code softmax(h w)} over the vocabulary. */
    static SplitText softmaxParent(int rows, int hidden, int vocab) {
        return new SplitText("softmax", 1).input("h", 0, rows, hidden).input("w", 0, hidden, vocab).matmul(0, "logits", "h", "w", false, false)
                .reduce(0, "m", "max", 1, "logits").generic(0, "e", new int[] {rows, vocab}, "exp(sub(in0, in1))", "logits", "m")
                .reduce(0, "l", "sum", 1, "e").generic(0, "p", new int[] {rows, vocab}, "div(in0, in1)", "e", "l").output("p", 0, "p");
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
