package org.stagecheck.passcheck;

import java.util.function.UnaryOperator;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;

/**
 * A compiler pass under test: a program (and the certificate that came with it, possibly null)
 * to a program and the certificate of its claims (brief, "Property testing"). A pass that only
 * rewrites the program hands the parent's certificate on ({@link #of}); a pass that renumbers
 * buffers adds its map to the certificate, so that the verifier can check it against the parent.
 */
@FunctionalInterface
public interface Pass {
    Result apply(Program parent, Certificate parentCertificate);

    /** The pass's output: the child program and its certificate (null when there is none). */
    record Result(Program program, Certificate certificate) {}

    /** A pass that rewrites programs and leaves the certificate as it was. */
    static Pass of(UnaryOperator<Program> rewrite) {
        return (parent, certificate) -> new Result(rewrite.apply(parent), certificate);
    }
}
