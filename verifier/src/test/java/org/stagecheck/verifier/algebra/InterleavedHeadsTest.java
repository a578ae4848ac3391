package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntUnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Grouped-query attention split by key/value head (docs/verifier.md, "Hidden positions"): 4 query
 * heads over 2 key/value heads, head dimension 2, 2 query rows over 3 positions (keys and values
 * projected from their own rows by {@code wk} and {@code wv}). The parent
 * computes every head ({@code softmax(q_h k_g^T) v_g}, g the head's key/value head), lays them side
 * by side and projects them with {@code wo}. In the split chip c holds key/value head c, the
 * query heads that use it (its columns of {@code wk} and {@code wv}; the query heads' columns of
 * {@code wq} and rows of {@code wo}, each a declared
 * piece), projects each head with its rows of {@code wo} and sums them, and a sum all-reduce
 * combines the chips. With interleaved groups (query head h uses key/value head h mod 2) a chip's
 * query heads are 0 and 2, or 1 and 3: no contiguous window, placed by the certificate's head layout.
 */
class InterleavedHeadsTest {
    private static final int QUERY_HEADS = 4;
    private static final int KV_HEADS = 2;
    private static final int W = 2;
    private static final int ROWS = 2;
    private static final int POSITIONS = 3;
    private static final int MODEL = 4;
    private static final int OUT = 3;

    private static final IntUnaryOperator INTERLEAVED = h -> h % KV_HEADS;
    private static final IntUnaryOperator CONTIGUOUS = h -> h / (QUERY_HEADS / KV_HEADS);

    /** One head's attention on {@code chip}: {@code o<tag>} from query {@code q}, keys {@code k}, values {@code v}. */
    private static void head(SplitText s, int chip, String tag, String q, String k, String v) {
        s.matmul(chip, "s" + tag, q, k, false, true).reduce(chip, "m" + tag, "max", 1, "s" + tag);
        s.generic(chip, "p" + tag, new int[] {ROWS, POSITIONS}, "exp(sub(in0, in1))", "s" + tag, "m" + tag).reduce(chip, "l" + tag, "sum", 1, "p" + tag);
        s.generic(chip, "a" + tag, new int[] {ROWS, POSITIONS}, "div(in0, in1)", "p" + tag, "l" + tag).matmul(chip, "o" + tag, "a" + tag, v, false, false);
    }

    /** The unsplit attention whose query head h uses key/value head {@code kvOf(h)}. */
    private static SplitText parent(IntUnaryOperator kvOf) {
        SplitText u = new SplitText("gqa", 1).input("x", 0, ROWS, MODEL).input("wq", 0, MODEL, QUERY_HEADS * W).input("kv", 0, POSITIONS, MODEL)
                .input("wk", 0, MODEL, KV_HEADS * W).input("wv", 0, MODEL, KV_HEADS * W).input("wo", 0, QUERY_HEADS * W, OUT);
        u.matmul(0, "q", "x", "wq", false, false).matmul(0, "k", "kv", "wk", false, false).matmul(0, "v", "kv", "wv", false, false);
        for (int g = 0; g < KV_HEADS; g++) {
            u.slice(0, "k" + g, "k", new int[] {0, g * W}, POSITIONS, W).slice(0, "v" + g, "v", new int[] {0, g * W}, POSITIONS, W);
        }
        String[] outs = new String[QUERY_HEADS];
        for (int h = 0; h < QUERY_HEADS; h++) {
            u.slice(0, "q" + h, "q", new int[] {0, h * W}, ROWS, W);
            head(u, 0, "" + h, "q" + h, "k" + kvOf.applyAsInt(h), "v" + kvOf.applyAsInt(h));
            outs[h] = "o" + h;
        }
        u.concat(0, "attn", 1, outs).matmul(0, "y", "attn", "wo", false, false);
        return u.output("y", 0, "y");
    }

    /** Chip c holds key/value head c and attends with it for query heads {@code heads[c]}; the certificate declares {@code layout} (null: none). */
    private static SplitText split(int[][] heads, String layout) {
        return split(heads, layout, false);
    }

    /**
     * As {@link #split(int[][], String)}; with {@code sideBySide} each chip lays its heads (consecutive
     * ones) side by side and projects them at once with one declared piece of {@code wo}.
     */
    private static SplitText split(int[][] heads, String layout, boolean sideBySide) {
        SplitText s = new SplitText("gqa-by-kv-head", KV_HEADS);
        if (layout != null) {
            s.heads(layout, QUERY_HEADS, KV_HEADS);
        }
        List<String> sums = new ArrayList<>();
        List<String> ys = new ArrayList<>();
        for (int c = 0; c < KV_HEADS; c++) {
            s.input("x." + c, c, ROWS, MODEL).shard("x." + c, "x", 0, 0, ROWS, ROWS);
            s.input("kv." + c, c, POSITIONS, MODEL).shard("kv." + c, "kv", 0, 0, POSITIONS, POSITIONS);
            s.input("wk." + c, c, MODEL, W).shard("wk." + c, "wk", 1, c * W, c * W + W, KV_HEADS * W);
            s.input("wv." + c, c, MODEL, W).shard("wv." + c, "wv", 1, c * W, c * W + W, KV_HEADS * W);
            s.matmul(c, "k." + c, "kv." + c, "wk." + c, false, false).matmul(c, "v." + c, "kv." + c, "wv." + c, false, false);
            List<String> projected = new ArrayList<>();
            List<String> outs = new ArrayList<>();
            for (int h : heads[c]) {
                String tag = c + "." + h;
                s.input("wq." + tag, c, MODEL, W).shard("wq." + tag, "wq", 1, h * W, h * W + W, QUERY_HEADS * W);
                s.matmul(c, "q" + tag, "x." + c, "wq." + tag, false, false);
                head(s, c, tag, "q" + tag, "k." + c, "v." + c);
                outs.add("o" + tag);
                if (!sideBySide) {
                    s.input("wo." + tag, c, W, OUT).shard("wo." + tag, "wo", 0, h * W, h * W + W, QUERY_HEADS * W);
                    s.matmul(c, "y" + tag, "o" + tag, "wo." + tag, false, false);
                    projected.add("y" + tag);
                }
            }
            if (sideBySide) {
                int first = heads[c][0] * W;
                int width = heads[c].length * W;
                s.concat(c, "attn." + c, 1, outs.toArray(String[]::new));
                s.input("wo." + c, c, width, OUT).shard("wo." + c, "wo", 0, first, first + width, QUERY_HEADS * W);
                s.matmul(c, "y." + c + ".all", "attn." + c, "wo." + c, false, false);
                projected.add("y." + c + ".all");
            }
            String sum = projected.getFirst();
            if (projected.size() > 1) {
                sum = "ysum." + c;
                s.generic(c, sum, new int[] {ROWS, OUT}, "add(in0, in1)", projected.toArray(String[]::new));
            }
            sums.add(sum);
            ys.add("y." + c);
        }
        s.allReduce("combine_heads", "sum", "y", sums, ys);
        for (int c = 0; c < KV_HEADS; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, ROWS, ROWS);
        }
        return s;
    }

    private static final int[][] INTERLEAVED_HEADS = {{0, 2}, {1, 3}};
    private static final int[][] CONTIGUOUS_HEADS = {{0, 1}, {2, 3}};

    private static void accepted(SplitText.Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void a_split_by_key_value_head_with_interleaved_groups_is_the_attention() {
        accepted(split(INTERLEAVED_HEADS, "interleaved").judge(parent(INTERLEAVED)));
    }

    @Test
    void without_the_certificates_head_layout_the_right_split_is_not_proved() {
        // one head alone does not say which key/value head the logical attention pairs it with
        SplitText.Judged j = split(INTERLEAVED_HEADS, null).judge(parent(INTERLEAVED));
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().holds()).as(j.toString()).isFalse();
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
    }

    @Test
    void the_same_split_with_contiguous_groups_is_the_attention_too() {
        accepted(split(CONTIGUOUS_HEADS, "contiguous").judge(parent(CONTIGUOUS)));
    }

    @Test
    void a_query_head_paired_with_another_key_value_head_than_the_layout_gives_is_rejected_where_it_is_projected() {
        // the chips take heads 0, 1 and 2, 3 as contiguous groups would, but the groups are interleaved
        SplitText.Judged j = split(CONTIGUOUS_HEADS, "interleaved").judge(parent(INTERLEAVED));
        assertThat(j.agrees()).as("the evaluator: " + j).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("HEAD_KV_MISMATCH");
        assertThat(j.alone().diagnostics().getFirst().stageId()).as(j.toString()).isEqualTo("make_y0.1");
        assertThat(j.alone().diagnostics().getFirst().message()).contains("Query head 1", "key/value head 0", "gives it key/value head 1");
        assertThat(j.withParent().codes()).as(j.toString()).contains("HEAD_KV_MISMATCH");
    }

    @Test
    void heads_laid_side_by_side_are_named_by_the_layout_and_checked_against_it() {
        accepted(split(CONTIGUOUS_HEADS, "contiguous", true).judge(parent(CONTIGUOUS)));
        SplitText.Judged j = split(CONTIGUOUS_HEADS, "interleaved", true).judge(parent(INTERLEAVED));
        assertThat(j.agrees()).as("the evaluator: " + j).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("HEAD_KV_MISMATCH");
        assertThat(j.alone().diagnostics().getFirst().stageId()).as(j.toString()).isEqualTo("make_attn.0");
        assertThat(j.alone().diagnostics().getFirst().field()).as(j.toString()).isEqualTo("/stages/" + j.alone().diagnostics().getFirst().stageIndex() + "/ins/1");
    }

    @Test
    void a_consistent_split_of_another_layout_than_the_parents_is_rejected_given_the_parent() {
        // contiguous groups throughout the split and its certificate, interleaved in the unsplit program
        SplitText.Judged j = split(CONTIGUOUS_HEADS, "contiguous").judge(parent(INTERLEAVED));
        assertThat(j.agrees()).as("the evaluator: " + j).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).containsOnly("LOGICAL_OUTPUT_DIFFERS");
    }

    @Test
    void a_query_head_left_out_is_rejected_at_the_all_reduce() {
        SplitText.Judged j = split(new int[][] {{0, 2}, {1}}, "interleaved").judge(parent(INTERLEAVED));
        assertThat(j.agrees()).as("the evaluator: " + j).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).contains("ALLREDUCE_GAP");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("combine_heads");
    }
}
