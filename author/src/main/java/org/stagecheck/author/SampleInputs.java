package org.stagecheck.author;

import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;

/**
 * Sample values for a cut's non-weight bound tensors, so that every authored program runs as
 * written: token ids {@code (3 + 7r) mod vocab}, batch positions {@code min(r, ctx-1)}, a hidden
 * state {@code h_in} of deterministic values in [-1, 1), zero KV caches, and {@code pos = 0}.
 */
final class SampleInputs {
    private SampleInputs() {
    }

    /** Unsplit (logical) sample inputs and state for {@code cut}, by logical name. */
    static Map<String, Tensor> logical(ModelSpec spec, Cut cut) {
        int rows = cut.rows();
        int ctx = cut.ctx();
        Map<String, Tensor> out = new LinkedHashMap<>();
        int[] tokens = new int[rows];
        int[] positions = new int[rows];
        for (int r = 0; r < rows; r++) {
            tokens[r] = (int) ((3L + 7L * r) % spec.vocab());
            positions[r] = Math.min(r, Math.max(ctx - 1, 0));
        }
        out.put("tokens", Tensor.fromInts(Shape.of(rows), tokens));
        out.put("positions", Tensor.fromInts(Shape.of(rows), positions));
        float[] h = new float[rows * spec.hidden()];
        long stream = spec.seed() ^ Weights.fnv1a64("h_in");
        for (int i = 0; i < h.length; i++) {
            h[i] = (float) Weights.unit(stream, i);
        }
        out.put("h_in", Tensor.fromFloats(DType.F32, Shape.of(rows, spec.hidden()), h));
        if (ctx > 0) {
            int slots = spec.cacheSlots(ctx);
            int cacheRows = cut.step() instanceof Cut.Step.Batch ? rows * slots : slots;
            for (int l = 0; l < spec.layers(); l++) {
                out.put("kv_k.l" + l, Tensor.zeros(DType.F32, Shape.of(cacheRows, spec.kvWidth())));
                out.put("kv_v.l" + l, Tensor.zeros(DType.F32, Shape.of(cacheRows, spec.kvWidth())));
            }
        }
        return out;
    }

    /** Sample parameters: every parameter at its minimum (pos = 0). */
    static Map<String, Long> params(Program program) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Param p : program.params()) {
            out.put(p.name(), p.min());
        }
        return out;
    }
}
