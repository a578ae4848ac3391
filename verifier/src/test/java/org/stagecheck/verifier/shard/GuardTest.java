package org.stagecheck.verifier.shard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.json.ExprSyntax;

/** Range tests on an index as {@code select} conditions write them (docs/verifier.md, "Sums over an index"). */
class GuardTest {
    /** in0 is the index {@code e}, in1 another index {@code f}; integer constants are themselves. */
    private static final Function<Expr, Affine> AFFINE = x -> switch (x) {
        case Expr.In in -> Affine.source(in.index() == 0 ? "e" : "f", 1);
        case Expr.IntConst c -> Affine.of(c.value());
        case Expr.Apply a when a.fn() == org.stagecheck.spec.ir.Fn.SUB && a.args().get(1) instanceof Expr.IntConst c ->
                Affine.source("e", 1).plus(Affine.of(-c.value()));
        default -> null;
    };

    private static Guard guard(String cond) throws Exception {
        return Guard.of(ExprSyntax.parse(cond), AFFINE);
    }

    @Test
    void comparisons_either_way_round_and_their_conjunction_are_one_half_open_range() throws Exception {
        assertThat(guard("and(ge(in0, 4), lt(in0, 8))")).isEqualTo(new Guard("e", 4, 8));
        assertThat(guard("and(gt(in0, 3), le(in0, 7))")).isEqualTo(new Guard("e", 4, 8));
        assertThat(guard("and(le(4, in0), gt(8, in0))")).isEqualTo(new Guard("e", 4, 8));
        // in0 - 4 stays in i32 only for in0 >= -2^31 + 4
        assertThat(guard("ge(sub(in0, 4), 0)")).isEqualTo(new Guard("e", 4, Long.MAX_VALUE, Integer.MIN_VALUE + 4L, Integer.MAX_VALUE));
        assertThat(guard("lt(in0, 2)")).isEqualTo(new Guard("e", Long.MIN_VALUE, 2));
    }

    @Test
    void tests_on_two_indices_or_not_comparisons_are_no_range() throws Exception {
        assertThat(guard("and(ge(in0, 4), lt(in1, 8))")).isNull();
        assertThat(guard("eq(in0, 4)")).isNull();
        assertThat(guard("ge(in0, in1)")).isNull();
        assertThat(guard("ge(index(1), 4)")).isNull();
    }

    @Test
    void a_mask_is_within_a_guard_only_when_every_value_it_admits_is() {
        Guard g = new Guard("e", 4, 8);
        assertThat(g.admits(Slices.of(4, 8))).isTrue();
        assertThat(g.admits(Slices.of(5, 7))).isTrue();
        assertThat(g.admits(Slices.empty())).isTrue();
        assertThat(g.admits(Slices.of(3, 8))).isFalse();
        assertThat(g.admits(Slices.of(4, 9))).isFalse();
        assertThat(g.within(0, 6)).isEqualTo(Slices.of(4, 6));
    }

    @Test
    void a_comparison_is_exact_only_where_its_sides_stay_in_i32() throws Exception {
        // in0 + (2^31 - 1) wraps for every in0 >= 1: the test reads as in0 >= 0 but holds in i32 only at 0
        Guard wraps = guard("ge(sub(in0, -2147483647), 2147483647)");
        assertThat(wraps.lo()).isZero();
        assertThat(wraps.exactOn(0, 0)).isTrue();
        assertThat(wraps.exactOn(0, 1)).isFalse();
        assertThat(wraps.exactOver(v -> new long[] {0, 7})).isFalse();
        Guard shifted = guard("and(ge(sub(in0, 4), 0), lt(sub(in0, 4), 4))");
        assertThat(shifted.exactOver(v -> new long[] {0, 7})).isTrue();
        assertThat(shifted.exactOn(Integer.MIN_VALUE, 0)).as("in0 - 4 wraps below -2^31 + 4").isFalse();
    }
}
