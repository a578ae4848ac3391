package org.stagecheck.verifier.algebra;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Adversarial review of the checker against the reference evaluator: siblings of the split
 * classes earlier reviews covered (docs/verifier.md, "Adversarial review"). Each case is a split
 * run on the evaluator beside its unsplit parent and checked alone and given the parent; each
 * asserts the evaluator's judgement and the verdict. Wrong splits the checker accepted before are
 * the integer reductions whose identities do not hold under wrapping arithmetic; the right split
 * it rejected before is a clamp of a max-partial.
 */
class AdversarialReview4Test {

    private static void rejectedAndWrong(SplitText.Judged j, String code) {
        assertThat(j.agrees()).as("the evaluator shows the split wrong: " + j).isFalse();
        assertThat(j.withParent().codes()).as(j.toString()).contains(code);
    }

    private static void acceptedAndRight(SplitText.Judged j) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isEmpty();
    }

    /** A right split the checker rejects (a documented limit, not a hole): the evaluator agrees, the checker reports {@code code}. */
    private static void rightButRejected(SplitText.Judged j, String code) {
        assertThat(j.agrees()).as(j.toString()).isTrue();
        assertThat(j.withParent().codes()).as(j.toString()).isNotEmpty().containsOnly(code);
    }

    private static List<String> names(String b, int n) {
        return IntStream.range(0, n).mapToObj(c -> b + "." + c).toList();
    }

    /** Outputs {@code y.c} of buffers {@code b.c}, each the whole of {@code y} (rows {@code rows}). */
    private static SplitText outputs(SplitText s, String b, int n, int rows) {
        for (int c = 0; c < n; c++) {
            s.output("y." + c, c, b + "." + c).shard("y." + c, "y", 0, 0, rows, rows);
        }
        return s;
    }

    // ---- integer reductions: identities that wrapping arithmetic breaks ----

    /** Parent: {@code e = x + j * 2^30} (i32, wrapping: column 2 is -2^31), {@code y} the reduction {@code fn} along axis 1 of {@code f(e)}. */
    private static SplitText intParent(String f, String fn) {
        SplitText p = new SplitText("int-red", 1).input("x", "i32", 0, 2, 8);
        p.generic(0, "e", "i32", new int[] {2, 8}, "add(in0, mul(index(1), 1073741824))", "x");
        p.generic(0, "f", "i32", new int[] {2, 8}, f, "e").reduce(0, "y", fn, 1, "f");
        return p.output("y", 0, "y");
    }

    /** Chip c reduces its columns of {@code e} with {@code fn}, all-reduces with {@code fn} and applies {@code after} to the whole. */
    private static SplitText.Judged intSplit(String fn, String after, String parentF, String parentFn) {
        SplitText s = new SplitText("int-red-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, "i32", c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.generic(c, "e." + c, "i32", new int[] {2, 4}, "add(in0, mul(add(index(1), " + 4 * c + "), 1073741824))", "x." + c);
            s.reduce(c, "m." + c, fn, 1, "e." + c);
        }
        s.allReduce("ar", fn, "x", names("m", 2), names("r", 2));
        for (int c = 0; c < 2; c++) {
            s.generic(c, "o." + c, "i32", new int[] {2, 1}, after, "r." + c);
        }
        return outputs(s, "o", 2, 2).judge(intParent(parentF, parentFn));
    }

    @Test
    void an_i32_max_of_x_plus_k_is_not_the_max_plus_k() {
        // the column maxima are 2^30; plus 2^30 wraps to -2^31, while max(e + 2^30) is 2^30 (column 0)
        rejectedAndWrong(intSplit("max", "add(in0, 1073741824)", "add(in0, 1073741824)", "max"), "LOGICAL_OUTPUT_DIFFERS");
    }

    @Test
    void an_i32_max_of_the_negation_is_not_the_negated_min() {
        // min(e) is -2^31, whose negation wraps to -2^31; max(-e) is 2^30
        rejectedAndWrong(intSplit("min", "neg(in0)", "neg(in0)", "max"), "LOGICAL_OUTPUT_DIFFERS");
    }

    @Test
    void an_i32_sum_of_quotients_is_not_the_quotient_of_the_sum() {
        rejectedAndWrong(intSplit("sum", "div(in0, 2)", "div(in0, 2)", "sum"), "LOGICAL_OUTPUT_DIFFERS");
        rejectedAndWrong(intSplit("sum", "div(in0, 3)", "div(in0, 3)", "sum"), "LOGICAL_OUTPUT_DIFFERS");
    }

    @Test
    void an_i32_sum_of_products_is_the_product_of_the_sum() {
        // multiplication distributes over addition modulo 2^32
        acceptedAndRight(intSplit("sum", "mul(in0, 3)", "mul(in0, 3)", "sum"));
    }

    // ---- monotone functions of max-partials: decreasing ones, clamps ----

    /** Parent {@code y = f(max_j x)} (x [2, 8]); chip c takes the max of its 4 columns, applies {@code f} and all-reduces with {@code pool}. */
    private static SplitText.Judged maxOf(String f, String pool) {
        SplitText p = new SplitText("rowmax", 1).input("x", 0, 2, 8).reduce(0, "m", "max", 1, "x");
        p.generic(0, "y", new int[] {2, 1}, f, "m").output("y", 0, "y");
        SplitText s = new SplitText("rowmax-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.reduce(c, "m." + c, "max", 1, "x." + c).generic(c, "t." + c, new int[] {2, 1}, f, "m." + c);
        }
        s.allReduce("ar", pool, "x", names("t", 2), names("r", 2));
        return outputs(s, "r", 2, 2).judge(p);
    }

    @Test
    void decreasing_functions_of_a_max_partial_complete_under_a_min_only() {
        acceptedAndRight(maxOf("sub(0.5, in0)", "min"));
        acceptedAndRight(maxOf("mul(in0, -0.5)", "min"));
        acceptedAndRight(maxOf("div(in0, -2.0)", "min"));
        acceptedAndRight(maxOf("sigmoid(neg(in0))", "min"));
        rejectedAndWrong(maxOf("sub(0.5, in0)", "max"), "ALLREDUCE_POOL");
        rejectedAndWrong(maxOf("mul(in0, -0.5)", "max"), "ALLREDUCE_POOL");
        // 2 / (m - 0.5) is decreasing on each side of 0.5 but not across it
        rejectedAndWrong(maxOf("div(2.0, sub(in0, 0.5))", "min"), "PARTIAL_NONLINEAR");
    }

    @Test
    void a_clamp_of_a_max_partial_keeps_it_a_max_partial() {
        // max_c min(m_c, k) = min(max_c m_c, k): min with a value the same on every chip is nondecreasing
        acceptedAndRight(maxOf("min(in0, 0.5)", "max"));
        acceptedAndRight(maxOf("max(in0, 0.5)", "max"));
        acceptedAndRight(maxOf("exp(min(in0, 0.5))", "max"));
        rejectedAndWrong(maxOf("min(in0, 0.5)", "min"), "ALLREDUCE_POOL");
        rejectedAndWrong(maxOf("max(in0, 0.5)", "min"), "ALLREDUCE_POOL");
    }

    @Test
    void monotone_forms_the_checker_does_not_recognise_are_rejected_though_right() {
        // 1 / exp(m) is decreasing, but recip is not monotone on the whole line
        rightButRejected(maxOf("recip(exp(in0))", "min"), "PARTIAL_NONLINEAR");
        // select(m > k, m, k) is max(m, k), but a comparison of a partial is not recognised
        rightButRejected(maxOf("select(gt(in0, 0.5), in0, 0.5)", "max"), "PARTIAL_NONLINEAR");
        // -max(m, k) completes to min(-M, -k), a term the parent's -max(M, k) is not (alone it is accepted)
        SplitText.Judged negClamp = maxOf("neg(max(in0, 0.5))", "min");
        assertThat(negClamp.alone().codes()).as(negClamp.toString()).isEmpty();
        rightButRejected(negClamp, "LOGICAL_OUTPUT_DIFFERS");
    }

    // ---- padding siblings of all-gathers built from all-reduces ----

    /** Parent {@code y = tanh(x)} [2, 8]; chip c lays its columns beside {@code fill} and all-reduces with {@code pool}. */
    private static SplitText.Judged gather(String fill, String pool) {
        SplitText p = new SplitText("tanh", 1).input("x", 0, 2, 8).generic(0, "y", new int[] {2, 8}, "tanh(in0)", "x").output("y", 0, "y");
        SplitText s = new SplitText("tanh-gather", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.generic(c, "a." + c, new int[] {2, 4}, "tanh(in0)", "x." + c).generic(c, "pad." + c, new int[] {2, 4}, fill, "a." + c);
            if (c == 0) {
                s.concat(c, "g." + c, 1, "a." + c, "pad." + c);
            } else {
                s.concat(c, "g." + c, 1, "pad." + c, "a." + c);
            }
        }
        s.allReduce("ar", pool, "y", names("g", 2), names("r", 2));
        return outputs(s, "r", 2, 2).judge(p);
    }

    @Test
    void padding_that_is_not_the_pools_identity_is_rejected() {
        acceptedAndRight(gather("inf", "min"));
        acceptedAndRight(gather("-0.0", "sum"));
        rejectedAndWrong(gather("inf", "max"), "ALLREDUCE_POOL");
        rejectedAndWrong(gather("-inf", "min"), "ALLREDUCE_POOL");
        rejectedAndWrong(gather("-inf", "sum"), "ALLREDUCE_POOL");
    }

    // ---- partials through slices, concats, transposes, reshapes and broadcasts ----

    /** Parent {@code y = after(x w, z)}, x [2, 8], w [8, 4], z [2, 4]. */
    private static SplitText mm(String after) {
        SplitText p = new SplitText("mm", 1).input("x", 0, 2, 8).input("w", 0, 8, 4).input("z", 0, 2, 4).matmul(0, "p", "x", "w", false, false);
        return p.generic(0, "y", new int[] {2, 4}, after, "p", "z").output("y", 0, "y");
    }

    /** Chips holding K windows of {@code 8 / n}: {@code p.c = x.c w.c} [2, 4], and a replica {@code z.c} of z. */
    private static SplitText kSplit(int n) {
        SplitText s = new SplitText("mm-split", n);
        int k = 8 / n;
        for (int c = 0; c < n; c++) {
            s.input("x." + c, c, 2, k).shard("x." + c, "x", 1, k * c, k * c + k, 8);
            s.input("w." + c, c, k, 4).shard("w." + c, "w", 0, k * c, k * c + k, 8);
            s.input("z." + c, c, 2, 4).shard("z." + c, "z", 0, 0, 2, 2);
            s.matmul(c, "p." + c, "x." + c, "w." + c, false, false);
        }
        return s;
    }

    /** Parent: {@code y = concat(x w, z)} along {@code axis}. */
    private static SplitText concatParent(int axis, String second) {
        return new SplitText("mm", 1).input("x", 0, 2, 8).input("w", 0, 8, 4).input("z", 0, 2, 4).matmul(0, "p", "x", "w", false, false)
                .concat(0, "y", axis, "p", second).output("y", 0, "y");
    }

    @Test
    void slices_of_a_partial_at_different_places_do_not_combine() {
        SplitText s = kSplit(2);
        s.slice(0, "q.0", "p.0", new int[] {0, 0}, 2, 2).slice(1, "q.1", "p.1", new int[] {0, 2}, 2, 2);
        s.allReduce("ar", "sum", "w", names("q", 2), names("r", 2));
        for (int c = 0; c < 2; c++) {
            s.concat(c, "o." + c, 1, "r." + c, "r." + c);
        }
        rejectedAndWrong(outputs(s, "o", 2, 2).judge(mm("in0")), "ALLREDUCE_VIEW_MISMATCH");
    }

    @Test
    void a_partial_beside_a_full_value_counts_the_value_once_per_chip() {
        SplitText both = kSplit(2);
        for (int c = 0; c < 2; c++) {
            both.concat(c, "q." + c, 1, "p." + c, "z." + c);
        }
        both.allReduce("ar", "sum", "w", names("q", 2), names("r", 2));
        rejectedAndWrong(outputs(both, "r", 2, 2).judge(concatParent(1, "z")), "PARTIAL_PLUS_FULL");
        SplitText twice = kSplit(2);
        for (int c = 0; c < 2; c++) {
            twice.concat(c, "q." + c, 0, "p." + c, "p." + c);
        }
        twice.allReduce("ar", "sum", "w", names("q", 2), names("r", 2));
        // right, accepted alone; given the parent, the partials' concat completes to the sum of its
        // parts placed where they went, a term the parent's concat of whole values is not
        SplitText.Judged j = outputs(twice, "r", 2, 4).judge(concatParent(0, "p"));
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        rightButRejected(j, "LOGICAL_OUTPUT_DIFFERS");
    }

    @Test
    void a_full_value_beside_one_chips_partial_and_zeros_beside_the_others_is_rejected_given_the_parent() {
        // right (the sum holds z once), accepted alone; given the parent the concat's terms do not meet
        SplitText s = kSplit(2);
        s.concat(0, "q.0", 1, "p.0", "z.0");
        s.generic(1, "zz.1", new int[] {2, 4}, "0.0", "z.1").concat(1, "q.1", 1, "p.1", "zz.1");
        s.allReduce("ar", "sum", "w", names("q", 2), names("r", 2));
        SplitText.Judged j = outputs(s, "r", 2, 2).judge(concatParent(1, "z"));
        assertThat(j.alone().codes()).as(j.toString()).isEmpty();
        rightButRejected(j, "LOGICAL_OUTPUT_DIFFERS");
    }

    /** Parent {@code y = transpose(x w)} [4, 4]; chip c applies {@code plan[c]} (t: transpose, r: reshape, n: copy) to its partial before the sum. */
    private static SplitText.Judged square(String plan) {
        SplitText parent = new SplitText("mmT", 1).input("x", 0, 4, 8).input("w", 0, 8, 4).matmul(0, "p", "x", "w", false, false)
                .transpose(0, "y", "p").output("y", 0, "y");
        SplitText s = new SplitText("square-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 4, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.input("w." + c, c, 4, 4).shard("w." + c, "w", 0, 4 * c, 4 * c + 4, 8);
            s.matmul(c, "p." + c, "x." + c, "w." + c, false, false);
            switch (plan.charAt(c)) {
                case 't' -> s.transpose(c, "q." + c, "p." + c);
                case 'r' -> s.reshape(c, "q." + c, new int[] {4, 4}, "p." + c);
                default -> s.generic(c, "q." + c, new int[] {4, 4}, "in0", "p." + c);
            }
        }
        s.allReduce("ar", "sum", "w", names("q", 2), names("r", 2));
        return outputs(s, "r", 2, 4).judge(parent);
    }

    @Test
    void a_square_partial_transposed_on_one_chip_only_is_rejected() {
        acceptedAndRight(square("tt"));
        rejectedAndWrong(square("tn"), "ALLREDUCE_VIEW_MISMATCH");
        rejectedAndWrong(square("rt"), "ALLREDUCE_VIEW_MISMATCH");
        rejectedAndWrong(square("rr"), "LOGICAL_OUTPUT_DIFFERS");
    }

    /** Parent {@code y = after(x w, z)} with w [8, 1]: a [2, 1] product broadcast against z [2, 4]. */
    private static SplitText mv(String after) {
        return new SplitText("mv", 1).input("x", 0, 2, 8).input("w", 0, 8, 1).input("z", 0, 2, 4).matmul(0, "p", "x", "w", false, false)
                .generic(0, "y", new int[] {2, 4}, after, "p", "z").output("y", 0, "y");
    }

    /** Chip c broadcasts its [2, 1] partial by {@code f[c]} (over the partial and z) before the sum all-reduce. */
    private static SplitText.Judged broadcast(String parentAfter, String f0, String f1) {
        SplitText s = new SplitText("mv-split", 2);
        String[] f = {f0, f1};
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.input("w." + c, c, 4, 1).shard("w." + c, "w", 0, 4 * c, 4 * c + 4, 8);
            s.input("z." + c, c, 2, 4).shard("z." + c, "z", 0, 0, 2, 2);
            s.matmul(c, "p." + c, "x." + c, "w." + c, false, false).generic(c, "q." + c, new int[] {2, 4}, f[c], "p." + c, "z." + c);
        }
        s.allReduce("ar", "sum", "w", names("q", 2), names("r", 2));
        return outputs(s, "r", 2, 2).judge(mv(parentAfter));
    }

    @Test
    void broadcasts_of_a_partial_stay_linear_and_a_broadcast_sum_is_added_once() {
        acceptedAndRight(broadcast("mul(in0, in1)", "mul(in0, in1)", "mul(in0, in1)"));
        acceptedAndRight(broadcast("add(in0, in1)", "add(in0, in1)", "mul(in0, 1.0)"));
        acceptedAndRight(broadcast("add(in0, in1)", "add(in0, in1)", "in0"));
        acceptedAndRight(broadcast("add(in0, in1)", "add(in0, in1)", "add(in0, 0.0)"));
        rejectedAndWrong(broadcast("add(in0, in1)", "add(in0, in1)", "add(in0, in1)"), "PARTIAL_PLUS_FULL");
    }

    @Test
    void a_broadcast_partial_summed_along_the_broadcast_axis_is_accepted() {
        SplitText parent = new SplitText("mv", 1).input("x", 0, 2, 8).input("w", 0, 8, 1).matmul(0, "p", "x", "w", false, false)
                .generic(0, "b", new int[] {2, 4}, "in0", "p").reduce(0, "y", "sum", 1, "b").output("y", 0, "y");
        SplitText s = new SplitText("mv-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.input("w." + c, c, 4, 1).shard("w." + c, "w", 0, 4 * c, 4 * c + 4, 8);
            s.matmul(c, "p." + c, "x." + c, "w." + c, false, false);
            s.generic(c, "b." + c, new int[] {2, 4}, "in0", "p." + c).reduce(c, "q." + c, "sum", 1, "b." + c);
        }
        s.allReduce("ar", "sum", "w", names("q", 2), names("r", 2));
        acceptedAndRight(outputs(s, "r", 2, 2).judge(parent));
    }

    // ---- a partial reaching an output through part of a store ----

    @Test
    void a_partial_left_in_the_part_of_a_buffer_a_reduced_store_does_not_cover_is_rejected() {
        SplitText scratch = kSplit(2);
        scratch.allReduce("ar", "sum", "w", names("p", 2), names("r", 2));
        for (int c = 0; c < 2; c++) {
            scratch.tensor("s." + c, "scratch", c, 2, 4).store("st_p_" + c, c, "p." + c, "s." + c, "0", "0");
            scratch.slice(c, "h." + c, "r." + c, new int[] {0, 0}, 2, 2).store("st_h_" + c, c, "h." + c, "s." + c, "0", "0");
            scratch.load("o." + c, c, "s." + c, new int[] {2, 4}, "0", "0");
        }
        rejectedAndWrong(outputs(scratch, "o", 2, 2).judge(mm("in0")), "PARTIAL_RELOAD_MIXED");

        SplitText over = kSplit(2);
        over.allReduce("ar", "sum", "w", names("p", 2), names("r", 2));
        for (int c = 0; c < 2; c++) {
            over.output("y." + c, c, "r." + c).shard("y." + c, "y", 0, 0, 2, 2);
            over.slice(c, "h." + c, "p." + c, new int[] {0, 2}, 2, 2).store("st_h_" + c, c, "h." + c, "y." + c, "0", "2");
        }
        rejectedAndWrong(over.judge(mm("in0")), "PARTIAL_STORE");

        SplitText half = kSplit(2);
        for (int c = 0; c < 2; c++) {
            half.slice(c, "h." + c, "p." + c, new int[] {0, 0}, 2, 2);
        }
        half.allReduce("ar", "sum", "w", names("h", 2), names("r", 2));
        for (int c = 0; c < 2; c++) {
            half.slice(c, "g." + c, "p." + c, new int[] {0, 2}, 2, 2).concat(c, "o." + c, 1, "r." + c, "g." + c);
        }
        rejectedAndWrong(outputs(half, "o", 2, 2).judge(mm("in0")), "PARTIAL_STORE");
    }

    // ---- all-reduces over groups of a 2x2 mesh ----

    /** Four chips: level 1 all-reduces pairs {@code plan[0]}, {@code plan[1]}; level 2 pairs {@code plan[2]}, {@code plan[3]}. */
    private static SplitText.Judged mesh(int[][] plan) {
        SplitText s = kSplit(4);
        String[] level = {"p", "p", "a", "a"};
        String[] out = {"a", "a", "r", "r"};
        for (int i = 0; i < 4; i++) {
            int[] g = plan[i];
            s.allReduce("ar" + i, "sum", "w", List.of(level[i] + "." + g[0], level[i] + "." + g[1]), List.of(out[i] + "." + g[0], out[i] + "." + g[1]), g);
        }
        return outputs(s, "r", 4, 2).judge(mm("in0"));
    }

    @Test
    void a_two_level_all_reduce_completes_when_each_second_level_group_takes_one_chip_of_each_first_level_group() {
        acceptedAndRight(mesh(new int[][] {{0, 1}, {2, 3}, {0, 2}, {1, 3}}));
        acceptedAndRight(mesh(new int[][] {{0, 1}, {2, 3}, {0, 3}, {1, 2}}));
        rejectedAndWrong(mesh(new int[][] {{0, 1}, {2, 3}, {0, 1}, {2, 3}}), "ALLREDUCE_OVERLAP");
        rejectedAndWrong(mesh(new int[][] {{0, 2}, {1, 3}, {0, 2}, {1, 3}}), "ALLREDUCE_OVERLAP");
    }

    @Test
    void a_second_level_all_reduce_that_misses_a_group_or_takes_one_twice_is_rejected() {
        SplitText missing = kSplit(4);
        missing.allReduce("ar1a", "sum", "w", List.of("p.0", "p.1"), List.of("a.0", "a.1"), new int[] {0, 1});
        missing.allReduce("ar1b", "sum", "w", List.of("p.2", "p.3"), List.of("a.2", "a.3"), new int[] {2, 3});
        missing.allReduce("ar2", "sum", "w", List.of("a.0", "a.2"), List.of("r.0", "r.2"), new int[] {0, 2});
        missing.generic(1, "r.1", new int[] {2, 4}, "in0", "a.1").generic(3, "r.3", new int[] {2, 4}, "in0", "a.3");
        rejectedAndWrong(outputs(missing, "r", 4, 2).judge(mm("in0")), "PARTIAL_STORE");

        SplitText three = kSplit(4);
        three.allReduce("ar1a", "sum", "w", List.of("p.0", "p.1"), List.of("a.0", "a.1"), new int[] {0, 1});
        three.allReduce("ar1b", "sum", "w", List.of("p.2", "p.3"), List.of("a.2", "a.3"), new int[] {2, 3});
        three.allReduce("ar2", "sum", "w", List.of("a.0", "a.2", "a.3"), List.of("r.0", "r.2", "r.3"), new int[] {0, 2, 3});
        three.allReduce("ar3", "sum", "w", List.of("a.1", "a.2"), List.of("r.1", "b.2"), new int[] {1, 2});
        rejectedAndWrong(outputs(three, "r", 4, 2).judge(mm("in0")), "ALLREDUCE_OVERLAP");
    }
    @Test
    void a_clamp_by_a_value_that_differs_from_chip_to_chip_is_rejected() {
        // chip c clamps by its own column 0 of x: the chips' terms differ, and so does max_c min(m_c, x_c0) from min(M, x_0)
        SplitText p = new SplitText("rowmax", 1).input("x", 0, 2, 8).reduce(0, "m", "max", 1, "x");
        p.slice(0, "k", "x", new int[] {0, 0}, 2, 1).generic(0, "y", new int[] {2, 1}, "min(in0, in1)", "m", "k").output("y", 0, "y");
        SplitText s = new SplitText("rowmax-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.reduce(c, "m." + c, "max", 1, "x." + c).slice(c, "k." + c, "x." + c, new int[] {0, 0}, 2, 1);
            s.generic(c, "t." + c, new int[] {2, 1}, "min(in0, in1)", "m." + c, "k." + c);
        }
        s.allReduce("ar", "max", "x", names("t", 2), names("r", 2));
        SplitText.Judged j = outputs(s, "r", 2, 2).judge(p);
        assertThat(j.agrees()).as(j.toString()).isFalse();
        assertThat(j.alone().codes()).as(j.toString()).isNotEmpty();
        assertThat(j.withParent().codes()).as(j.toString()).isNotEmpty();
    }

    @Test
    void a_clamp_after_the_maximum_is_the_maximum_of_the_clamped_values() {
        // the parent clamps each element before its row max, the split each chip's max: min(., k) commutes with max
        acceptedAndRight(intSplit("max", "min(in0, 536870912)", "min(in0, 536870912)", "max"));
        SplitText p = new SplitText("rowmax", 1).input("x", 0, 2, 8).generic(0, "c", new int[] {2, 8}, "min(in0, 0.25)", "x");
        p.reduce(0, "y", "max", 1, "c").output("y", 0, "y");
        SplitText s = new SplitText("rowmax-split", 2);
        for (int c = 0; c < 2; c++) {
            s.input("x." + c, c, 2, 4).shard("x." + c, "x", 1, 4 * c, 4 * c + 4, 8);
            s.reduce(c, "m." + c, "max", 1, "x." + c).generic(c, "t." + c, new int[] {2, 1}, "min(in0, 0.25)", "m." + c);
        }
        s.allReduce("ar", "max", "x", names("t", 2), names("r", 2));
        acceptedAndRight(outputs(s, "r", 2, 2).judge(p));
    }

    /** As {@link #mesh} for the row maxima of x w: each chip's local maximum of its product, completed by max all-reduces. */
    private static SplitText.Judged meshMax(int[][] plan) {
        SplitText parent = new SplitText("rowmax", 1).input("x", 0, 2, 8).reduce(0, "m", "max", 1, "x").output("y", 0, "m");
        SplitText s = new SplitText("rowmax-mesh", 4);
        for (int c = 0; c < 4; c++) {
            s.input("x." + c, c, 2, 2).shard("x." + c, "x", 1, 2 * c, 2 * c + 2, 8).reduce(c, "p." + c, "max", 1, "x." + c);
        }
        String[] level = {"p", "p", "a", "a"};
        String[] out = {"a", "a", "r", "r"};
        for (int i = 0; i < 4; i++) {
            int[] g = plan[i];
            s.allReduce("ar" + i, "max", "x", List.of(level[i] + "." + g[0], level[i] + "." + g[1]), List.of(out[i] + "." + g[0], out[i] + "." + g[1]), g);
        }
        return outputs(s, "r", 4, 2).judge(parent);
    }

    @Test
    void a_two_level_max_all_reduce_that_pairs_a_group_with_itself_misses_the_other_group() {
        acceptedAndRight(meshMax(new int[][] {{0, 1}, {2, 3}, {0, 2}, {1, 3}}));
        // a max is idempotent, so taking a group twice is no overlap; but chips 0 and 1 never see chips 2 and 3
        rejectedAndWrong(meshMax(new int[][] {{0, 1}, {2, 3}, {0, 1}, {2, 3}}), "ALLREDUCE_GAP");
    }
}
