package org.stagecheck.cuda;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * The differential tests' comparison of a CUDA run with the reference, until golden cases take
 * it over: every DRAM tensor bit-exact when the program has no transcendental function, else
 * within {@link #ULPS} units in the last place of f32 (NaN matching NaN) per element; with traces
 * on both sides, the first stage whose outputs disagree is named.
 */
final class Agreement {
    /** The bound for programs with transcendental functions in precise mode (docs/cuda.md). */
    static final long ULPS = ReferenceAgreement.ULPS;

    private Agreement() {
    }

    /** Empty when the runs agree; else one line per disagreement, the first divergent stage first. */
    static List<String> compare(Program p, RunResult reference, RunResult actual) {
        List<String> out = new ArrayList<>();
        if (!reference.faults().equals(actual.faults())) {
            if (reference.faults().size() != actual.faults().size() || !codes(reference).equals(codes(actual))
                    || !java.util.Objects.equals(reference.stoppedAtStage(), actual.stoppedAtStage())) {
                out.add("faults differ: reference " + codes(reference) + " at " + reference.stoppedAtStage() + ", cuda "
                        + actual.faults() + " at " + actual.stoppedAtStage());
                return out;
            }
        }
        if (!reference.ok()) {
            return out;
        }
        boolean exact = !hasTranscendental(p);
        if (!reference.trace().isEmpty() && !actual.trace().isEmpty()) {
            for (Stage st : p.stages()) {
                List<Tensor> r = reference.trace().get(st.id());
                List<Tensor> a = actual.trace().get(st.id());
                if (r == null || a == null) {
                    continue;
                }
                for (int k = 0; k < r.size(); k++) {
                    String why = differ(r.get(k), a.get(k), exact);
                    if (why != null) {
                        out.add("first divergent stage '" + st.id() + "' (" + st.kind().tag() + describe(st) + "), output "
                                + k + " '" + st.outs().get(k) + "': " + why);
                        break;
                    }
                }
                if (!out.isEmpty()) {
                    break;
                }
            }
        }
        for (Map.Entry<String, Tensor> e : reference.tensors().entrySet()) {
            Tensor a = actual.tensors().get(e.getKey());
            String why = a == null ? "missing" : differ(e.getValue(), a, exact);
            if (why != null) {
                out.add("tensor '" + e.getKey() + "': " + why);
            }
        }
        return out;
    }

    private static String describe(Stage st) {
        return st.kind() instanceof StageKind.Compute c ? " " + c.op().getClass().getSimpleName() : "";
    }

    private static List<String> codes(RunResult r) {
        return r.faults().stream().map(d -> d.code()).toList();
    }

    /** Null when equal (bits, or within the bound), else where and by how much. */
    static String differ(Tensor ref, Tensor act, boolean exact) {
        if (ref.dtype() != act.dtype() || !ref.shape().equals(act.shape())) {
            return "dtype/shape " + act.dtype() + act.shape() + " vs " + ref.dtype() + ref.shape();
        }
        if (ref.bitEquals(act)) {
            return null;
        }
        long n = ref.size();
        for (long i = 0; i < n; i++) {
            if (ref.dtype().isInteger()) {
                if (ref.getInt(i) != act.getInt(i)) {
                    return "element " + i + ": " + act.getInt(i) + " vs reference " + ref.getInt(i);
                }
                continue;
            }
            float r = ref.getFloat(i);
            float a = act.getFloat(i);
            boolean same = Float.floatToRawIntBits(r) == Float.floatToRawIntBits(a) || (Float.isNaN(r) && Float.isNaN(a));
            if (same) {
                continue;
            }
            if (exact || Float.isNaN(r) || Float.isNaN(a) || ulps(r, a) > ULPS) {
                return "element " + i + ": " + a + " vs reference " + r + " (" + ulps(r, a) + " ulp)" + (exact ? ", bit-exact expected" : "");
            }
        }
        return null;
    }

    static long ulps(float a, float b) {
        long x = ordered(a);
        long y = ordered(b);
        return Math.abs(x - y);
    }

    private static long ordered(float f) {
        int b = Float.floatToRawIntBits(f);
        return b < 0 ? -(long) (b & 0x7FFFFFFF) : b;
    }

    /** Whether any expression of the program calls exp, log, tanh, sigmoid, sin, cos or rsqrt (the backend's own rule). */
    static boolean hasTranscendental(Program p) {
        return ReferenceAgreement.hasTranscendental(p);
    }
}
