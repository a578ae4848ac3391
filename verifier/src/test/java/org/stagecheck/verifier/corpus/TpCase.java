package org.stagecheck.verifier.corpus;

import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.verifier.Parent;

/**
 * One program of the corpus: the split program with its certificate (and the parent it was
 * remapped from, for remap plants), the unsplit reference it must agree with, and what was planted.
 */
public record TpCase(TpSpec spec, Plant plant, Program program, Certificate certificate, Program parent, Program unsplit) {
    public String name() {
        return plant.name().toLowerCase(java.util.Locale.ROOT) + " " + spec;
    }

    /** The parent to verify against: the program it was remapped from (remap plants), else none. */
    public Parent asParent() {
        return parent == null ? Parent.none() : Parent.remap(parent);
    }
}
