package org.stagecheck.cuda;

import org.stagecheck.spec.diag.Diagnostic;

/** The backend could not be set up for a program (lowering, compiling, loading); carries the diagnostic to report. */
public final class CudaSetupException extends Exception {
    private final transient Diagnostic diagnostic;

    public CudaSetupException(Diagnostic diagnostic) {
        super(diagnostic.message(), null, false, false);
        this.diagnostic = diagnostic;
    }

    public Diagnostic diagnostic() {
        return diagnostic;
    }
}
