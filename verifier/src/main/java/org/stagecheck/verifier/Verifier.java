package org.stagecheck.verifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.spec.concurrent.Beside;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.verifier.flow.FlowChecker;
import org.stagecheck.verifier.remap.ReferenceRoles;
import org.stagecheck.verifier.remap.RemapChecker;
import org.stagecheck.verifier.shard.ShardChecker;
import org.stagecheck.verifier.shard.ParamRanges;
import org.stagecheck.verifier.shard.ShardDecls;

/**
 * The certificate checker (brief, "Certificates"; docs/verifier.md). It trusts no claim in the
 * certificate: it derives the facts from the program and checks the certificate's data (shard
 * declarations, buffer remap) against them, collecting every finding.
 *
 * <p>Obligations checked, reported in this order: UnreducedShard ({@link ShardChecker}), buffer remap
 * ({@link ReferenceRoles}, and {@link RemapChecker} when a parent is given), multicast and
 * ordering ({@link FlowChecker}), after well-formedness: the spec {@link Validator}'s findings
 * are part of the report (the same rules as {@code stagecheck validate}), so a Java caller and the
 * command line get the same verdict. On ill-formed input the checks skip what they cannot follow
 * and never throw. Each check is one pass with hash look-ups: linear in program size. UnreducedShard
 * runs on the calling thread and the others on a second thread beside it (each writes its own
 * findings, merged in the order above, so the report does not depend on which ends first).
 *
 * <p>Stateless and thread-safe: every call builds its own context.
 */
public final class Verifier {

    /**
     * Checks {@code program} against {@code certificate} (null: no shard declarations, no remap,
     * no claims) and against the program it came from, as {@code parent} says:
     * <ul>
     *   <li>{@link Parent#unsplit}: UnreducedShard also proves that every output and state tensor
     *       of the split holds what the parent's tensor of that logical name holds
     *       ({@code LOGICAL_OUTPUT_DIFFERS}), the certificate's logical names being the parent's
     *       tensor names;</li>
     *   <li>{@link Parent#remap}: the buffer-remap obligation proves that {@code program} is the
     *       certificate's remap of the parent (the identity when the certificate has none);</li>
     *   <li>{@link Parent#none}: neither comparison.</li>
     * </ul>
     * Without an unsplit parent, the UnreducedShard result says in its note that the logical
     * program was not checked.
     */
    public VerifyReport verify(Program program, Certificate certificate, Parent parent) {
        Objects.requireNonNull(program, "program");
        Objects.requireNonNull(parent, "parent (Parent.none() for none)");
        Certificate cert = certificate == null ? Certificate.empty() : certificate;
        ProgramIndex index = ProgramIndex.of(program);
        Program unsplit = switch (parent) {
            case Parent.Unsplit u -> u.program();
            case Parent.Remap _, Parent.None _ -> null;
        };
        Program remapParent = switch (parent) {
            case Parent.Remap r -> r.program();
            case Parent.Unsplit _, Parent.None _ -> null;
        };
        // Each obligation writes its own findings; the report lists them in the order of the
        // obligations whichever thread finished first, so the report is the same on every run.
        Findings wellFormed = new Findings();
        Findings shard = new Findings();
        Findings remap = new Findings();
        Findings flow = new Findings();
        Map<Obligation, Duration> elapsed = new EnumMap<>(Obligation.class);
        boolean[] fits = {true};
        // fitted stays false when the fit check could not finish (its fault is UnreducedShard's one
        // finding, and the rest of that obligation is skipped); the remap then runs as for a fit
        boolean[] fitted = {false};
        Duration fitting = guarded(shard, "UnreducedShard", () -> {
            fits[0] = CertificateFit.check(program, cert, index, shard);
            fitted[0] = true;
        });

        // The spec validator, the remap and the flow checks read the program only, as UnreducedShard
        // does: they run on a second thread beside it (the checks' times add up to a third of a
        // long one-chip program's verification).
        Map<Obligation, Duration> besideElapsed = new EnumMap<>(Obligation.class);
        Beside beside = Beside.start(() -> {
            besideElapsed.put(Obligation.WELL_FORMED, guarded(wellFormed, "well-formed", () -> wellFormed.structural(new Validator().validate(program))));
            besideElapsed.put(Obligation.BUFFER_REMAP, guarded(remap, "buffer-remap", () -> {
                new ReferenceRoles(index, remap).run();
                if (!fits[0]) {
                    return; // the remap is another program's too
                }
                if (remapParent != null) {
                    new RemapChecker(program, remapParent, cert.remap(), remap).run();
                } else if (cert.remap() != null) {
                    new RemapChecker.MapOnly(program, cert.remap(), remap).run();
                }
            }));
            besideElapsed.put(Obligation.MULTICAST, guarded(flow, "multicast", () -> new FlowChecker(index, flow).run()));
        }, Beside.platform("stagecheck-verify-beside"));

        List<String> remarks = new ArrayList<>();
        boolean[] compared = {false};
        Duration shardTime;
        try {
            shardTime = guarded(shard, "UnreducedShard", () -> {
                if (!fitted[0] || !fits[0]) {
                    return; // another program's certificate, or one the fit check faulted on: one finding says so
                }
                ShardDecls decls = ShardDecls.check(cert.shards(), cert.heads(), index, shard);
                Program against = unsplit;
                if (unsplit != null && !new Validator().validate(unsplit).isEmpty()) {
                    shard.atField(Code.UNSPLIT_PARENT_INVALID, null, null, "The unsplit parent '" + unsplit.name()
                            + "' is not well-formed (stagecheck validate says why), so the split was not compared with it.");
                    against = null;
                }
                if (against != null) {
                    ShardDecls.checkAgainstParent(cert.shards(), index, against, shard);
                    ParamRanges.checkAgainstParent(program, against, shard);
                }
                compared[0] = against != null;
                remarks.addAll(new ShardChecker(index, decls, shard, against).run());
            });
        } catch (Throwable first) {
            // UnreducedShard ran out of memory (what guarded does not make a finding): no thread
            // outlives the call, and its error is the one thrown, the other thread's attached
            beside.joinAfter(first);
            throw first;
        }
        beside.join();
        elapsed.putAll(besideElapsed);
        elapsed.put(Obligation.UNREDUCED_SHARD, fitting.plus(shardTime));

        Findings findings = new Findings();
        for (Findings f : List.of(wellFormed, shard, remap, flow)) {
            findings.addAll(f);
        }
        return new VerifyReport(findings.all(), results(cert, fits[0], parent, unsplit, compared[0], findings, remarks, elapsed));
    }

    /**
     * A defect of the checker on odd input becomes a finding that fails the verification, never an
     * exception. Returns the wall time the check took.
     */
    private static Duration guarded(Findings findings, String what, Runnable check) {
        long t0 = System.nanoTime();
        try {
            check.run();
        } catch (StackOverflowError e) {
            // the checks recurse only over expression trees (Generic, Scalar, combine; their equality in the remap proof)
            findings.atField(Code.EXPR_TOO_DEEP, null, null,
                    "The " + what + " check met an expression nested too deeply for its stack and could not finish; run with a larger -Xss or flatten it.");
        } catch (RuntimeException e) {
            findings.atField(Code.CHECKER_FAULT, null, null,
                    "The " + what + " check could not finish (" + e.getClass().getSimpleName()
                            + (e.getMessage() == null ? "" : ": " + e.getMessage()) + "); run stagecheck validate on the program.");
        }
        return Duration.ofNanos(System.nanoTime() - t0);
    }

    private static List<ObligationResult> results(Certificate cert, boolean fits, Parent parent, Program unsplit, boolean compared, Findings findings,
                                                  List<String> remarks, Map<Obligation, Duration> elapsed) {
        List<ObligationResult> out = new ArrayList<>();
        for (Obligation o : Obligation.values()) {
            boolean claimed = cert.claims().contains(o);
            int n = findings.count(o);
            String note = switch (o) {
                case WELL_FORMED -> "The spec validator's structural rules (the same as stagecheck validate), and the checker's own faults.";
                case UNREDUCED_SHARD -> !fits ? "The certificate was written for another program, so none of its declarations was used"
                        + " and the shards were not analysed." : "Every buffer's logical expression, window and partial slices were derived from " + cert.shards().size()
                        + " declaration(s) and followed through every stage"
                        + (compared ? "; every output and state tensor was compared with the unsplit parent's." : unsplit != null
                        ? "; the unsplit parent is not well-formed, so the logical program was NOT checked."
                        : "; no unsplit parent was given, so the logical program was NOT checked: a split that computes another program"
                        + " consistently on every chip (a bias added twice) is not detected (give the unsplit program as the parent).")
                        + (remarks.isEmpty() ? "" : " " + String.join(" ", remarks));
                case BUFFER_REMAP -> !fits ? "Every kind-internal reference was checked for role fit; the certificate was written for another"
                        + " program, so its remap was not checked." : switch (parent) {
                    case Parent.Unsplit _ -> "The parent was given as the unsplit program (UnreducedShard compares the outputs), not as a remap"
                            + " parent; " + (cert.remap() != null ? "the map's injectivity and " : "") + "kind-internal references were checked for role fit.";
                    case Parent.Remap _ -> "The program was compared with the parent under the " + (cert.remap() == null ? "identity map" : "certificate's map")
                            + "; kind-internal references were checked for role fit.";
                    case Parent.None _ -> cert.remap() != null
                            ? "No parent given: the map's injectivity and every kind-internal reference's role fit were checked, not the child-equals-parent proof."
                            : "No parent given: every kind-internal reference was checked for role fit.";
                };
                case MULTICAST -> "Reads after writes, multicast pairing and receive shapes were checked in reference order.";
            };
            ObligationResult.Status status = n > 0 ? ObligationResult.Status.VIOLATED : ObligationResult.Status.DISCHARGED;
            out.add(new ObligationResult(o, status, claimed, n, note, elapsed.getOrDefault(o, Duration.ZERO)));
        }
        return out;
    }
}
