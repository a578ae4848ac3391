package org.stagecheck.verifier.algebra;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.verifier.adversarial.CorpusRuns;
import org.stagecheck.verifier.fuzz.ClassCase;
import org.stagecheck.verifier.fuzz.SplitClass;

/**
 * Random flash-decoding splits (the pattern of {@link SequenceParallelAttentionTest}, with random
 * sizes): {@code rows} query rows attend over {@code chips * width} positions; chip c holds
 * positions {@code [c*width, (c+1)*width)} of k and v, takes its local maximum, a max all-reduce
 * gives the global one, each chip rescales its sum and weighted values by {@code exp(m_c - M)},
 * two sum all-reduces complete them and {@code y = O / L}. The planted bugs are the ones a
 * compiler writing this combine makes.
 */
public final class FlashDecodingSplits {
    /** How the split is written: two right ways, the rest planted bugs. */
    public enum Variant {
        RESCALED(false),
        RESCALE_INLINED(false),
        /** The local sums are all-reduced without their rescale. */
        SUMS_NOT_RESCALED(true),
        /** The weighted values are all-reduced without their rescale. */
        VALUES_NOT_RESCALED(true),
        /** The rescale is {@code exp(M - m_c)}. */
        INVERSE_RESCALE(true),
        /** The rescaled sums are combined by a max all-reduce. */
        SUMS_BY_MAX(true),
        /** One chip's window of positions starts one position early (and its certificate says so). */
        SHIFTED_POSITIONS(true),
        /** One chip divides by its own rescaled sum instead of the all-reduced one. */
        LOCAL_SUM_IN_DIVIDE(true),
        /** One chip leaves the softmax scale out of its scores. */
        SCALE_MISSING_ON_ONE_CHIP(true);

        final boolean planted;

        Variant(boolean planted) {
            this.planted = planted;
        }
    }

    private FlashDecodingSplits() {}

    private static String scaled(String expr, String scale) {
        return scale == null ? expr : "mul(" + expr + ", " + scale + ")";
    }

    public static ClassCase random(SplittableRandom r) {
        Variant v = Variants.pick(r, Variant.values(), x -> x.planted);
        int chips = 2 + r.nextInt(3);
        int rows = 1 + r.nextInt(3);
        int width = 1 + r.nextInt(3);
        int dim = 2 + r.nextInt(3);
        String[] scales = {null, "0.5", "0.25"};
        String scale = v == Variant.SCALE_MISSING_ON_ONE_CHIP ? "0.5" : scales[r.nextInt(scales.length)];
        boolean normalizeLast = r.nextBoolean();
        int odd = 1 + r.nextInt(chips - 1);
        SplitText parent = parent(rows, chips * width, dim, scale, normalizeLast);
        SplitText split = split(v, chips, rows, width, dim, scale, odd);
        return new ClassCase(SplitClass.SEQUENCE_PARALLEL_ATTENTION, v.name(), v.planted, split.program(), split.certificate(), parent.program(),
                CorpusRuns.Inputs.DEFAULT);
    }

    /** The parent: softmax over every position, normalized before the product with v (or after it). */
    static SplitText parent(int rows, int positions, int dim, String scale, boolean normalizeLast) {
        SplitText u = new SplitText("attention", 1).input("q", 0, rows, dim).input("k", 0, positions, dim).input("v", 0, positions, dim);
        u.matmul(0, "s", "q", "k", false, true).reduce(0, "m", "max", 1, "s");
        u.generic(0, "p", new int[] {rows, positions}, "exp(" + scaled("sub(in0, in1)", scale) + ")", "s", "m").reduce(0, "l", "sum", 1, "p");
        if (normalizeLast) {
            u.matmul(0, "o", "p", "v", false, false).generic(0, "y", new int[] {rows, dim}, "div(in0, in1)", "o", "l");
        } else {
            u.generic(0, "a", new int[] {rows, positions}, "div(in0, in1)", "p", "l").matmul(0, "y", "a", "v", false, false);
        }
        return u.output("y", 0, "y");
    }

    static SplitText split(Variant v, int chips, int rows, int width, int dim, String scale, int odd) {
        int positions = chips * width;
        SplitText s = new SplitText("flash-decoding", chips);
        List<String> m = new ArrayList<>();
        List<String> gm = new ArrayList<>();
        for (int c = 0; c < chips; c++) {
            int start = v == Variant.SHIFTED_POSITIONS && c == odd ? c * width - 1 : c * width;
            String chipScale = v == Variant.SCALE_MISSING_ON_ONE_CHIP && c == odd ? null : scale;
            s.input("q." + c, c, rows, dim).shard("q." + c, "q", 0, 0, rows, rows);
            s.input("k." + c, c, width, dim).shard("k." + c, "k", 0, start, start + width, positions);
            s.input("v." + c, c, width, dim).shard("v." + c, "v", 0, start, start + width, positions);
            s.matmul(c, "s." + c, "q." + c, "k." + c, false, true).reduce(c, "m." + c, "max", 1, "s." + c);
            s.generic(c, "p." + c, new int[] {rows, width}, "exp(" + scaled("sub(in0, in1)", chipScale) + ")", "s." + c, "m." + c);
            s.reduce(c, "l." + c, "sum", 1, "p." + c).matmul(c, "o." + c, "p." + c, "v." + c, false, false);
            m.add("m." + c);
            gm.add("M." + c);
        }
        s.allReduce("global_max", "max", "m", m, gm);
        List<String> ls = new ArrayList<>();
        List<String> os = new ArrayList<>();
        String rescale = v == Variant.INVERSE_RESCALE ? "sub(in1, in0)" : "sub(in0, in1)";
        for (int c = 0; c < chips; c++) {
            String chipScale = v == Variant.SCALE_MISSING_ON_ONE_CHIP && c == odd ? null : scale;
            String alpha = "exp(" + scaled(rescale, chipScale) + ")";
            String onSums = v == Variant.SUMS_NOT_RESCALED ? "in0" : "mul(in0, in1)";
            String onValues = v == Variant.VALUES_NOT_RESCALED ? "in0" : "mul(in0, in1)";
            if (v == Variant.RESCALE_INLINED) {
                String shifted = alpha.replace("in1", "in2").replace("in0", "in1");
                s.generic(c, "ls." + c, new int[] {rows, 1}, "mul(in0, " + shifted + ")", "l." + c, "m." + c, "M." + c);
                s.generic(c, "os." + c, new int[] {rows, dim}, "mul(in0, " + shifted + ")", "o." + c, "m." + c, "M." + c);
            } else {
                s.generic(c, "alpha." + c, new int[] {rows, 1}, alpha, "m." + c, "M." + c);
                s.generic(c, "ls." + c, new int[] {rows, 1}, onSums, "l." + c, "alpha." + c);
                s.generic(c, "os." + c, new int[] {rows, dim}, onValues, "o." + c, "alpha." + c);
            }
            ls.add("ls." + c);
            os.add("os." + c);
        }
        List<String> l = new ArrayList<>();
        List<String> o = new ArrayList<>();
        for (int c = 0; c < chips; c++) {
            l.add("L." + c);
            o.add("O." + c);
        }
        s.allReduce("sum_l", v == Variant.SUMS_BY_MAX ? "max" : "sum", "l", ls, l).allReduce("sum_o", "sum", "o", os, o);
        for (int c = 0; c < chips; c++) {
            String divisor = v == Variant.LOCAL_SUM_IN_DIVIDE && c == odd ? "ls." + c : "L." + c;
            s.generic(c, "y." + c, new int[] {rows, dim}, "div(in0, in1)", "O." + c, divisor).output("y." + c, c, "y." + c)
                    .shard("y." + c, "y", 0, 0, rows, rows);
        }
        return s;
    }
}
