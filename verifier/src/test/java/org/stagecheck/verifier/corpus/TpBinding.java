package org.stagecheck.verifier.corpus;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * Deterministic inputs and weights for {@link TpPrograms}' programs, and how a split program's
 * tensors are cut from them (docs/verifier.md, "Soundness against the evaluator").
 *
 * <p>The logical tensors are the unsplit program's: {@code x [rows, d]}, {@code w1 [d, f]},
 * {@code b1 [1, f]}, {@code w2 [f, d]}, {@code b2 [1, d]}. Chip c of a split binds
 * {@code x.c} and {@code b2.c} to the whole value (replicated); {@code w1.c} and {@code b1.c} to
 * columns {@code [c*f/tp, (c+1)*f/tp)} (column-parallel, which the certificate does not claim);
 * and {@code w2.c} to the rows its certificate's {@link ShardDecl} names, so a certificate that
 * lies about a slice (the duplicated-slice plant) gets exactly the weights it claims.
 */
public final class TpBinding {

    /**
     * The unsplit program's bound tensors from {@code seed}: x uniform in [-1, 1), each weight
     * uniform in [-1, 1) scaled by 1/sqrt(fan-in), biases in [-1, 1).
     */
    public static Map<String, Tensor> logical(TpSpec s, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        Map<String, Tensor> m = new LinkedHashMap<>();
        m.put("x", uniform(r, 1.0, s.rows(), s.model()));
        m.put("w1", uniform(r, 1.0 / Math.sqrt(s.model()), s.model(), s.hidden()));
        if (s.bias1()) {
            m.put("b1", uniform(r, 1.0, 1, s.hidden()));
        }
        m.put("w2", uniform(r, 1.0 / Math.sqrt(s.hidden()), s.hidden(), s.model()));
        m.put("b2", uniform(r, 1.0, 1, s.model()));
        return m;
    }

    /** The split program's bound tensors, cut from {@code logical} as the class comment says. */
    public static Map<String, Tensor> split(TpSpec s, Program program, Certificate cert, Map<String, Tensor> logical) {
        Map<String, ShardDecl> shards = new LinkedHashMap<>();
        cert.shards().forEach(d -> shards.put(d.tensor(), d));
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (TensorDecl t : program.tensors()) {
            if (!t.role().isBoundBeforeRun()) {
                continue;
            }
            int dot = t.name().lastIndexOf('.');
            String base = t.name().substring(0, dot);
            int chip = Integer.parseInt(t.name().substring(dot + 1));
            Tensor whole = logical.get(base);
            Tensor value = switch (base) {
                case "x", "b2" -> whole;
                case "w1", "b1" -> columns(whole, chip * s.slice(), (chip + 1) * s.slice());
                case "w2" -> rows(whole, (int) shards.get(t.name()).start(), (int) shards.get(t.name()).end());
                default -> throw new IllegalArgumentException("no binding rule for tensor " + t.name());
            };
            out.put(t.name(), value);
        }
        return out;
    }

    static Tensor uniform(SplittableRandom r, double scale, int rows, int cols) {
        float[] v = new float[rows * cols];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) (scale * (2 * r.nextDouble() - 1));
        }
        return Tensor.fromFloats(DType.F32, Shape.of(rows, cols), v);
    }

    static Tensor columns(Tensor t, int from, int to) {
        int rows = t.shape().dim(0);
        int cols = t.shape().dim(1);
        float[] v = new float[rows * (to - from)];
        for (int i = 0; i < rows; i++) {
            for (int j = from; j < to; j++) {
                v[i * (to - from) + j - from] = t.getFloat((long) i * cols + j);
            }
        }
        return Tensor.fromFloats(DType.F32, Shape.of(rows, to - from), v);
    }

    static Tensor rows(Tensor t, int from, int to) {
        int cols = t.shape().dim(1);
        float[] v = new float[(to - from) * cols];
        for (int i = from; i < to; i++) {
            for (int j = 0; j < cols; j++) {
                v[(i - from) * cols + j] = t.getFloat((long) i * cols + j);
            }
        }
        return Tensor.fromFloats(DType.F32, Shape.of(to - from, cols), v);
    }

    private TpBinding() {}
}
