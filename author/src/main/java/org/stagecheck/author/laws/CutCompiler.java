package org.stagecheck.author.laws;

import org.stagecheck.author.Cut;
import org.stagecheck.spec.ir.Program;

/**
 * The program-producing function under test: given a cut and the program authored for it, the
 * program to run instead (a compiler pass, a whole pipeline, or the identity). The laws run the
 * result, so a pass that breaks a law fails the gate. The result must keep the authored
 * program's bound tensor, output tensor and parameter names.
 */
@FunctionalInterface
public interface CutCompiler {
    Program compile(Cut cut, Program authored);

    /** Runs the authored programs as written. */
    static CutCompiler identity() {
        return (cut, program) -> program;
    }
}
