package org.stagecheck.interp.wellformed;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.validate.Validator;

/**
 * Judges one program by both sides: the validator's findings, and, for a program the validator
 * rejects, whether the evaluator refuses it with exactly those findings (running nothing), or, for
 * one it accepts, the evaluator's faults over
 * three runs (every parameter at its minimum, every one at its maximum, and the first at its
 * minimum with the rest at their maximum: an affine offset is extreme at a corner), each on random
 * bound data (floats from a seeded Gaussian, i32 inputs zero so that every index table's row 0 is
 * hit and no index fault hides a structural one).
 */
final class Agreement {
    private static final Interpreter EVALUATOR = new Interpreter(RunOptions.defaults().withThreads(1));

    /**
     * @param findings   the validator's diagnostics
     * @param structural the evaluator's structural faults, over all runs; for a rejected program,
     *                   its refusal when that is exactly the validator's findings (else empty)
     * @param conclusive whether every run got past every stage the validator named (completed, or
     *                   stopped by a data fault at a later stage), so that "no structural fault"
     *                   is evidence that the evaluator accepts what the validator rejects
     */
    record Verdict(List<Diagnostic> findings, List<Diagnostic> structural, boolean conclusive) {
        boolean validatorAccepts() {
            return findings.isEmpty();
        }

        /** The validator accepts, the evaluator faults structurally: a hole in the validator. */
        boolean unsafe() {
            return validatorAccepts() && !structural.isEmpty();
        }

        /** The validator rejects, the evaluator did not refuse the program with the validator's findings. */
        boolean stricter() {
            return !validatorAccepts() && structural.isEmpty() && conclusive;
        }
    }

    private Agreement() {
    }

    static Verdict judge(Program p, long dataSeed) {
        List<Diagnostic> findings = new Validator().validate(p);
        Map<String, Tensor> bound = bindings(p, dataSeed);
        if (!findings.isEmpty()) {
            // every backend validates first: a rejected program is refused, whatever the data
            RunResult run = EVALUATOR.run(p, bound, params(p, 0));
            boolean refusedAlike = run.faults().equals(findings) && run.stoppedAtStage() == null
                    && run.tensors().isEmpty() && run.trace().isEmpty();
            return new Verdict(findings, refusedAlike ? findings : List.of(), true);
        }
        List<Diagnostic> structural = new ArrayList<>();
        boolean programLevel = findings.stream().anyMatch(d -> d.stageIndex() < 0);
        int highestNamed = findings.stream().mapToInt(Diagnostic::stageIndex).max().orElse(-1);
        boolean conclusive = true;
        for (int corner = 0; corner < 3; corner++) {
            RunResult run = EVALUATOR.run(p, bound, params(p, corner));
            int reached = p.stages().size();
            for (Diagnostic d : run.faults()) {
                FaultClass c = FaultClass.of(d, p);
                if (c == FaultClass.STRUCTURAL || c == FaultClass.HARNESS) {
                    structural.add(d);
                }
                reached = Math.min(reached, d.stageIndex() < 0 ? -1 : d.stageIndex());
            }
            boolean past = run.ok() || (!programLevel && reached > highestNamed);
            conclusive &= past; // a fault may show at one corner only: every run must have got past
        }
        return new Verdict(findings, dedupe(structural), conclusive);
    }

    private static List<Diagnostic> dedupe(List<Diagnostic> ds) {
        List<Diagnostic> out = new ArrayList<>();
        for (Diagnostic d : ds) {
            if (out.stream().noneMatch(o -> o.render().equals(d.render()))) {
                out.add(d);
            }
        }
        return out;
    }

    /** Corner 0: every parameter at its min; 1: at its max; 2: the first at min, the rest at max. */
    static Map<String, Long> params(Program p, int corner) {
        Map<String, Long> out = new HashMap<>();
        for (int i = 0; i < p.params().size(); i++) {
            Param prm = p.params().get(i);
            if (out.containsKey(prm.name())) {
                continue; // a duplicated declaration: the first one is the parameter
            }
            boolean min = corner == 0 || (corner == 2 && i == 0);
            out.put(prm.name(), min ? prm.min() : prm.max());
        }
        return out;
    }

    static Map<String, Tensor> bindings(Program p, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Map<String, Tensor> out = new HashMap<>();
        for (TensorDecl t : p.tensorsByName().values()) {
            if (!t.role().isBoundBeforeRun()) {
                continue;
            }
            long count;
            try {
                count = t.shape().elementCount();
            } catch (ArithmeticException e) {
                continue; // too large for a long (the validator's SIZE_TOO_LARGE): left unbound
            }
            if (count > 1 << 20) {
                continue; // an absurd mutant size: unbound (MISSING_INPUT, a harness fault) rather than gigabytes
            }
            int n = (int) count;
            if (t.dtype() == DType.I32) {
                out.put(t.name(), Tensor.fromInts(t.shape(), new int[n]));
            } else {
                float[] v = new float[n];
                for (int i = 0; i < n; i++) {
                    v[i] = (float) (r.nextDouble() * 2 - 1);
                }
                out.put(t.name(), Tensor.fromFloats(t.dtype(), t.shape(), v));
            }
        }
        return out;
    }
}
