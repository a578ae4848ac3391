package org.stagecheck.verifier.fuzz;

import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.verifier.adversarial.CorpusRuns;

/**
 * One program of the per-class campaign: a split of {@code splitClass}, written as
 * {@code variant} (a right way to split, or a planted bug of that class), with its certificate,
 * its unsplit parent and how the evaluator runs it. {@code planted} says what the generator meant;
 * the verdict is the evaluator's.
 */
public record ClassCase(SplitClass splitClass, String variant, boolean planted, Program program, Certificate certificate, Program parent,
                        CorpusRuns.Inputs inputs) {}
