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
        SplitText s = new SplitText("vocab-parallel", 2);
        for (int c = 0; c < 2; c++) {
            s.input("h." + c, c, 2, 4).shard("h." + c, "h", 0, 0, 2, 2);
            s.input("w." + c, c, 4, 4).shard("w." + c, "w", 1, 4 * c, 4 * c + 4, 8);
            s.matmul(c, "logits." + c, "h." + c, "w." + c, false, false).reduce(c, "lmax." + c, "max", 1, "logits." + c)
                    .reduce(c, "lidx." + c, "argmax", 1, "logits." + c)
                    .generic(c, "gidx." + c, "i32", ROW, "add(in0, " + offsets[c] + ")", "lidx." + c);
        }
        s.allReduce("global_max", "max", "lmax", List.of("lmax.0", "lmax.1"), List.of("M.0", "M.1"));
        for (int c = 0; c < 2; c++) {
            s.generic(c, "cand." + c, "i32", ROW, "select(" + test + "(in0, in1), in2, " + sentinel + ")", "lmax." + c, "M." + c, "gidx." + c);
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
}
