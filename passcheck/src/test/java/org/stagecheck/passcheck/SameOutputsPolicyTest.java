package org.stagecheck.passcheck;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ProgramBuilder;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * The law "same outputs" under a golden {@link Policy}: a pass that moves every output by exactly
 * one ulp breaks it bit for bit and keeps it within {@code ulp 1}; one that moves them by two ulps,
 * or by a relative 2^-10, breaks the tolerant policies too.
 */
class SameOutputsPolicyTest {
    /** x * (1 + 2^-23) is x moved one f32 ulp away from zero when x is a power of two. */
    private static final double ONE_ULP = 1 + 0x1p-23;
    private static final double TWO_ULPS = 1 + 0x1p-22;

    /**
     * A copy of an f32 input of eight powers of two (signs and exponents drawn) to an output, so
     * that a scaling by 1 + 2^-23 is exactly one ulp.
     */
    private static final Function<RandomGenerator, Generated> POWERS_OF_TWO = r -> {
        Program p = ProgramBuilder.program().named("copy")
                .tensor("x", DType.F32, TensorRole.INPUT, 1, 8)
                .tensor("y", DType.F32, TensorRole.OUTPUT, 1, 8)
                .buffer("b", DType.F32, 1, 8)
                .loadAll("load", "x", "b", ProgramBuilder.CORE)
                .storeAll("store", "b", "y", ProgramBuilder.CORE)
                .build();
        float[] x = new float[8];
        for (int i = 0; i < x.length; i++) {
            x[i] = (r.nextBoolean() ? 1 : -1) * (float) Math.scalb(1.0, r.nextInt(-20, 21));
        }
        return new Generated("eight powers of two", p, null, Map.of("x", Tensor.fromFloats(DType.F32, Shape.of(1, 8), x)), Map.of());
    };

    /** A pass that multiplies what every f32 Store writes by {@code factor} (a Generic inserted before it). */
    private static Pass scaleStores(double factor) {
        return Pass.of(p -> {
            List<BufferDecl> buffers = new ArrayList<>(p.buffers());
            List<Stage> stages = new ArrayList<>();
            for (Stage s : p.stages()) {
                BufferDecl in = s.ins().isEmpty() ? null : p.buffersByName().get(s.ins().getFirst());
                if (s.kind() instanceof StageKind.Store && in != null && in.dtype() == DType.F32) {
                    String scaled = in.name() + ".scaled";
                    buffers.add(new BufferDecl(scaled, DType.F32, in.shape(), in.site()));
                    stages.add(new Stage(s.id() + ".scale", s.site(), List.of(in.name()), List.of(scaled),
                            new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.f(factor))))));
                    stages.add(new Stage(s.id(), s.site(), List.of(scaled), s.outs(), s.kind()));
                } else {
                    stages.add(s);
                }
            }
            return new Program(p.name(), p.machine(), p.params(), p.tensors(), buffers, p.groups(), stages);
        });
    }

    private static PassCheckReport check(double factor, Law.SameOutputs law) {
        return PassCheck.of("scale by " + factor + " under " + law.policy().spelling(), scaleStores(factor))
                .generator(POWERS_OF_TWO).laws(new Law.WellFormed(), law).tries(100).run();
    }

    @Test
    void oneUlpBreaksBitExactness() {
        PassCheckReport r = check(ONE_ULP, Law.SameOutputs.bitExact());
        assertThat(r.passed()).isFalse();
        assertThat(r.failure().tryIndex()).isZero();
        assertThat(r.failure().violation().signature()).isEqualTo("same outputs: differ");
        assertThat(r.failure().violation().message()).contains("tensor 'y'", "[exact]", "8 of 8 elements mismatch");
    }

    @Test
    void oneUlpIsWithinUlp1AndWithinAnAllcloseOf1e6() {
        assertThat(check(ONE_ULP, Law.SameOutputs.within(new Policy.Ulp(1))).passed()).isTrue();
        assertThat(check(ONE_ULP, Law.SameOutputs.within(new Policy.AllClose(1e-6, 0))).passed()).isTrue();
    }

    @Test
    void beyondThePolicyBreaksIt() {
        PassCheckReport twoUlps = check(TWO_ULPS, Law.SameOutputs.within(new Policy.Ulp(1)));
        assertThat(twoUlps.passed()).isFalse();
        assertThat(twoUlps.failure().violation().message()).contains("[ulp 1]");
        PassCheckReport relative = check(1 + 0x1p-10, Law.SameOutputs.within(new Policy.AllClose(1e-6, 0)));
        assertThat(relative.passed()).isFalse();
        assertThat(relative.failure().violation().message()).contains("[allclose");
    }

    @Test
    void aDerivedBoundOfACopyIsZeroSoOneUlpBreaksIt() {
        assertThat(check(1, Law.SameOutputs.within(new Policy.Derived(1))).passed()).isTrue();
        assertThat(check(ONE_ULP, Law.SameOutputs.within(new Policy.Derived(1))).passed()).isFalse();
    }

    @Test
    @Tag("slow") // a sweep of generated programs
    void aTolerantPolicyStillHoldsForAnIdentityPassOnGeneratedPrograms() {
        PassCheck.of("identity, allclose", Pass.of(p -> p)).laws(Law.SameOutputs.within(new Policy.AllClose(1e-6, 0))).tries(60).check();
    }
}
