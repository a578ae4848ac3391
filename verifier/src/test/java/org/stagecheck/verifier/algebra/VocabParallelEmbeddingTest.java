package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.report.ReportText;

/**
 * A gather from a vocabulary-sharded embedding table (docs/verifier.md, "Vocabulary-parallel
 * embeddings"): the parent reads row {@code tok} of an 8-row table; each chip holds rows
 * {@code [s, s + n)}, computes its local id {@code select(s <= tok < s + n, tok - s, 0)} (a
 * {@code Scalar} stage), reads that row of its shard, zeroes it unless {@code s <= tok < s + n},
 * and a sum all-reduce combines the chips. The evaluator runs both programs for every token id of
 * the vocabulary (the parent faults outside it: a block out of bounds). The same split written as
 * real engines write it, every token at once (an indirect load of the shard's rows at a column of
 * local ids computed elementwise, the rows masked by the id column), is judged the same way over
 * sequences of ids that use every id of the vocabulary at every position.
 */
class VocabParallelEmbeddingTest {
    private static final int VOCAB = 8;
    private static final int DIM = 4;
    private static final Interpreter INTERPRETER = new Interpreter(RunOptions.defaults().withThreads(1));
    /** Tokens per sequence in the indirect form. */
    private static final int TOKENS = 3;

    /** The ids each run binds: one token per run for the block form, three-token sequences for the indirect form. */
    static List<int[]> idRuns(boolean indirect) {
        List<int[]> runs = new ArrayList<>();
        for (int token = 0; token < VOCAB; token++) {
            runs.add(indirect ? new int[] {token, (token * 3 + 1) % VOCAB, VOCAB - 1 - token} : new int[] {token});
        }
        return runs;
    }

    private static SplitText parent() {
        return new SplitText("embedding", 1).input("tok", "i32", 0, 1).table("embed", 0, VOCAB, DIM).loadRow(0, "x", "embed", "@tok")
                .output("y", 0, "x");
    }

    /** Rows {@code tok[i]} of the table for every token at once: one indirect load. */
    private static SplitText gatherParent() {
        return new SplitText("embedding-gather", 1).input("tok", "i32", 0, TOKENS).table("embed", "f32", 0, VOCAB, DIM).gather(0, "x", "embed", "tok")
                .output("y", 0, "x");
    }

    /**
     * How chip c is written: it holds table rows {@code [held[c], held[c] + rows[c])}, its local id
     * subtracts {@code offset[c]} under the test {@code [lo[c], hi[c])} (clamped to 0 outside unless
     * {@code unclamped}), and its row is masked by the same test unless {@code unmasked}.
     */
    private record Layout(int[] held, int[] rows, int[] offset, int[] lo, int[] hi, boolean unclamped, boolean unmasked) {
        static Layout even(int chips) {
            int n = VOCAB / chips;
            int[] s = new int[chips];
            int[] r = new int[chips];
            int[] e = new int[chips];
            for (int c = 0; c < chips; c++) {
                s[c] = c * n;
                r[c] = n;
                e[c] = c * n + n;
            }
            return new Layout(s, r, s.clone(), s.clone(), e, false, false);
        }

        int chips() {
            return held.length;
        }

        Layout chip(int c, int heldAt, int offsetBy, int from, int to) {
            Layout l = new Layout(held.clone(), rows, offset.clone(), lo.clone(), hi.clone(), unclamped, unmasked);
            l.held[c] = heldAt;
            l.offset[c] = offsetBy;
            l.lo[c] = from;
            l.hi[c] = to;
            return l;
        }

        Layout withoutClamp() {
            return new Layout(held, rows, offset, lo, hi, true, unmasked);
        }

        Layout withoutMask() {
            return new Layout(held, rows, offset, lo, hi, unclamped, true);
        }
    }

    private static SplitText split(Layout l) {
        SplitText s = new SplitText("vocab-parallel-embedding", l.chips());
        List<String> parts = new ArrayList<>();
        List<String> sums = new ArrayList<>();
        for (int c = 0; c < l.chips(); c++) {
            String test = "and(ge(in0, " + l.lo()[c] + "), lt(in0, " + l.hi()[c] + "))";
            String local = "sub(in0, " + l.offset()[c] + ")";
            s.input("tok." + c, "i32", c, 1).shard("tok." + c, "tok", 0, 0, 1, 1);
            s.table("embed." + c, c, l.rows()[c], DIM).shard("embed." + c, "embed", 0, l.held()[c], l.held()[c] + l.rows()[c], VOCAB);
            s.scalar(c, "local." + c, l.unclamped() ? local : "select(" + test + ", " + local + ", 0)", "tok." + c);
            s.loadRow(c, "row." + c, "embed." + c, "@local." + c);
            String mask = "select(" + test.replace("in0", "in1") + ", in0, 0.0)";
            s.generic(c, "part." + c, new int[] {1, DIM}, l.unmasked() ? "in0" : mask, "row." + c, "tok." + c);
            parts.add("part." + c);
            sums.add("y." + c);
        }
        s.allReduce("combine_rows", "sum", "y", parts, sums);
        for (int c = 0; c < l.chips(); c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, 1, 1);
        }
        return s;
    }

    /**
     * The indirect form of {@link #split}: chip c computes the column of local ids elementwise,
     * gathers those rows of its shard, and masks row i by token i's test (the ids as a column
     * {@code [TOKENS, 1]}, broadcast along the row).
     */
    private static SplitText gatherSplit(Layout l) {
        SplitText s = new SplitText("vocab-parallel-embedding-gather", l.chips());
        List<String> parts = new ArrayList<>();
        List<String> sums = new ArrayList<>();
        for (int c = 0; c < l.chips(); c++) {
            String test = "and(ge(in0, " + l.lo()[c] + "), lt(in0, " + l.hi()[c] + "))";
            String local = "sub(in0, " + l.offset()[c] + ")";
            s.input("tok." + c, "i32", c, TOKENS).shard("tok." + c, "tok", 0, 0, TOKENS, TOKENS);
            s.table("embed." + c, "f32", c, l.rows()[c], DIM).shard("embed." + c, "embed", 0, l.held()[c], l.held()[c] + l.rows()[c], VOCAB);
            s.generic(c, "local." + c, "i32", new int[] {TOKENS}, l.unclamped() ? local : "select(" + test + ", " + local + ", 0)", "tok." + c);
            s.gather(c, "rows." + c, "embed." + c, "local." + c);
            s.reshape(c, "tokcol." + c, new int[] {TOKENS, 1}, "tok." + c);
            String mask = "select(" + test.replace("in0", "in1") + ", in0, 0.0)";
            s.generic(c, "part." + c, new int[] {TOKENS, DIM}, l.unmasked() ? "in0" : mask, "rows." + c, "tokcol." + c);
            parts.add("part." + c);
            sums.add("y." + c);
        }
        s.allReduce("combine_rows", "sum", "y", parts, sums);
        for (int c = 0; c < l.chips(); c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, TOKENS, TOKENS);
        }
        return s;
    }

    /** The checker's verdicts (alone, given the parent) and the evaluator's over every token id of the vocabulary. */
    private record Judged(VerifyReport alone, VerifyReport withParent, String evaluator) {
        boolean agrees() {
            return evaluator == null;
        }

        @Override
        public String toString() {
            return "alone " + new ReportText().render(alone) + "; with the parent " + new ReportText().render(withParent) + "; evaluator "
                    + (evaluator == null ? "agrees" : evaluator);
        }
    }

    private static Judged judge(SplitText split) {
        return judge(split, parent(), idRuns(false));
    }

    private static Judged judgeGather(Layout l) {
        return judge(gatherSplit(l), gatherParent(), idRuns(true));
    }

    private static Judged judge(SplitText split, SplitText unsplit, List<int[]> runs) {
        Program p = split.program();
        Certificate c = split.certificate();
        Program u = unsplit.program();
        return new Judged(new Verifier().verify(p, c, Parent.none()), new Verifier().verify(p, c, Parent.unsplit(u)), evaluate(p, c, u, runs));
    }

    /** Null when the split's every output equals the parent's for every run's ids (each in [0, VOCAB)); else the first difference or fault. */
    static String evaluate(Program split, Certificate cert, Program parent, List<int[]> runs) {
        SplittableRandom r = new SplittableRandom(7);
        float[] table = new float[VOCAB * DIM];
        for (int i = 0; i < table.length; i++) {
            table[i] = (float) (2 * r.nextDouble() - 1);
        }
        Map<String, ShardDecl> decls = new LinkedHashMap<>();
        cert.shards().forEach(d -> decls.put(d.tensor(), d));
        for (int[] ids : runs) {
            String token = java.util.Arrays.toString(ids);
            Tensor tok = Tensor.fromInts(Shape.of(ids.length), ids);
            RunResult want = INTERPRETER.run(parent, Map.of("tok", tok, "embed", Tensor.fromFloats(DType.F32, Shape.of(VOCAB, DIM), table)), Map.of());
            assertThat(want.ok()).as("the parent at token " + token).isTrue();
            Map<String, Tensor> bound = new LinkedHashMap<>();
            for (TensorDecl t : split.tensors()) {
                if (t.role() != TensorRole.INPUT && t.role() != TensorRole.WEIGHT) {
                    continue;
                }
                if (t.dtype() == DType.I32) {
                    bound.put(t.name(), tok);
                } else {
                    // the rows the certificate says the shard holds
                    int start = (int) decls.get(t.name()).start();
                    float[] rows = new float[t.shape().dim(0) * DIM];
                    System.arraycopy(table, start * DIM, rows, 0, rows.length);
                    bound.put(t.name(), Tensor.fromFloats(DType.F32, t.shape(), rows));
                }
            }
            RunResult got = INTERPRETER.run(split, bound, Map.of());
            if (!got.ok()) {
                return "the split faults (" + got.faultCodes().getFirst() + ") at token " + token;
            }
            Tensor y = want.tensor("y");
            for (TensorDecl t : split.tensors()) {
                if (t.role() == TensorRole.OUTPUT) {
                    Tensor g = got.tensor(t.name());
                    for (int i = 0; i < y.size(); i++) {
                        if (Math.abs(g.getDouble(i) - y.getDouble(i)) > 1e-6) {
                            return t.name() + " differs at token " + token + ", element " + i + ": " + g.getDouble(i) + " vs " + y.getDouble(i);
                        }
                    }
                }
            }
        }
        return null;
    }

    private static void accepted(Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    private static Judged rejected(Layout l) {
        return rejected(judge(split(l)));
    }

    private static Judged rejected(Judged j) {
        assertThat(j.agrees()).as("the evaluator: " + j).isFalse();
        assertThat(j.alone().holds()).as(j.toString()).isFalse();
        assertThat(j.withParent().holds()).as(j.toString()).isFalse();
        return j;
    }

    @Test
    void the_parent_faults_on_a_token_id_outside_the_vocabulary() {
        // the gather's domain: what the split computes there (zeros) is no output of the parent
        RunResult r = INTERPRETER.run(parent().program(), Map.of("tok", Tensor.fromInts(Shape.of(1), new int[] {VOCAB}),
                "embed", Tensor.zeros(DType.F32, Shape.of(VOCAB, DIM))), Map.of());
        assertThat(r.ok()).isFalse();
        assertThat(r.faultCodes().getFirst().name()).isEqualTo("BLOCK_OUT_OF_BOUNDS");
    }

    @Test
    void masked_local_ids_over_disjoint_shards_and_a_sum_are_the_gather() {
        accepted(judge(split(Layout.even(2))));
        accepted(judge(split(Layout.even(4))));
    }

    @Test
    void uneven_shards_that_cover_the_vocabulary_are_the_gather() {
        // chip 0 holds rows [0, 3), chip 1 rows [3, 8)
        Layout l = new Layout(new int[] {0, 3}, new int[] {3, 5}, new int[] {0, 3}, new int[] {0, 3}, new int[] {3, 8}, false, false);
        accepted(judge(split(l)));
    }

    @Test
    void a_row_without_its_mask_is_rejected_at_the_all_reduce() {
        // every chip adds row 0 of its shard for an id it does not hold
        Judged j = rejected(Layout.even(2).withoutMask());
        assertThat(j.alone().codes()).as(j.toString()).contains("GUARDED_READ_UNMASKED");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("combine_rows");
    }

    @Test
    void masks_that_overlap_are_rejected() {
        // chip 1 holds rows [3, 7) and admits ids [3, 7): id 3 is added twice, id 7 by no chip
        Judged j = rejected(Layout.even(2).chip(1, 3, 3, 3, 7));
        assertThat(j.alone().codes()).as(j.toString()).contains("ALLREDUCE_OVERLAP");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("combine_rows");
    }

    @Test
    void a_missing_shard_is_rejected() {
        // chip 1 admits only ids [4, 7): id 7 is added by no chip
        Judged j = rejected(Layout.even(2).chip(1, 4, 4, 4, 7));
        assertThat(j.alone().codes()).as(j.toString()).contains("ALLREDUCE_GAP");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("combine_rows");
    }

    @Test
    void an_off_by_one_local_id_is_rejected() {
        // chip 1 subtracts 3 instead of 4: it reads the row after the one asked for, and past its shard
        Judged j = rejected(Layout.even(2).chip(1, 4, 3, 4, 8));
        assertThat(j.alone().codes()).as(j.toString()).contains("GUARDED_BLOCK_OUT_OF_BOUNDS");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("load_row.1");
    }

    @Test
    void a_mask_by_the_id_of_a_value_that_is_no_row_read_at_it_is_no_sum_over_the_ids() {
        // each chip keeps x where it owns the id: the sum is x for ids in [0, 8), but 0 for id 8, where the parent's x exists
        SplitText parent = new SplitText("copy", 1).input("tok", "i32", 0, 1).input("x", 0, 1, DIM).output("y", 0, "x");
        SplitText s = new SplitText("masked-copy", 2);
        for (int c = 0; c < 2; c++) {
            s.input("tok." + c, "i32", c, 1).shard("tok." + c, "tok", 0, 0, 1, 1).input("x." + c, c, 1, DIM).shard("x." + c, "x", 0, 0, 1, 1);
            s.generic(c, "part." + c, new int[] {1, DIM}, "select(and(ge(in1, " + 4 * c + "), lt(in1, " + (4 * c + 4) + ")), in0, 0.0)", "x." + c, "tok." + c);
        }
        s.allReduce("combine", "sum", "y", List.of("part.0", "part.1"), List.of("y.0", "y.1"));
        s.output("y.0", 0, "y.0").shard("y.0", "y", 0, 0, 1, 1).output("y.1", 1, "y.1").shard("y.1", "y", 0, 0, 1, 1);
        VerifyReport alone = new Verifier().verify(s.program(), s.certificate(), Parent.none());
        assertThat(alone.holds()).as(new ReportText().render(alone)).isFalse();
        assertThat(new Verifier().verify(s.program(), s.certificate(), Parent.unsplit(parent.program())).holds()).isFalse();
        Tensor x = Tensor.fromFloats(DType.F32, Shape.of(1, DIM), new float[] {0.5f, -1f, 2f, 3f});
        Tensor id = Tensor.fromInts(Shape.of(1), new int[] {VOCAB});
        RunResult want = INTERPRETER.run(parent.program(), Map.of("tok", id, "x", x), Map.of());
        RunResult got = INTERPRETER.run(s.program(), Map.of("tok.0", id, "tok.1", id, "x.0", x, "x.1", x), Map.of());
        assertThat(want.ok() && got.ok()).isTrue();
        assertThat(got.tensor("y.0").getDouble(0)).isEqualTo(0.0);
        assertThat(want.tensor("y").getDouble(0)).isEqualTo(0.5);
    }

    @Test
    void an_unclamped_local_id_is_rejected_where_it_reads() {
        // the id of another chip's row reads outside this chip's shard
        Judged j = rejected(Layout.even(2).withoutClamp());
        assertThat(j.alone().codes()).as(j.toString()).contains("INDEXED_BLOCK_OUTSIDE_SHARD");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("load_row.0");
    }

    // ------------------------------------------------------------------ the indirect form: every token at once

    @Test
    void the_parent_gather_faults_on_a_token_id_outside_the_vocabulary() {
        // the domain of each row of the gather: an id outside [0, VOCAB) is no output of the parent
        for (int bad : new int[] {VOCAB, -1}) {
            RunResult r = INTERPRETER.run(gatherParent().program(), Map.of("tok", Tensor.fromInts(Shape.of(TOKENS), new int[] {0, bad, 1}),
                    "embed", Tensor.zeros(DType.F32, Shape.of(VOCAB, DIM))), Map.of());
            assertThat(r.ok()).isFalse();
            assertThat(r.faultCodes().getFirst().name()).isEqualTo("INDEX_OUT_OF_RANGE");
        }
    }

    @Test
    void a_gather_of_masked_local_ids_over_disjoint_shards_and_a_sum_is_the_gather() {
        accepted(judgeGather(Layout.even(2)));
        accepted(judgeGather(Layout.even(4)));
        // chip 0 holds rows [0, 3), chip 1 rows [3, 8)
        accepted(judgeGather(new Layout(new int[] {0, 3}, new int[] {3, 5}, new int[] {0, 3}, new int[] {0, 3}, new int[] {3, 8}, false, false)));
    }

    @Test
    void gathered_rows_without_their_mask_are_rejected_at_the_all_reduce() {
        Judged j = rejected(judgeGather(Layout.even(2).withoutMask()));
        assertThat(j.alone().codes()).as(j.toString()).contains("GUARDED_READ_UNMASKED");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("combine_rows");
    }

    @Test
    void gathers_whose_masks_overlap_or_leave_a_gap_are_rejected() {
        // chip 1 holds rows [3, 7) and admits ids [3, 7): id 3 is added twice
        Judged overlap = rejected(judgeGather(Layout.even(2).chip(1, 3, 3, 3, 7)));
        assertThat(overlap.alone().codes()).as(overlap.toString()).contains("ALLREDUCE_OVERLAP");
        assertThat(overlap.alone().diagnostics().getFirst().stageId()).isEqualTo("combine_rows");
        // chip 1 admits only ids [4, 7): id 7 is added by no chip
        Judged gap = rejected(judgeGather(Layout.even(2).chip(1, 4, 4, 4, 7)));
        assertThat(gap.alone().codes()).as(gap.toString()).contains("ALLREDUCE_GAP");
        assertThat(gap.alone().diagnostics().getFirst().stageId()).isEqualTo("combine_rows");
    }

    @Test
    void a_gather_at_off_by_one_local_ids_is_rejected_where_it_reads() {
        // chip 1 subtracts 3 instead of 4: the rows after the ones asked for, past its shard for id 7
        Judged j = rejected(judgeGather(Layout.even(2).chip(1, 4, 3, 4, 8)));
        assertThat(j.alone().codes()).as(j.toString()).contains("GUARDED_BLOCK_OUT_OF_BOUNDS");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("gather_rows.1");
    }

    @Test
    void a_gather_at_the_global_ids_under_the_shifted_test_is_rejected() {
        // chip 1 (rows [4, 8)) leaves its offset out: local ids 4..7 lie past its 4 rows
        Judged j = rejected(judgeGather(Layout.even(2).chip(1, 4, 0, 4, 8)));
        assertThat(j.alone().codes()).as(j.toString()).contains("GUARDED_BLOCK_OUT_OF_BOUNDS");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("gather_rows.1");
    }

    @Test
    void a_chip_that_leaves_its_offset_out_of_test_and_local_id_is_rejected_at_the_all_reduce() {
        // chip 1 (rows [4, 8)) admits ids [0, 4) and reads its row id there, logical row id + 4:
        // the rows of ids [0, 4) are added to other rows, those of ids [4, 8) are never read
        Judged j = rejected(judgeGather(Layout.even(2).chip(1, 4, 0, 0, 4)));
        assertThat(j.alone().codes()).as(j.toString()).contains("ALLREDUCE_VIEW_MISMATCH");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("combine_rows");
    }

    @Test
    void a_gather_at_unclamped_local_ids_is_rejected_where_it_reads() {
        // the ids of another chip's rows read outside this chip's shard
        Judged j = rejected(judgeGather(Layout.even(2).withoutClamp()));
        assertThat(j.alone().codes()).as(j.toString()).contains("INDEXED_BLOCK_OUTSIDE_SHARD");
        assertThat(j.alone().diagnostics().getFirst().stageId()).isEqualTo("gather_rows.0");
    }
}
