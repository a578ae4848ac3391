package org.stagecheck.author.laws;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.model.Tensors;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * The states the laws start from: zero KV caches, the caches left by decoding a history one
 * token at a time, and a batch's inputs stacked from histories decoded alone; with the small
 * tensor helpers the laws share.
 */
final class LawStates {
    private final ModelSpec spec;
    private final CutRunner runner;

    LawStates(ModelSpec spec, CutRunner runner) {
        this.spec = spec;
        this.runner = runner;
    }

    /** A batch step's inputs, and each row's last token decoded alone (what the batch row must equal). */
    record BatchCase(Map<String, Tensor> inputs, List<Map<String, Tensor>> alone) {}

    /**
     * Decodes each history but its last token alone from zero caches, then that last token alone
     * at its position; the batch's inputs are the last tokens, their positions and the caches
     * before them stacked row after row.
     */
    BatchCase prepareBatch(int ctx, int[][] histories) throws RunFailed {
        int rows = histories.length;
        int[] last = new int[rows];
        int[] positions = new int[rows];
        List<Map<String, Tensor>> before = new ArrayList<>();
        List<Map<String, Tensor>> alone = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            int[] h = histories[r];
            if (h.length < 1 || h.length > ctx) {
                throw new RunFailed("history " + r + " has " + h.length + " tokens; it needs 1 to ctx = " + ctx);
            }
            Map<String, Tensor> state = decoded(ctx, java.util.Arrays.copyOf(h, h.length - 1));
            before.add(state);
            last[r] = h[h.length - 1];
            positions[r] = h.length - 1;
            alone.add(runner.runWhole(Cut.decode(ctx), with(state, Map.of("tokens", ints(last[r]))),
                    Map.of("pos", (long) positions[r])));
        }
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        inputs.put("tokens", ints(last));
        inputs.put("positions", ints(positions));
        for (String name : before.getFirst().keySet()) {
            List<Tensor> parts = new ArrayList<>();
            before.forEach(s -> parts.add(s.get(name)));
            inputs.put(name, stackRows(parts));
        }
        return new BatchCase(inputs, alone);
    }

    /** The KV caches after decoding {@code tokens} from position 0 with Decode{ctx}, from zero caches. */
    Map<String, Tensor> decoded(int ctx, int[] tokens) throws RunFailed {
        Map<String, Tensor> state = zeroCaches(ctx);
        for (int p = 0; p < tokens.length; p++) {
            state = CutRunner.caches(runner.runWhole(Cut.decode(ctx), with(state, Map.of("tokens", ints(tokens[p]))),
                    Map.of("pos", (long) p)));
        }
        return state;
    }

    /** Every layer's KV caches of one sequence of {@code ctx} positions (a ring of the window's slots when it is smaller), all zero. */
    Map<String, Tensor> zeroCaches(int ctx) {
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (int l = 0; l < spec.layers(); l++) {
            out.put("kv_k.l" + l, Tensor.zeros(DType.F32, Shape.of(spec.cacheSlots(ctx), spec.kvWidth())));
            out.put("kv_v.l" + l, Tensor.zeros(DType.F32, Shape.of(spec.cacheSlots(ctx), spec.kvWidth())));
        }
        return out;
    }

    /** {@code a} with {@code b}'s entries added (replacing equal names), in a new map. */
    static Map<String, Tensor> with(Map<String, Tensor> a, Map<String, Tensor> b) {
        Map<String, Tensor> out = new LinkedHashMap<>(a);
        out.putAll(b);
        return out;
    }

    /** An i32 vector of {@code v}. */
    static Tensor ints(int... v) {
        return Tensor.fromInts(Shape.of(v.length), v);
    }

    /** Rows {@code [start, start+count)} of a rank-2 tensor. */
    static Tensor rowsOf(Tensor t, int start, int count) {
        return Tensors.slice(t, 0, start, start + count);
    }

    /** f32 rank-2 tensors of equal width stacked along the rows. */
    static Tensor stackRows(List<Tensor> parts) {
        int cols = parts.getFirst().shape().dim(1);
        int rows = 0;
        for (Tensor p : parts) {
            rows += p.shape().dim(0);
        }
        float[] all = new float[rows * cols];
        int at = 0;
        for (Tensor p : parts) {
            float[] v = p.toFloats();
            System.arraycopy(v, 0, all, at, v.length);
            at += v.length;
        }
        return Tensor.fromFloats(DType.F32, Shape.of(rows, cols), all);
    }
}
