package org.stagecheck.verifier.adversarial;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * The evaluator's judgement of a corpus case: the unsplit parent and the split run on the same
 * logical inputs, the split's bound tensors cut from them as its certificate declares (a
 * declared window of a logical tensor; an undeclared tensor is the parent's tensor of its name),
 * so a certificate that lies about a window gets the data it claims. Every output and state
 * tensor of the split is compared with its window of the parent's, for every value of the
 * program's parameter (at most one, with a small range) and input seeds 1..3, within
 * {@value #RELATIVE_TOLERANCE} of {@code max(1, max |unsplit|)} (the split re-associates one
 * contraction's sum of at most 8 terms of magnitude below 4: a few f32 roundoffs; a bf16 partial
 * is off by about 2^-9 relative, far above).
 */
public final class CorpusRuns {
    static final double RELATIVE_TOLERANCE = 1e-5;

    public enum Verdict { AGREES, DIFFERS, NOT_BINDABLE }

    public record Judgement(Verdict verdict, String detail) {}

    private static final Interpreter INTERPRETER = new Interpreter(RunOptions.defaults().withThreads(1));

    private CorpusRuns() {}

    public static Judgement judge(CorpusCase c) {
        return judge(c, Inputs.DEFAULT);
    }

    /**
     * How a case is run: logical inputs uniform in {@code [-scale, scale)} on seeds
     * {@code firstSeed..lastSeed}, outputs compared within {@code relativeTolerance} of
     * {@code max(1, max |unsplit|)} (a narrow output format rounds by more than f32's roundoff).
     */
    public record Inputs(double scale, long firstSeed, long lastSeed, double relativeTolerance) {
        public static final Inputs DEFAULT = new Inputs(1, 1, 3, RELATIVE_TOLERANCE);
    }

    public static Judgement judge(CorpusCase c, Inputs how) {
        Map<String, ShardDecl> decls = new LinkedHashMap<>();
        c.certificate().shards().forEach(d -> decls.putIfAbsent(d.tensor(), d));
        for (Map<String, Long> params : paramValues(c.program())) {
            Map<String, Long> parentParams = new LinkedHashMap<>();
            c.parent().params().forEach(p -> parentParams.put(p.name(), params.getOrDefault(p.name(), p.min())));
            for (long seed = how.firstSeed(); seed <= how.lastSeed(); seed++) {
                Map<String, Tensor> logical = logicalInputs(c.parent(), seed, how.scale());
                Map<String, Tensor> bound = new LinkedHashMap<>();
                for (TensorDecl t : c.program().tensors()) {
                    if (t.role().isBoundBeforeRun()) {
                        Tensor v = window(logical, t, decls.get(t.name()));
                        if (v == null) {
                            return new Judgement(Verdict.NOT_BINDABLE, "tensor " + t.name() + " is no window of a tensor of the parent");
                        }
                        bound.put(t.name(), v);
                    }
                }
                RunResult reference = INTERPRETER.run(c.parent(), logical, parentParams);
                if (!reference.ok()) {
                    throw new IllegalStateException(c.name() + ": the unsplit parent faulted: " + reference.faults());
                }
                RunResult split = INTERPRETER.run(c.program(), bound, params);
                if (!split.ok()) {
                    return new Judgement(Verdict.DIFFERS, "the split faults (" + split.faults().getFirst().code() + ") with " + params + ", seed " + seed);
                }
                for (TensorDecl t : c.program().tensors()) {
                    if (t.role() != TensorRole.OUTPUT && t.role() != TensorRole.STATE) {
                        continue;
                    }
                    Tensor expected = window(reference.tensors(), t, decls.get(t.name()));
                    if (expected == null) {
                        return new Judgement(Verdict.DIFFERS, "output " + t.name() + " is no window of an output of the parent");
                    }
                    String diff = difference(expected, split.tensor(t.name()), how.relativeTolerance());
                    if (diff != null) {
                        return new Judgement(Verdict.DIFFERS, t.name() + " " + diff + " with " + params + ", seed " + seed);
                    }
                }
            }
        }
        return new Judgement(Verdict.AGREES, "every output agrees");
    }

    private static List<Map<String, Long>> paramValues(Program p) {
        List<Map<String, Long>> out = new ArrayList<>();
        if (p.params().isEmpty()) {
            out.add(Map.of());
            return out;
        }
        Param only = p.params().getFirst();
        for (long v = only.min(); v <= only.max(); v++) {
            out.add(Map.of(only.name(), v));
        }
        return out;
    }

    private static Map<String, Tensor> logicalInputs(Program parent, long seed, double scale) {
        SplittableRandom r = new SplittableRandom(seed);
        Map<String, Tensor> m = new LinkedHashMap<>();
        for (TensorDecl t : parent.tensors()) {
            if (t.role().isBoundBeforeRun()) {
                float[] v = new float[Math.toIntExact(t.shape().elementCount())];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) (scale * (2 * r.nextDouble() - 1));
                }
                m.put(t.name(), Tensor.fromFloats(t.dtype(), t.shape(), v));
            }
        }
        return m;
    }

    /** The window of a logical tensor that split tensor {@code t} holds, by its declaration; null when there is none of its shape. */
    private static Tensor window(Map<String, Tensor> logical, TensorDecl t, ShardDecl d) {
        Tensor whole = logical.get(d != null ? d.logical() : t.name());
        if (whole == null || whole.shape().rank() != t.shape().rank()) {
            return null;
        }
        int rank = t.shape().rank();
        int[] start = new int[rank];
        for (int a = 0; a < rank; a++) {
            int s = d != null && d.axis() == a ? (int) d.start() : 0;
            if (s + t.shape().dim(a) > whole.shape().dim(a)) {
                return null;
            }
            start[a] = s;
        }
        int n = Math.toIntExact(t.shape().elementCount());
        float[] v = new float[n];
        int[] idx = new int[rank];
        for (int i = 0; i < n; i++) {
            long flat = 0;
            for (int a = 0; a < rank; a++) {
                flat = flat * whole.shape().dim(a) + start[a] + idx[a];
            }
            v[i] = whole.getFloat(flat);
            for (int a = rank - 1; a >= 0 && ++idx[a] == t.shape().dim(a); a--) {
                idx[a] = 0;
            }
        }
        return Tensor.fromFloats(t.dtype(), t.shape(), v);
    }

    private static String difference(Tensor expected, Tensor got, double relativeTolerance) {
        if (got == null || !got.shape().equals(expected.shape())) {
            return "is " + (got == null ? "missing" : got.shape()) + ", expected " + expected.shape();
        }
        double scale = 1;
        for (long i = 0; i < expected.size(); i++) {
            double e = Math.abs(expected.getDouble(i));
            scale = Double.isFinite(e) ? Math.max(scale, e) : scale;
        }
        for (long i = 0; i < expected.size(); i++) {
            double e = expected.getDouble(i);
            double g = got.getDouble(i);
            // equal values agree (infinities of one sign included); an infinity agrees with nothing else
            if (e != g && !(Math.abs(e - g) <= relativeTolerance * scale)) {
                return "differs at element " + i + ": " + got.getDouble(i) + " vs " + expected.getDouble(i);
            }
        }
        return null;
    }
}
