package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A vocabulary-parallel arg-max (docs/verifier.md, "Vocabulary-parallel arg-max"): the parent takes
 * the arg-max of {@code logits = h w} over a vocabulary of 8; each chip holds 4 columns of
 * {@code w}, takes its local maximum and arg-max, adds its offset, keeps the position where its
 * maximum is the completed one (a max all-reduce) and a sentinel elsewhere, and a min all-reduce
 * gives the first position of the maximum.
 */
class VocabParallelArgmaxTest {
    private static final int[] ROW = {2, 1};

    private static SplitText parent() {
        return VocabSplits.greedy(2, 4, 8);
    }

    /** Chip c adds {@code offsets[c]}, keeps it under {@code select(test, g, sentinel)} and the chips combine with {@code pool}. */
    private static SplitText split(int[] offsets, String test, int sentinel, String pool) {
        return split(offsets, test, sentinel, pool, null, null);
    }

    /**
     * As above; with {@code maxOver}, each chip's local maximum is taken over a copy of the logits
     * in that dtype, widened back to f32 unless it is f32 (the arg-max still runs over the logits);
     * with {@code completedIn}, the completed maximum is copied to that dtype before the compare.
     */
    private static SplitText split(int[] offsets, String test, int sentinel, String pool, String maxOver, String completedIn) {
        SplitText s = new SplitText("vocab-parallel", 2);
        for (int c = 0; c < 2; c++) {
            s.input("h." + c, c, 2, 4).shard("h." + c, "h", 0, 0, 2, 2);
            s.input("w." + c, c, 4, 4).shard("w." + c, "w", 1, 4 * c, 4 * c + 4, 8);
            s.matmul(c, "logits." + c, "h." + c, "w." + c, false, false);
            String maxOf = "logits." + c;
            if (maxOver != null) {
                s.generic(c, "copy." + c, maxOver, new int[] {2, 4}, "in0", maxOf);
                maxOf = "copy." + c;
                if (!maxOver.equals("f32")) {
                    s.generic(c, "wide." + c, "f32", new int[] {2, 4}, "in0", maxOf);
                    maxOf = "wide." + c;
                }
            }
            s.reduce(c, "lmax." + c, "max", 1, maxOf).reduce(c, "lidx." + c, "argmax", 1, "logits." + c)
                    .generic(c, "gidx." + c, "i32", ROW, "add(in0, " + offsets[c] + ")", "lidx." + c);
        }
        s.allReduce("global_max", "max", "lmax", List.of("lmax.0", "lmax.1"), List.of("M.0", "M.1"));
        for (int c = 0; c < 2; c++) {
            String completed = "M." + c;
            if (completedIn != null) {
                s.generic(c, "Mc." + c, completedIn, ROW, "in0", completed);
                completed = "Mc." + c;
            }
            String keep = test.contains("(") ? test : test + "(in0, in1)"; // a whole test, or the comparison of m_c (in0) with M (in1)
            s.generic(c, "cand." + c, "i32", ROW, "select(" + keep + ", in2, " + sentinel + ")", "lmax." + c, completed, "gidx." + c);
        }
        s.allReduce("global_argmax", pool, "idx", List.of("cand.0", "cand.1"), List.of("idx.0", "idx.1"));
        for (int c = 0; c < 2; c++) {
            s.output("idx." + c, c, "idx." + c).shard("idx." + c, "idx", 0, 0, 2, 2);
        }
        return s;
    }

    private static final int[] OFFSETS = {0, 4};

    private static void accepted(SplitText.Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void local_arg_maxes_with_offsets_kept_where_the_maximum_is_reached_and_min_reduced_are_the_arg_max() {
        accepted(split(OFFSETS, "eq", 8, "min").judge(parent()));
        accepted(split(OFFSETS, "ge", 1000, "min").judge(parent()));
    }

    @Test
    void the_combine_that_keeps_a_nan_maximum_is_accepted_and_the_plain_one_is_noted() {
        SplitText.Judged safe = split(OFFSETS, "or(eq(in0, in1), ne(in0, in0))", 8, "min").judge(parent());
        accepted(safe);
        assertThat(safe.alone().obligations().stream().map(o -> String.valueOf(o.note())).toList()).noneMatch(n -> n.contains("NaN"));
        // the plain form gives the sentinel on a row holding a NaN: accepted, with a note that says so
        SplitText.Judged plain = split(OFFSETS, "eq(in0, in1)", 8, "min").judge(parent());
        accepted(plain);
        assertThat(plain.alone().obligations().stream().map(o -> String.valueOf(o.note())).toList()).anyMatch(n -> n.contains("NaN"));
    }

    @Test
    void a_chip_that_leaves_out_its_offset_is_rejected_at_its_local_arg_max() {
        SplitText.Judged j = split(new int[] {0, 0}, "eq", 8, "min").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("SHARD_LOCAL_ARGMAX");
        assertThat(j.alone().diagnostics().stream().filter(d -> d.code().equals("SHARD_LOCAL_ARGMAX")).findFirst().orElseThrow().stageId())
                .isEqualTo("make_lidx.1");
    }

    @Test
    void candidates_combined_by_a_max_are_rejected() {
        // the chip whose maximum is not the completed one offers 8, and a max picks it
        SplitText.Judged j = split(OFFSETS, "eq", 8, "max").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("ALLREDUCE_POOL");
    }

    @Test
    void a_sentinel_inside_the_vocabulary_is_rejected() {
        // 2 is a position of the vocabulary: a chip without the maximum offers it, and the min may take it
        SplitText.Judged j = split(OFFSETS, "eq", 2, "min").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().holds()).as(j.toString()).isFalse();
    }

    @Test
    void the_last_position_form_is_rejected_though_it_agrees_without_ties() {
        // max of (m_c == M ? g_c : -1) is the LAST position of the maximum; the parent's arg-max takes the first,
        // so they differ exactly when two chips hold the maximum (never on these random inputs)
        SplitText.Judged j = split(OFFSETS, "eq", -1, "max").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().holds()).as(j.toString()).isFalse();
    }

    @Test
    void a_local_maximum_over_an_exact_copy_of_the_logits_is_accepted() {
        // an f32 copy holds the very values: the maximum and the arg-max are taken over the same row
        accepted(split(OFFSETS, "eq", 8, "min", "f32", null).judge(parent()));
    }

    @Test
    void a_local_maximum_over_a_bf16_copy_of_the_logits_is_rejected_at_the_select() {
        // the copy has the logits' terms but rounded values: the maxima tie or order otherwise than the arg-maxes' values
        // (PrecisionProbesTest shows the evaluator differ on logits near 10^5, where every value rounds alike)
        SplitText.Judged j = split(OFFSETS, "eq", 8, "min", "bf16", null).judge(parent());
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("SHARD_LOCAL_ARGMAX", "SHARD_LOCAL_ARGMAX");
        assertThat(j.alone().diagnostics().stream().map(d -> d.stageId()).toList()).containsExactly("make_cand.0", "make_cand.1");
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void a_completed_maximum_rounded_to_bf16_before_the_compare_keeps_no_position() {
        // eq(m_c, bf16(M)) is false wherever M is no bf16 value: every chip offers the sentinel
        SplitText.Judged j = split(OFFSETS, "eq", 8, "min", null, "bf16").judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).containsExactly("SHARD_LOCAL_ARGMAX", "SHARD_LOCAL_ARGMAX");
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void a_third_chip_whose_maximum_of_a_bf16_copy_joins_the_completed_maximum_is_rejected_at_the_all_reduce() {
        // chip 2 repeats chip 1's columns but takes its maximum over a bf16 copy: its maximum joins M (a max is
        // idempotent, so the repeated window is no overlap to the max), chips 0 and 1 compare theirs with M
        SplitText s = new SplitText("vocab-parallel-redundant", 3);
        for (int c = 0; c < 3; c++) {
            int window = Math.min(c, 1);
            s.input("h." + c, c, 2, 4).shard("h." + c, "h", 0, 0, 2, 2);
            s.input("w." + c, c, 4, 4).shard("w." + c, "w", 1, 4 * window, 4 * window + 4, 8);
            s.matmul(c, "logits." + c, "h." + c, "w." + c, false, false);
            String maxOf = "logits." + c;
            if (c == 2) {
                s.generic(c, "copy." + c, "bf16", new int[] {2, 4}, "in0", maxOf).generic(c, "wide." + c, "f32", new int[] {2, 4}, "in0", "copy." + c);
                maxOf = "wide." + c;
            }
            s.reduce(c, "lmax." + c, "max", 1, maxOf);
        }
        s.allReduce("global_max", "max", "lmax", List.of("lmax.0", "lmax.1", "lmax.2"), List.of("M.0", "M.1", "M.2"));
        for (int c = 0; c < 2; c++) {
            s.reduce(c, "lidx." + c, "argmax", 1, "logits." + c).generic(c, "gidx." + c, "i32", ROW, "add(in0, " + OFFSETS[c] + ")", "lidx." + c);
            s.generic(c, "cand." + c, "i32", ROW, "select(eq(in0, in1), in2, 8)", "lmax." + c, "M." + c, "gidx." + c);
        }
        s.allReduce("global_argmax", "min", "idx", List.of("cand.0", "cand.1"), List.of("idx.0", "idx.1"));
        for (int c = 0; c < 2; c++) {
            s.output("idx." + c, c, "idx." + c).shard("idx." + c, "idx", 0, 0, 2, 2);
        }
        SplitText.Judged j = s.judge(parent());
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().diagnostics().stream().map(d -> d.code() + "@" + d.stageId()).toList()).as(j.toString())
                .contains("SHARD_LOCAL_ARGMAX@global_max");
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }
}
