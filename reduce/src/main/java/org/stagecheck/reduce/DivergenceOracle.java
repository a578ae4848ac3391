package org.stagecheck.reduce;

import java.util.List;
import java.util.Map;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * A backend under test against a reference backend, both run traced on the candidate. The failure
 * is the kind of the <em>first divergent stage</em>: the first stage in program order whose
 * outputs differ beyond the tolerance ({@code diverges at Compute/Slice}), or the fault the
 * subject met where the reference did not ({@code fault INDEX_OUT_OF_RANGE at Load}). A candidate
 * on which the reference itself faults does not show the subject's bug: it passes.
 *
 * <p>Tolerance: element {@code e} of an output agrees when {@code |ref - got| <= relative *
 * max(1, max|ref|)} over that output (0 = bit-exact on values; NaN agrees with NaN).
 */
public final class DivergenceOracle implements FailureOracle {
    private final Backend reference;
    private final Backend subject;
    private final double relative;

    public DivergenceOracle(Backend reference, Backend subject, double relative) {
        this.reference = reference;
        this.subject = subject;
        this.relative = relative;
    }

    @Override
    public Verdict judge(Candidate c) {
        RunResult ref = reference.run(c.program(), c.bound(), c.params(), true);
        if (!ref.ok()) {
            return new Verdict.Passes();
        }
        RunResult got = subject.runChecked(c.program(), c.bound(), c.params(), true);
        List<Stage> stages = c.program().stages();
        String faultAt = got.ok() ? null : got.stoppedAtStage();
        for (int i = 0; i < stages.size(); i++) {
            Stage s = stages.get(i);
            if (s.id().equals(faultAt)) {
                return new Verdict.Fails("fault " + got.faults().getFirst().code() + " at " + kindOf(s),
                        "stage " + i + " '" + s.id() + "': " + got.faults().getFirst().message());
            }
            List<Tensor> want = ref.trace().get(s.id());
            List<Tensor> have = got.trace().get(s.id());
            if (want == null || have == null) {
                continue;
            }
            for (int port = 0; port < want.size() && port < have.size(); port++) {
                String where = firstDifference(want.get(port), have.get(port));
                if (where != null) {
                    return new Verdict.Fails("diverges at " + kindOf(s),
                            "stage " + i + " '" + s.id() + "' output " + port + ": " + where);
                }
            }
        }
        if (!got.ok()) {
            return new Verdict.Fails("fault " + got.faults().getFirst().code(), got.faults().getFirst().message());
        }
        for (Map.Entry<String, Tensor> e : ref.tensors().entrySet()) {
            Tensor have = got.tensor(e.getKey());
            String where = have == null ? "missing" : firstDifference(e.getValue(), have);
            if (where != null) {
                return new Verdict.Fails("diverges in tensors", "tensor '" + e.getKey() + "': " + where);
            }
        }
        return new Verdict.Passes();
    }

    /** The kind of a stage as a failure names it: the kind, and the op of a Compute. */
    public static String kindOf(Stage s) {
        return switch (s.kind()) {
            case StageKind.Compute c -> "Compute/" + c.op().getClass().getSimpleName();
            case StageKind.Load l -> "Load";
            case StageKind.Store st -> "Store";
            case StageKind.Recv r -> "Recv";
            case StageKind.AllReduce a -> "AllReduce";
            case StageKind.Scalar sc -> "Scalar";
        };
    }

    /** Where two values first differ beyond the tolerance, or null when they agree. */
    private String firstDifference(Tensor want, Tensor have) {
        if (!want.shape().equals(have.shape())) {
            return "shape " + have.shape() + " instead of " + want.shape();
        }
        long n = want.size();
        double scale = 1;
        for (long e = 0; e < n; e++) {
            double v = Math.abs(want.getDouble(e));
            if (Double.isFinite(v)) {
                scale = Math.max(scale, v);
            }
        }
        double bound = relative * scale;
        for (long e = 0; e < n; e++) {
            double a = want.getDouble(e);
            double b = have.getDouble(e);
            boolean same = Double.isNaN(a) ? Double.isNaN(b) : (a == b || Math.abs(a - b) <= bound);
            if (!same) {
                return "element " + e + " is " + b + ", the reference " + a;
            }
        }
        return null;
    }
}
