package org.stagecheck.spec.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;

/** The Compute ops' shape and dtype rules: what each derives, and each breach under its one rule. */
class OpRulesTest {
    private static final Site CORE = Site.of(0, 0, 0);

    private static BufferDecl b(String name, DType dt, int... dims) {
        return new BufferDecl(name, dt, Shape.of(dims), CORE);
    }

    private static List<Rule> rules(List<Violation> v) {
        return v.stream().map(Violation::rule).toList();
    }

    @Test
    void theProductIsRankTwoOnlyAndHonoursTheTransposes() {
        assertThat(OpRules.product(Shape.of(3, 4), Shape.of(4, 5), false, false)).isEqualTo(new OpRules.Product(3, 4, 5));
        assertThat(OpRules.product(Shape.of(4, 3), Shape.of(5, 4), true, true)).isEqualTo(new OpRules.Product(3, 4, 5));
        assertThat(OpRules.product(Shape.of(3, 4), Shape.of(5, 4), false, false)).isNull();
        assertThat(OpRules.product(Shape.of(2, 3, 4), Shape.of(4, 5), false, false)).as("batched").isNull();
        assertThat(OpRules.product(Shape.of(3, 4), Shape.of(4, 5), false, false).shape()).isEqualTo(Shape.of(3, 5));
    }

    @Test
    void aMatMulBreachIsNamedByItsOneRule() {
        ComputeOp.MatMul plain = ComputeOp.MatMul.plain();
        assertThat(OpRules.matmul(plain, b("A", DType.BF16, 3, 4), b("B", DType.F16, 4, 5), b("C", DType.F32, 3, 5))).isEmpty();
        assertThat(rules(OpRules.matmul(plain, b("A", DType.F32, 2, 3, 4), b("B", DType.F32, 4, 5), b("C", DType.F32, 2, 3, 5))))
                .containsExactly(Rule.MATMUL_SHAPE);
        assertThat(rules(OpRules.matmul(plain, b("A", DType.F32, 3, 4), b("B", DType.F32, 4, 5), b("C", DType.F32, 5, 3))))
                .containsExactly(Rule.MATMUL_SHAPE);
        assertThat(rules(OpRules.matmul(plain, b("A", DType.I32, 3, 4), b("B", DType.I32, 4, 5), b("C", DType.I32, 3, 5))))
                .containsExactly(Rule.DTYPE_MISMATCH, Rule.DTYPE_MISMATCH, Rule.DTYPE_MISMATCH);
        assertThat(rules(OpRules.matmulBias(b("bias", DType.I32, 5), b("C", DType.F32, 3, 5)))).containsExactly(Rule.MATMUL_BIAS);
        assertThat(OpRules.matmulBias(b("bias", DType.BF16, 3, 1), b("C", DType.F32, 3, 5))).isEmpty();
        assertThat(rules(OpRules.matmulSpill(b("S", DType.F32, 5, 3), b("C", DType.BF16, 3, 5)))).containsExactly(Rule.MATMUL_SPILL);
        assertThat(OpRules.matmulSpill(b("S", DType.F32, 3, 5), b("C", DType.BF16, 3, 5))).isEmpty();
    }

    @Test
    void broadcastingAlignsOnTheRight() {
        assertThat(OpRules.broadcasts(Shape.of(5), Shape.of(3, 5))).isTrue();
        assertThat(OpRules.broadcasts(Shape.of(3, 1), Shape.of(3, 5))).isTrue();
        assertThat(OpRules.broadcasts(Shape.of(3), Shape.of(3, 5))).isFalse();
        assertThat(OpRules.broadcasts(Shape.of(1, 3, 5), Shape.of(3, 5))).isFalse();
        assertThat(rules(OpRules.generic(List.of(b("x", DType.F32, 3)), b("y", DType.F32, 3, 5)))).containsExactly(Rule.BROADCAST);
    }

    @Test
    void reduceAndLayoutDerivationsAndBreaches() {
        assertThat(OpRules.reduceShape(Shape.of(3, 5), 1)).isEqualTo(Shape.of(3, 1));
        assertThat(OpRules.reduceDtype(ReduceFn.ARGMAX, DType.BF16)).isEqualTo(DType.I32);
        assertThat(OpRules.reduceDtype(ReduceFn.MAX, DType.BF16)).isEqualTo(DType.BF16);
        assertThat(rules(OpRules.reduce(new ComputeOp.Reduce(ReduceFn.SUM, 2), b("x", DType.F32, 3, 5), b("y", DType.F32, 3, 1))))
                .containsExactly(Rule.REDUCE_AXIS);
        assertThat(rules(OpRules.reduce(new ComputeOp.Reduce(ReduceFn.ARGMAX, 1), b("x", DType.F32, 3, 0), b("y", DType.F32, 3, 1))))
                .containsExactly(Rule.EMPTY_REDUCE, Rule.DTYPE_MISMATCH);
        assertThat(OpRules.transposeShape(Shape.of(2, 3, 4), List.of(2, 0, 1))).isEqualTo(Shape.of(4, 2, 3));
        assertThat(OpRules.transposeShape(Shape.of(2, 3), List.of(1, 1))).isNull();
        assertThat(OpRules.concatShape(List.of(Shape.of(2, 3), Shape.of(2, 4)), 1)).isEqualTo(Shape.of(2, 7));
        assertThat(OpRules.concatShape(List.of(Shape.of(2, 3), Shape.of(3, 4)), 1)).isNull();
        assertThat(rules(OpRules.reshape(b("x", DType.F32, 2, 3), b("y", DType.BF16, 6)))).containsExactly(Rule.DTYPE_MISMATCH);
        assertThat(rules(OpRules.slice(new ComputeOp.Slice(List.of(1, 0)), b("x", DType.F32, 2, 3), b("y", DType.F32, 2, 3))))
                .containsExactly(Rule.LAYOUT_SHAPE);
    }

    @Test
    void portCountsArePerOp() {
        assertThat(rules(OpRules.ports(ComputeOp.MatMul.plain(), 1, 1))).containsExactly(Rule.PORT_COUNT);
        assertThat(rules(OpRules.ports(new ComputeOp.Concat(0), 0, 1))).containsExactly(Rule.PORT_COUNT);
        assertThat(OpRules.ports(new ComputeOp.Generic(org.stagecheck.spec.ir.Expr.f(1)), 0, 1)).isEmpty();
        assertThat(rules(OpRules.ports(new ComputeOp.Reshape(), 1, 2))).containsExactly(Rule.PORT_COUNT);
    }

    /** One rule, one code: no two rules share a code, and the code is the constant's name. */
    @Test
    void everyRuleHasItsOwnCode() {
        assertThat(java.util.Arrays.stream(Rule.values()).map(Rule::code).distinct().count()).isEqualTo(Rule.values().length);
        for (Rule r : Rule.values()) {
            assertThat(r.code()).isEqualTo(r.name());
            assertThat(r.summary()).isNotBlank();
        }
    }
}
