package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;

/**
 * An output or state tensor must hold values of the logical program: one that holds a chip's own
 * share of a split contraction, taken as a value (stored unreduced, or through a non-linear op
 * first), is {@code UNREDUCED_OUTPUT} at the store, even when no other chip's output is there to
 * compare it with (docs/verifier.md, "Unreduced outputs"), unless the certificate declares the
 * tensor to hold that very partial (a window of the share's logical tensor over its slices) and
 * the store writes the share itself, not a value computed from it (tanh of the share is no
 * partial of anything, whatever the declaration says). A demotion the checker already reported
 * the same demotion (the chips' outputs met and differed) is not reported twice.
 */
final class UnreducedOutputs {
    private UnreducedOutputs() {}

    static void check(ShardState st) {
        for (TensorDecl t : st.index.program().tensors()) {
            TensorMemory mem = st.memories.get(t.name());
            if (mem == null || mem.history == null || st.index.tensor(t.name()) != t) {
                continue;
            }
            ShardDecl declared = st.decls.of(t.name());
            List<TensorMemory.Write> writes = mem.history;
            for (int i = 0; i < writes.size(); i++) {
                TensorMemory.Write w = writes.get(i);
                if (!(w.value() instanceof Val.Exact e) || overwritten(writes, i)) {
                    continue;
                }
                ChipShares.Reached reached = st.shares.reached(e.term(), t.chip());
                if (reached == null || reported(st, reached.everyChip()) || reached.itself() && declaredPartial(declared, reached.root(), e)) {
                    continue;
                }
                ChipShares.Root root = reached.root();
                Demotion why = root.why();
                Stage stage = st.index.program().stages().get(w.stage());
                List<String> trail = new ArrayList<>(why.trail());
                if (why.stageIndex() != w.stage()) {
                    trail.add("#" + w.stage() + " " + stage.id() + ": stores it to " + t.role().jsonName() + " tensor " + t.name());
                }
                String buffer = stage.ins().isEmpty() ? null : stage.ins().getFirst();
                st.findings.atStage(Code.UNREDUCED_OUTPUT, w.stage(), stage, "/ins/0", buffer, "Tensor '" + t.name() + "' (chip " + t.chip()
                        + ") is an " + t.role().jsonName() + ", but what this store writes is computed from this chip's share of a split contraction"
                        + " used as a value before any all-reduce completed it (#" + why.stageIndex() + " " + why.stage().id() + ": "
                        + why.message() + "): it holds no value of the logical program.", trail);
                break;
            }
        }
    }

    /** Whether the certificate declares the tensor to hold exactly that share: a window of its logical tensor over its slices. */
    private static boolean declaredPartial(ShardDecl d, ChipShares.Root root, Val.Exact stored) {
        if (d == null || !d.logical().equals(root.logical())) {
            return false;
        }
        // a share of one window is one term on every chip, the window's start held as the value's hidden position
        Val.Hidden h = stored.hidden();
        Slices held = h != null && h.at().isConstant() ? Slices.of(h.at().constant(), h.at().constant() + h.width()) : root.slices();
        return Slices.of(d.start(), d.end()).equals(held);
    }

    /** Whether a later store wrote the same region again (then this one is not what the tensor holds). */
    private static boolean overwritten(List<TensorMemory.Write> writes, int i) {
        Region r = writes.get(i).region();
        if (r == null) {
            return false;
        }
        for (int j = i + 1; j < writes.size(); j++) {
            if (r.equals(writes.get(j).region())) {
                return true;
            }
        }
        return false;
    }

    /** Whether a chip's demotion of the share was already reported (the chips' values met and differed). */
    private static boolean reported(ShardState st, java.util.Collection<ChipShares.Root> demotions) {
        for (Diagnostic d : st.findings.all()) {
            for (ChipShares.Root r : demotions) {
                if (d.stageIndex() == r.why().stageIndex() && r.why().code().name().equals(d.code())) {
                    return true;
                }
            }
        }
        return false;
    }
}
