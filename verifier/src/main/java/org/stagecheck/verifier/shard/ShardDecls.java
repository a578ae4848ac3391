package org.stagecheck.verifier.shard;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.cert.HeadLayout;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;
import org.stagecheck.verifier.ProgramIndex;

/**
 * The certificate's shard declarations, checked against the program's tensors and indexed by
 * tensor. A declaration the program contradicts is reported and then ignored, so the analysis
 * never builds on a claim it could not confirm (brief, "Certificates": trust no claim).
 *
 * <p>A declaration on a tensor bound before the run (input, weight, state) says the tensor is a
 * <em>shard</em>: it holds those elements of the logical tensor. A declaration on a scratch or
 * output tensor says the tensor holds a <em>partial</em> of the logical tensor over that slice,
 * which is what lets a partial be stored and loaded again before its reduce.
 */
public final class ShardDecls {
    private final Map<String, ShardDecl> byTensor = new HashMap<>();
    private final Map<String, Long> extentByLogical = new HashMap<>();
    private HeadLayout heads;

    public static ShardDecls check(List<ShardDecl> decls, ProgramIndex index, Findings findings) {
        return check(decls, null, index, findings);
    }

    /** The declarations and the certificate's head layout ({@code heads}, nullable: docs/verifier.md "Hidden positions"). */
    public static ShardDecls check(List<ShardDecl> decls, HeadLayout heads, ProgramIndex index, Findings findings) {
        ShardDecls out = new ShardDecls();
        out.heads = heads;
        for (int i = 0; i < decls.size(); i++) {
            ShardDecl d = decls.get(i);
            String at = "cert:/shards/" + i;
            TensorDecl t = index.tensor(d.tensor());
            if (t == null) {
                findings.atField(Code.SHARD_DECL_UNKNOWN_TENSOR, at + "/tensor", null,
                        "The certificate declares tensor '" + d.tensor() + "' a shard of " + d.logical() + ", but the program declares no such tensor.");
                continue;
            }
            if (d.axis() >= t.shape().rank()) {
                findings.atField(Code.SHARD_DECL_AXIS, at + "/axis", null,
                        "The certificate declares tensor '" + d.tensor() + "' sharded on axis " + d.axis() + ", but it has rank " + t.shape().rank() + ".");
                continue;
            }
            if (d.end() - d.start() != t.shape().dim(d.axis())) {
                findings.atField(Code.SHARD_DECL_EXTENT, at, null,
                        "The certificate says tensor '" + d.tensor() + "' holds [" + d.start() + "," + d.end() + ") of " + d.logical()
                                + " on axis " + d.axis() + ", but the tensor's axis has " + t.shape().dim(d.axis()) + " elements.");
                continue;
            }
            Long known = out.extentByLogical.putIfAbsent(d.logical(), d.extent());
            if (known != null && known != d.extent()) {
                findings.atField(Code.SHARD_DECL_EXTENT, at + "/extent", null,
                        "The certificate gives logical tensor " + d.logical() + " extent " + d.extent() + " here and " + known + " elsewhere.");
                continue;
            }
            if (out.byTensor.putIfAbsent(d.tensor(), d) != null) {
                findings.atField(Code.SHARD_DECL_DUPLICATE, at, null,
                        "The certificate declares tensor '" + d.tensor() + "' a shard more than once; the first declaration is used.");
            }
        }
        return out;
    }

    /**
     * Checks the declarations against the unsplit parent whose tensor names they use as logical
     * names (docs/verifier.md, "The unsplit parent"): a declaration on a bound or output tensor
     * (not on a scratch, which holds a partial) must name a tensor of the parent, of the same rank
     * and dtype, whose extent on the declared axis is the declared extent and whose other axes are
     * the split tensor's. A certificate that gets the parent's shapes wrong is reported here, where
     * it lies, not only at the output it would spoil.
     */
    public static void checkAgainstParent(List<ShardDecl> decls, ProgramIndex index, Program parent, Findings findings) {
        for (int i = 0; i < decls.size(); i++) {
            ShardDecl d = decls.get(i);
            TensorDecl t = index.tensor(d.tensor());
            if (t == null || t.role() == TensorRole.SCRATCH || d.axis() >= t.shape().rank()) {
                continue; // an unknown tensor or axis is reported by check(); a scratch declares a partial, not a window
            }
            String at = "cert:/shards/" + i;
            TensorDecl logical = parent.tensors().stream().filter(p -> p.name().equals(d.logical())).findFirst().orElse(null);
            if (logical == null) {
                findings.atField(Code.SHARD_DECL_UNKNOWN_TENSOR, at + "/logical", null, "The certificate declares tensor '" + d.tensor()
                        + "' a window of " + d.logical() + ", but the unsplit parent has no tensor " + d.logical() + ".");
                continue;
            }
            String mismatch = shapeMismatch(d, t, logical);
            if (mismatch != null) {
                findings.atField(Code.SHARD_DECL_EXTENT, at, null, "The certificate declares tensor '" + d.tensor() + "' (" + t.dtype().jsonName()
                        + " " + t.shape() + ") the window [" + d.start() + "," + d.end() + ") on axis " + d.axis() + " of " + d.logical()
                        + " (extent " + d.extent() + "), but the unsplit parent's " + d.logical() + " is " + logical.dtype().jsonName() + " "
                        + logical.shape() + ": " + mismatch + ".");
            }
        }
    }

    private static String shapeMismatch(ShardDecl d, TensorDecl t, TensorDecl logical) {
        if (logical.shape().rank() != t.shape().rank()) {
            return "the ranks differ";
        }
        if (logical.dtype() != t.dtype()) {
            return "the dtypes differ";
        }
        if (logical.shape().dim(d.axis()) != d.extent()) {
            return "its axis " + d.axis() + " has " + logical.shape().dim(d.axis()) + " elements, not " + d.extent();
        }
        for (int a = 0; a < t.shape().rank(); a++) {
            if (a != d.axis() && logical.shape().dim(a) != t.shape().dim(a)) {
                return "axis " + a + " has " + logical.shape().dim(a) + " elements there and " + t.shape().dim(a) + " here, and only axis "
                        + d.axis() + " is declared split";
            }
        }
        return null;
    }

    /** No declarations: every tensor is a logical tensor of its own (an unsplit program). */
    public static ShardDecls none() {
        return new ShardDecls();
    }

    /** How the certificate says query heads use key/value heads, or null. */
    public HeadLayout heads() {
        return heads;
    }

    /** Whether nothing is declared. */
    public boolean isEmpty() {
        return byTensor.isEmpty();
    }

    /** The declaration for {@code tensor}, or null. */
    public ShardDecl of(String tensor) {
        return byTensor.get(tensor);
    }

    /** The full extent of logical tensor {@code logical}'s contraction axis, or -1 when no declaration names it. */
    public long extent(String logical) {
        Long e = extentByLogical.get(logical);
        return e == null ? -1 : e;
    }
}
