package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Transposing, reducing along the other axis and transposing back is the reduction itself
 * (docs/verifier.md, "Canonical sums"): the unsplit program sums (or takes the maximum of) each
 * row of {@code x} ({@code [4, 4]}); each of two chips (replicas) reduces it by way of its
 * transpose.
 */
class TransposedReductionTest {

    private static SplitText parent(String fn) {
        return new SplitText("row-" + fn, 1).input("x", 0, 4, 4).reduce(0, "y", fn, 1, "x").output("y", 0, "y");
    }

    /** Chip c: x, then {@code steps} ("t": transpose, "r0"/"r1": reduce along axis 0/1 by {@code fn}). */
    private static SplitText split(String fn, String... steps) {
        SplitText s = new SplitText("row-" + fn + "-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 4, 4).shard("x." + c, "x", 0, 0, 4, 4);
            String at = "x." + c;
            for (int k = 0; k < steps.length; k++) {
                String next = "v" + k + "." + c;
                if (steps[k].equals("t")) {
                    s.transpose(c, next, at);
                } else {
                    s.reduce(c, next, fn, steps[k].equals("r0") ? 0 : 1, at);
                }
                at = next;
            }
            s.output("y." + c, c, at).shard("y." + c, "y", 0, 0, 4, 4);
        }
        return s;
    }

    @Test
    void transpose_reduce_transpose_back_is_the_reduction_along_the_other_axis() {
        for (String fn : new String[] {"sum", "max"}) {
            SplitText.Judged j = split(fn, "t", "r0", "t").judge(parent(fn));
            assertThat(j.agrees()).as(fn + ": " + j).isTrue();
            assertThat(j.alone().codes()).as(fn + ": " + j).isEmpty();
            assertThat(j.withParent().codes()).as(fn + ": " + j).isEmpty();
        }
        // twice transposed first: no transpose at all
        SplitText.Judged j = split("sum", "t", "t", "r1").judge(parent("sum"));
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    @Test
    void the_column_reductions_transposed_or_another_reduction_are_other_values() {
        // column sums [1, 4] transposed to [4, 1]: the shape of the row sums, not their value
        SplitText.Judged columns = split("sum", "r0", "t").judge(parent("sum"));
        assertThat(columns.agrees()).as(columns.toString()).isFalse();
        assertThat(columns.withParent().codes()).as(columns.toString()).containsOnly("LOGICAL_OUTPUT_DIFFERS");
        assertThat(columns.withParent().diagnostics()).as(columns.toString()).allSatisfy(d -> assertThat(d.stageId()).startsWith("store_y."));
        // the maximum by way of the transpose where the parent sums
        SplitText.Judged max = split("max", "t", "r0", "t").judge(parent("sum"));
        assertThat(max.agrees()).as(max.toString()).isFalse();
        assertThat(max.withParent().codes()).as(max.toString()).containsOnly("LOGICAL_OUTPUT_DIFFERS");
    }
}
