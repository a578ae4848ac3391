package org.stagecheck.cli;

import java.nio.file.Path;
import org.stagecheck.api.LoadedProgram;
import org.stagecheck.api.Stagecheck;
import org.stagecheck.api.StagecheckException;
import org.stagecheck.spec.json.CertificateFile;

/** Reads the command line's program and certificate files through the library; a bad file is bad input (exit 2). */
final class Load {
    private Load() {
    }

    /** The program in {@code file} with its source map; the message names FILE:LINE:COL where known. */
    static LoadedProgram program(Path file) throws BadInputException {
        try {
            return Stagecheck.load(file);
        } catch (StagecheckException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** The certificate in {@code file} with its source map. */
    static CertificateFile certificate(Path file) throws BadInputException {
        try {
            return Stagecheck.loadCertificate(file);
        } catch (StagecheckException e) {
            throw new BadInputException(e.getMessage());
        }
    }
}
