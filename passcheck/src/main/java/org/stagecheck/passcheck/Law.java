package org.stagecheck.passcheck;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Comparison;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.derive.DerivedBounds;
import org.stagecheck.backend.MathMode;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;

/**
 * A law a pass must keep (brief, "Property testing"): the child is well formed; its certificate
 * verifies against the parent; it computes the parent's outputs; the pass is idempotent; or a
 * law of the user's own ({@link Custom}).
 */
public sealed interface Law {
    String name();

    /** The violation on this application of the pass, if any. */
    Optional<Violation> check(Application a);

    /** One application of the pass: the parent with its run bindings, and what the pass made of it. */
    record Application(Program parent, Certificate parentCertificate, Map<String, Tensor> bound, Map<String, Long> params,
                       Pass.Result child, Pass pass, Backend backend) {}

    /** The child passes the structural validator. */
    record WellFormed() implements Law {
        @Override
        public String name() {
            return "well-formed";
        }

        @Override
        public Optional<Violation> check(Application a) {
            List<Diagnostic> ds = new Validator().validate(a.child().program());
            return ds.isEmpty() ? Optional.empty()
                    : Optional.of(new Violation(name(), name() + ": " + ds.getFirst().code(), ds.getFirst().render()));
        }
    }

    /**
     * The child's certificate verifies ({@link Verifier#verify}): against the parent when the
     * certificate claims a buffer remap of it, on its own otherwise (a rewrite that is no remap
     * claims nothing about the parent's stages). The signature names every distinct finding.
     */
    record CertificateVerifies() implements Law {
        @Override
        public String name() {
            return "certificate verifies";
        }

        @Override
        public Optional<Violation> check(Application a) {
            Certificate c = carriedOver(a.child().certificate(), a.parent(), a.child().program());
            VerifyReport r = new Verifier().verify(a.child().program(), c, c != null && c.remap() != null ? Parent.remap(a.parent()) : Parent.none());
            // every distinct finding in the signature, so that shrinking cannot trade the bug's finding for another's
            return r.holds() ? Optional.empty()
                    : Optional.of(new Violation(name(), name() + ": " + String.join(", ", new java.util.TreeSet<>(r.codes())),
                            r.diagnostics().getFirst().render()));
        }
    }

    /**
     * A certificate a pass passed through unchanged names its input's program hash: it is taken to
     * describe the pass's output (what a compiler that keeps a split's certificate means by it), so
     * its hash is the child's; a hash naming neither program is left for the verifier to refuse.
     */
    private static Certificate carriedOver(Certificate c, org.stagecheck.spec.ir.Program parent,
                                           org.stagecheck.spec.ir.Program child) {
        if (c == null || c.programHash() == null) {
            return c;
        }
        org.stagecheck.spec.json.ProgramCodec codec = new org.stagecheck.spec.json.ProgramCodec();
        return c.programHash().equals(codec.hash(parent)) ? c.withProgramHash(codec.hash(child)) : c;
    }

    /**
     * Parent and child, run on the same bound tensors and parameters, end with the same output and
     * state tensors under a golden tolerance {@link Policy} ({@link Comparator}, docs/golden.md,
     * "Tolerance policies"): bit for bit with {@link #bitExact()}, or within {@code ulp N},
     * {@code allclose}, {@code pcc} or {@code derived} (its per-element bound computed from the
     * parent on the same inputs) with {@link #within}. A run that faults must fault in the other
     * with the same code. The shrinking signature is {@code same outputs: differ} whatever the policy.
     */
    record SameOutputs(Policy policy) implements Law {
        public SameOutputs {
            java.util.Objects.requireNonNull(policy, "policy");
        }

        /** Every output and state element bit-equal (golden's {@code exact}). */
        public static SameOutputs bitExact() {
            return new SameOutputs(new Policy.Exact());
        }

        /** Every output and state tensor within {@code policy} of the parent's. */
        public static SameOutputs within(Policy policy) {
            return new SameOutputs(policy);
        }

        @Override
        public String name() {
            return "same outputs";
        }

        @Override
        public Optional<Violation> check(Application a) {
            RunResult before = a.backend().runChecked(a.parent(), a.bound(), a.params(), false);
            RunResult after = a.backend().runChecked(a.child().program(), a.bound(), a.params(), false);
            String faultBefore = before.ok() ? "none" : before.faults().getFirst().code();
            String faultAfter = after.ok() ? "none" : after.faults().getFirst().code();
            if (!faultBefore.equals(faultAfter)) {
                return Optional.of(new Violation(name(), name() + ": fault " + faultAfter + " instead of " + faultBefore,
                        "the parent's run ends with fault " + faultBefore + ", the child's with " + faultAfter
                                + (after.ok() ? "" : ": " + after.faults().getFirst().message())));
            }
            if (!before.ok()) {
                return Optional.empty();
            }
            Map<String, Tensor> tolerances = policy instanceof Policy.Derived ? derivedBounds(a) : Map.of();
            for (TensorDecl t : a.parent().tensors()) {
                if (!t.role().isResult()) {
                    continue;
                }
                Tensor got = after.tensor(t.name());
                if (got == null) {
                    return Optional.of(new Violation(name(), name() + ": differ", "tensor '" + t.name() + "': the child does not have it"));
                }
                Comparison c = Comparator.compare(before.tensor(t.name()), got, policy, tolerances.get(t.name()));
                if (!c.passed()) {
                    return Optional.of(new Violation(name(), name() + ": differ", "tensor '" + t.name() + "' (child against parent): " + c.summary()));
                }
            }
            return Optional.empty();
        }

        /** The parent's per-element bounds on these inputs; none when they cannot be computed (the comparison then says so). */
        private static Map<String, Tensor> derivedBounds(Application a) {
            try {
                return DerivedBounds.compute(a.parent(), a.bound(), a.params(), MathMode.PRECISE).bounds();
            } catch (DerivedBounds.BoundException e) {
                return Map.of();
            }
        }
    }

    /** Applying the pass to its own output changes nothing. */
    record Idempotent() implements Law {
        @Override
        public String name() {
            return "idempotent";
        }

        @Override
        public Optional<Violation> check(Application a) {
            Pass.Result again = a.pass().apply(a.child().program(), a.child().certificate());
            return again.program().equals(a.child().program()) ? Optional.empty()
                    : Optional.of(new Violation(name(), name(), "applying the pass to its output changed the program again"));
        }
    }

    /** A user's law: {@code check} returns null when it holds, else what went wrong (one sentence). */
    record Custom(String name, CustomCheck check) implements Law {
        @Override
        public Optional<Violation> check(Application a) {
            String problem = check.problem(a);
            return problem == null ? Optional.empty() : Optional.of(new Violation(name, name, problem));
        }
    }

    /** The body of a {@link Custom} law. */
    @FunctionalInterface
    interface CustomCheck {
        String problem(Application a);
    }

    /** Well formed, certificate verifies, same outputs bit for bit. */
    static List<Law> defaults() {
        return List.of(new WellFormed(), new CertificateVerifies(), SameOutputs.bitExact());
    }
}
