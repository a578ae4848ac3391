package org.stagecheck.cuda;

import java.util.Map;
import java.util.Objects;

import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.Policy;

/**
 * A CUDA run held to the reference's as docs/cuda.md ("Numerics") bounds it: the same faults
 * (codes, stopping stage); every DRAM tensor bit-equal when the program calls no transcendental
 * function (a NaN matching any NaN: payloads are not portable), else within {@value #ULPS} ULPs
 * per element, because a 1-ULP difference in an exp may grow through what follows it.
 */
public final class ReferenceAgreement {
    /** The bound for programs with transcendental functions. */
    public static final long ULPS = 64;

    private ReferenceAgreement() {
    }

    /** The policy a program's outputs are judged by. */
    public static Policy policy(Program p) {
        return hasTranscendental(p) ? new Policy.Ulp(ULPS) : new Policy.ExactAnyNaN();
    }

    /** Null when {@code actual} agrees with {@code reference}; else the first disagreement, in one line. */
    public static String disagreement(Program p, RunResult reference, RunResult actual) {
        if (!reference.faults().stream().map(d -> d.code()).toList().equals(actual.faults().stream().map(d -> d.code()).toList())
                || !Objects.equals(reference.stoppedAtStage(), actual.stoppedAtStage())) {
            return "faults differ: reference " + reference.faults().stream().map(d -> d.code()).toList() + " at " + reference.stoppedAtStage()
                    + ", cuda " + actual.faults().stream().map(d -> d.render()).toList() + " at " + actual.stoppedAtStage();
        }
        if (!reference.ok()) {
            return null;
        }
        Policy policy = policy(p);
        for (Map.Entry<String, Tensor> e : reference.tensors().entrySet()) {
            Tensor a = actual.tensors().get(e.getKey());
            if (a == null) {
                return "tensor '" + e.getKey() + "' missing";
            }
            Comparison c = Comparator.compare(e.getValue(), a, policy);
            if (!c.passed()) {
                return "tensor '" + e.getKey() + "': " + c.summary();
            }
        }
        return null;
    }

    /** Whether any expression of the program calls exp, log, tanh, sigmoid, sin, cos or rsqrt. */
    public static boolean hasTranscendental(Program p) {
        return p.stages().stream().anyMatch(ReferenceAgreement::transcendental);
    }

    private static boolean transcendental(Stage st) {
        return switch (st.kind()) {
            case StageKind.Compute c when c.op() instanceof ComputeOp.Generic g -> transcendental(g.expr());
            case StageKind.Scalar s -> s.body().results().stream().anyMatch(ReferenceAgreement::transcendental);
            case StageKind.AllReduce a -> transcendental(a.combine().expr());
            case StageKind.Compute c -> false;
            case StageKind.Load l -> false;
            case StageKind.Store s -> false;
            case StageKind.Recv r -> false;
        };
    }

    /** exp, log, tanh, sigmoid, sin, cos, rsqrt: the float functions other than sqrt and recip. */
    private static boolean transcendental(Expr e) {
        return switch (e) {
            case Expr.Apply a -> (a.fn().kind() == Fn.Kind.FLOAT_UNARY && a.fn() != Fn.SQRT && a.fn() != Fn.RECIP)
                    || a.args().stream().anyMatch(ReferenceAgreement::transcendental);
            case Expr.Cast c -> transcendental(c.arg());
            case Expr.In in -> false;
            case Expr.FloatConst c -> false;
            case Expr.IntConst c -> false;
            case Expr.ParamRef pr -> false;
            case Expr.Index ix -> false;
        };
    }
}
