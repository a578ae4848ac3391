package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Sequence-parallel attention (flash-decoding; docs/verifier.md, "Monotone functions and rescaled
 * maxima"): two query rows attend over 8 key/value positions. The unsplit parent computes
 * {@code softmax(q k^T) v} at once; in the split each chip holds its positions of k and v, computes
 * its local row maximum {@code m_c}, {@code p_c = exp(s_c - m_c)}, its partial sum {@code l_c} and
 * weighted values {@code o_c}; a max all-reduce gives {@code M}, each chip rescales by
 * {@code exp(m_c - M)}, two sum all-reduces complete {@code l} and {@code o}, and {@code y = O / L}.
 * The result differs from the parent's by rounding only (a re-association, as any sum split).
 */
class SequenceParallelAttentionTest {
    private static final int ROWS = 2;
    private static final int POSITIONS = 8;
    private static final int DIM = 4;

    /** How the split is written; {@link #RIGHT} is the production pattern. */
    private record Pattern(int chips, String scoreScale, String maxPool, String rescale, boolean rescaleSums, boolean inlineRescale, int chip1Start, String sumPool) {
        Pattern chips(int n) {
            return new Pattern(n, scoreScale, maxPool, rescale, rescaleSums, inlineRescale, POSITIONS / n, sumPool);
        }

        Pattern scaled(String s) {
            return new Pattern(chips, s, maxPool, rescale, rescaleSums, inlineRescale, chip1Start, sumPool);
        }

        Pattern maxPool(String pool) {
            return new Pattern(chips, scoreScale, pool, rescale, rescaleSums, inlineRescale, chip1Start, sumPool);
        }

        Pattern rescale(String expr) {
            return new Pattern(chips, scoreScale, maxPool, expr, rescaleSums, inlineRescale, chip1Start, sumPool);
        }

        Pattern sumsNotRescaled() {
            return new Pattern(chips, scoreScale, maxPool, rescale, false, inlineRescale, chip1Start, sumPool);
        }

        Pattern inline() {
            return new Pattern(chips, scoreScale, maxPool, rescale, rescaleSums, true, chip1Start, sumPool);
        }

        Pattern sumPool(String pool) {
            return new Pattern(chips, scoreScale, maxPool, rescale, rescaleSums, inlineRescale, chip1Start, pool);
        }

        Pattern chip1At(int start) {
            return new Pattern(chips, scoreScale, maxPool, rescale, rescaleSums, inlineRescale, start, sumPool);
        }
    }

    private static final Pattern RIGHT = new Pattern(2, null, "max", "sub(in0, in1)", true, false, POSITIONS / 2, "sum");

    private static String scaled(String expr, String scale) {
        return scale == null ? expr : "mul(" + expr + ", " + scale + ")";
    }

    /** The parent: softmax over every position, normalized before the product with v (or after, {@code normalizeLast}). */
    private static SplitText parent(String scale, boolean normalizeLast) {
        return FlashDecodingSplits.parent(ROWS, POSITIONS, DIM, scale, normalizeLast);
    }

    private static SplitText split(Pattern pt) {
        SplitText s = new SplitText("flash-decoding", pt.chips());
        int width = POSITIONS / pt.chips();
        List<String> m = new ArrayList<>();
        List<String> gm = new ArrayList<>();
        for (int c = 0; c < pt.chips(); c++) {
            int start = c == 1 ? pt.chip1Start() : c * width;
            s.input("q." + c, c, ROWS, DIM).shard("q." + c, "q", 0, 0, ROWS, ROWS);
            s.input("k." + c, c, width, DIM).shard("k." + c, "k", 0, start, start + width, POSITIONS);
            s.input("v." + c, c, width, DIM).shard("v." + c, "v", 0, start, start + width, POSITIONS);
            s.matmul(c, "s." + c, "q." + c, "k." + c, false, true).reduce(c, "m." + c, "max", 1, "s." + c);
            s.generic(c, "p." + c, new int[] {ROWS, width}, "exp(" + scaled("sub(in0, in1)", pt.scoreScale()) + ")", "s." + c, "m." + c);
            s.reduce(c, "l." + c, "sum", 1, "p." + c).matmul(c, "o." + c, "p." + c, "v." + c, false, false);
            m.add("m." + c);
            gm.add("M." + c);
        }
        s.allReduce("global_max", pt.maxPool(), "m", m, gm);
        List<String> ls = new ArrayList<>();
        List<String> os = new ArrayList<>();
        for (int c = 0; c < pt.chips(); c++) {
            String alpha = "exp(" + scaled(pt.rescale(), pt.scoreScale()) + ")";
            if (pt.inlineRescale()) {
                String shifted = alpha.replace("in1", "in2").replace("in0", "in1");
                s.generic(c, "ls." + c, new int[] {ROWS, 1}, pt.rescaleSums() ? "mul(in0, " + shifted + ")" : "in0", "l." + c, "m." + c, "M." + c);
                s.generic(c, "os." + c, new int[] {ROWS, DIM}, "mul(in0, " + shifted + ")", "o." + c, "m." + c, "M." + c);
            } else {
                s.generic(c, "alpha." + c, new int[] {ROWS, 1}, alpha, "m." + c, "M." + c);
                s.generic(c, "ls." + c, new int[] {ROWS, 1}, pt.rescaleSums() ? "mul(in0, in1)" : "in0", "l." + c, "alpha." + c);
                s.generic(c, "os." + c, new int[] {ROWS, DIM}, "mul(in0, in1)", "o." + c, "alpha." + c);
            }
            ls.add("ls." + c);
            os.add("os." + c);
        }
        List<String> l = new ArrayList<>();
        List<String> o = new ArrayList<>();
        for (int c = 0; c < pt.chips(); c++) {
            l.add("L." + c);
            o.add("O." + c);
        }
        s.allReduce("sum_l", pt.sumPool(), "l", ls, l).allReduce("sum_o", "sum", "o", os, o);
        for (int c = 0; c < pt.chips(); c++) {
            s.generic(c, "y." + c, new int[] {ROWS, DIM}, "div(in0, in1)", "O." + c, "L." + c).output("y." + c, c, "y." + c)
                    .shard("y." + c, "y", 0, 0, ROWS, ROWS);
        }
        return s;
    }

    private static void accepted(SplitText.Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    private static SplitText.Judged rejected(Pattern pt) {
        SplitText.Judged j = split(pt).judge(parent(pt.scoreScale(), false));
        assertThat(j.agrees()).as("the evaluator: " + j).isFalse();
        assertThat(j.alone().holds()).as(j.toString()).isFalse();
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
        return j;
    }

    @Test
    void each_chip_attending_over_its_positions_with_a_rescaled_combine_is_the_softmax() {
        accepted(split(RIGHT).judge(parent(null, false)));
        accepted(split(RIGHT).judge(parent(null, true)));
    }

    @Test
    void four_chips_scaled_scores_and_a_rescale_inside_the_product_are_the_softmax_too() {
        accepted(split(RIGHT.chips(4)).judge(parent(null, false)));
        accepted(split(RIGHT.scaled("0.5")).judge(parent("0.5", false)));
        accepted(split(RIGHT.inline()).judge(parent(null, false)));
    }

    @Test
    void local_maxima_combined_by_a_sum_are_rejected_at_the_all_reduce_though_softmax_is_shift_invariant() {
        // exp(s - M) / sum exp(s - M) is the softmax for any M, so on inputs in [-1, 1) the evaluator agrees;
        // but M = m_0 + m_1 is no bound on the scores, exp(s - M) can overflow where the parent's cannot,
        // and the checker only accepts the rescale against the completed maximum (docs/verifier.md)
        SplitText.Judged j = split(RIGHT.maxPool("sum")).judge(parent(null, false));
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("ALLREDUCE_POOL");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("global_max");
    }

    @Test
    void partial_sums_combined_by_a_max_are_rejected_at_the_all_reduce() {
        SplitText.Judged j = rejected(RIGHT.sumPool("max"));
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("ALLREDUCE_POOL");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("sum_l");
    }

    @Test
    void partial_sums_combined_without_their_rescale_are_rejected() {
        // reported where chip 0 took its local maximum into exp: the factor exp(m_0 - M) is never cancelled
        SplitText.Judged j = rejected(RIGHT.sumsNotRescaled());
        assertThat(j.alone().codes()).as(j.toString()).containsOnly("PARTIAL_NONLINEAR");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("make_p.0");
        assertThat(j.alone().diagnostics().getFirst().message()).contains("is never cancelled by a rescale with exp(m_c - M)");
    }

    @Test
    void a_rescale_by_the_inverse_factor_is_rejected() {
        // exp(M - m_c) doubles the factor instead of cancelling it
        SplitText.Judged j = rejected(RIGHT.rescale("sub(in1, in0)"));
        assertThat(j.alone().codes()).as(j.toString()).containsOnly("PARTIAL_NONLINEAR");
    }

    @Test
    void chips_attending_over_overlapping_positions_are_rejected() {
        // chip 1 attends over [2, 6): positions 2 and 3 twice, 6 and 7 never
        SplitText.Judged j = rejected(RIGHT.chip1At(2));
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("ALLREDUCE_GAP");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("global_max");
    }
}
