package org.stagecheck.passcheck;

import java.util.Map;
import org.stagecheck.reduce.Candidate;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/** One generated try: where it came from, the program with its certificate (or null), and its run bindings. */
public record Generated(String origin, Program program, Certificate certificate, Map<String, Tensor> bound, Map<String, Long> params) {
    public Candidate candidate() {
        return new Candidate(program, bound, params);
    }
}
