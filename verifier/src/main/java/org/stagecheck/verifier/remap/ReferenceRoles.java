package org.stagecheck.verifier.remap;

import java.util.List;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.rules.OpRules;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;
import org.stagecheck.verifier.ProgramIndex;

/**
 * The buffer-remap obligation without a parent (brief, "Certificates"): every kind-internal
 * reference names a declared buffer on the stage's own core that fits its role:
 * <ul>
 *   <li>an indirect pattern's index buffer: integer, rank 1, one entry per row the buffer side
 *       has (the Load's output or the Store's input, axis 0);</li>
 *   <li>an offset term's buffer: integer, one element;</li>
 *   <li>a matmul's spill: f32, shaped like the output (the accumulator);</li>
 *   <li>a matmul's bias: floating, broadcasting to the output (numpy rules).</li>
 * </ul>
 * These run with or without a parent: a renaming that points a reference at a buffer of another
 * shape is caught here even when the map itself is consistent.
 */
public final class ReferenceRoles {
    private final ProgramIndex index;
    private final Findings findings;

    public ReferenceRoles(ProgramIndex index, Findings findings) {
        this.index = index;
        this.findings = findings;
    }

    public void run() {
        List<Stage> stages = index.program().stages();
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            for (InternalRef r : index.refs(i)) {
                check(i, s, r);
            }
        }
    }

    private void check(int i, Stage s, InternalRef r) {
        String field = "/kind/" + r.field();
        BufferDecl b = index.buffer(r.buffer());
        if (b == null) {
            findings.atStage(Code.REF_UNDECLARED, i, s, field, r.buffer(),
                    "The " + role(r) + " names buffer '" + r.buffer() + "', which the program does not declare.");
            return;
        }
        if (!b.site().equals(s.site())) {
            findings.atStage(Code.REF_WRONG_SITE, i, s, field, r.buffer(),
                    "The " + role(r) + " names buffer '" + r.buffer() + "' on core " + b.site() + ", but the stage runs on core " + s.site() + ".");
            return;
        }
        String misfit = misfit(s, r, b);
        if (misfit != null) {
            findings.atStage(Code.REF_ROLE_MISFIT, i, s, field, r.buffer(),
                    "The " + role(r) + " names buffer '" + r.buffer() + "' (" + b.dtype() + b.shape() + "), " + misfit + ".");
        }
    }

    private static String role(InternalRef r) {
        return switch (r.role()) {
            case INDEX_BUFFER -> "index buffer";
            case BIAS -> "bias";
            case SPILL -> "spill";
            case OFFSET_TERM -> "offset term at " + r.field();
        };
    }

    /** Why {@code b} does not fit the role of {@code r}, or null when it does. */
    private String misfit(Stage s, InternalRef r, BufferDecl b) {
        return switch (r.role()) {
            case INDEX_BUFFER -> {
                if (!b.dtype().isInteger() || b.shape().rank() != 1) {
                    yield "but an index buffer is a rank-1 integer buffer";
                }
                BufferDecl side = sideBuffer(s);
                if (side != null && side.shape().rank() > 0 && side.shape().dim(0) != b.shape().dim(0)) {
                    yield "but the buffer side '" + side.name() + "' has " + side.shape().dim(0) + " rows, one index each";
                }
                yield null;
            }
            case SPILL -> {
                BufferDecl out = output(s);
                if (b.dtype() != DType.F32) {
                    yield "but a spill is the f32 accumulator";
                }
                if (out != null && !out.shape().equals(b.shape())) {
                    yield "but the accumulator has the output's shape " + out.shape();
                }
                yield null;
            }
            case BIAS -> {
                BufferDecl out = output(s);
                if (!b.dtype().isFloating()) {
                    yield "but a bias is floating";
                }
                if (out != null && !broadcasts(b.shape(), out.shape())) {
                    yield "which does not broadcast to the output's shape " + out.shape();
                }
                yield null;
            }
            case OFFSET_TERM -> {
                if (!b.dtype().isInteger() || b.shape().elementCount() != 1) {
                    yield "but an offset term reads the single element of an integer buffer";
                }
                yield null;
            }
        };
    }

    private BufferDecl output(Stage s) {
        return s.outs().isEmpty() ? null : index.buffer(s.outs().getFirst());
    }

    /** The buffer an indirect pattern's rows land in or come from. */
    private BufferDecl sideBuffer(Stage s) {
        return switch (s.kind()) {
            case StageKind.Load l -> output(s);
            case StageKind.Store st -> s.ins().isEmpty() ? null : index.buffer(s.ins().getFirst());
            case StageKind.Recv r -> null;
            case StageKind.AllReduce a -> null;
            case StageKind.Compute c -> null;
            case StageKind.Scalar sc -> null;
        };
    }

    /** numpy broadcasting of {@code from} to {@code to}: the language's rule ({@link OpRules#broadcasts}). */
    static boolean broadcasts(Shape from, Shape to) {
        return OpRules.broadcasts(from, to);
    }

}
