package org.stagecheck.interp.ops;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.CORE;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.Shape;

/**
 * A review of the evaluator, layout ops and Reduce against straightforward index loops written here
 * (docs/semantics.md, "Layout ops", "Reduce"): transposes of rank 1-4 by random permutations,
 * slices touching the edges, concat of several inputs along every axis, reshape across ranks, and
 * every reduction on every axis of rank 1-4 inputs with extent-1 axes; values include NaN, -0 and
 * ties so that the rules on them are exercised.
 */
class LayoutAndReduceTest {

    private static int[] randomDims(Random r, int rank) {
        int[] d = new int[rank];
        for (int a = 0; a < rank; a++) {
            d[a] = 1 + r.nextInt(4);
        }
        return d;
    }

    private static float[] values(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            int pick = r.nextInt(10);
            v[i] = switch (pick) {
                case 0 -> Float.NaN;
                case 1 -> -0.0f;
                case 2 -> 0.0f;
                case 3 -> 1.0f; // ties for argmax
                default -> (float) r.nextInt(7) - 3 + r.nextInt(4) * 0.25f;
            };
        }
        return v;
    }

    private static int[] unflatten(long e, int[] dims) {
        int[] idx = new int[dims.length];
        for (int a = dims.length - 1; a >= 0; a--) {
            idx[a] = (int) (e % dims[a]);
            e /= dims[a];
        }
        return idx;
    }

    private static long flatten(int[] idx, int[] dims) {
        long e = 0;
        for (int a = 0; a < dims.length; a++) {
            e = e * dims[a] + idx[a];
        }
        return e;
    }

    private static RunResult one(Tensor x, int[] outDims, DType outType, ComputeOp op) {
        return Fixtures.program().input("x", x)
                .buffer("X", x.dtype(), x.shape().toArray()).buffer("Y", outType, outDims)
                .loadAll("l", "x", "X", CORE)
                .compute("op", List.of("X"), "Y", op)
                .run();
    }

    @SeededProperty(tries = 60)
    void transposeMovesElementIdxToThePermutedIndex(long seed) {
        Random r = new Random(seed);
        int rank = 1 + r.nextInt(4);
        int[] dims = randomDims(r, rank);
        List<Integer> perm = new ArrayList<>();
        for (int a = 0; a < rank; a++) {
            perm.add(a);
        }
        java.util.Collections.shuffle(perm, r);
        int[] outDims = new int[rank];
        for (int a = 0; a < rank; a++) {
            outDims[a] = dims[perm.get(a)];
        }
        Tensor x = Tensor.fromFloats(DType.F32, Shape.of(dims), values(r, (int) Shape.of(dims).elementCount()));
        RunResult res = one(x, outDims, DType.F32, new ComputeOp.Transpose(perm));
        assertThat(res.faults()).isEmpty();
        Tensor y = res.trace().get("op").getFirst();
        for (long e = 0; e < y.size(); e++) {
            int[] o = unflatten(e, outDims);
            int[] i = new int[rank];
            for (int a = 0; a < rank; a++) {
                i[perm.get(a)] = o[a];
            }
            assertThat(Float.floatToRawIntBits(y.getFloat(e))).isEqualTo(Float.floatToRawIntBits(x.getFloat(flatten(i, dims))));
        }
    }

    @SeededProperty(tries = 60)
    void aSliceAtTheEdgesIsTheWindow(long seed) {
        Random r = new Random(seed);
        int rank = 1 + r.nextInt(4);
        int[] dims = randomDims(r, rank);
        int[] out = new int[rank];
        List<Integer> starts = new ArrayList<>();
        for (int a = 0; a < rank; a++) {
            out[a] = 1 + r.nextInt(dims[a]);
            // half the time flush against the far edge, else against the near one or anywhere
            int s = switch (r.nextInt(3)) {
                case 0 -> dims[a] - out[a];
                case 1 -> 0;
                default -> r.nextInt(dims[a] - out[a] + 1);
            };
            starts.add(s);
        }
        Tensor x = Tensor.fromFloats(DType.BF16, Shape.of(dims), values(r, (int) Shape.of(dims).elementCount()));
        RunResult res = one(x, out, DType.BF16, new ComputeOp.Slice(starts));
        assertThat(res.faults()).isEmpty();
        Tensor y = res.trace().get("op").getFirst();
        for (long e = 0; e < y.size(); e++) {
            int[] o = unflatten(e, out);
            for (int a = 0; a < rank; a++) {
                o[a] += starts.get(a);
            }
            assertThat(Float.floatToRawIntBits(y.getFloat(e))).isEqualTo(Float.floatToRawIntBits(x.getFloat(flatten(o, dims))));
        }
        // one past the far edge on a random axis is a fault
        int a = r.nextInt(rank);
        List<Integer> past = new ArrayList<>(starts);
        past.set(a, dims[a] - out[a] + 1);
        assertThat(one(x, out, DType.BF16, new ComputeOp.Slice(past)).faults().getFirst().code()).isEqualTo("LAYOUT_SHAPE");
    }

    @SeededProperty(tries = 60)
    void concatOfSeveralInputsAlongEveryAxis(long seed) {
        Random r = new Random(seed);
        int rank = 1 + r.nextInt(4);
        int inputs = 1 + r.nextInt(4);
        int axis = r.nextInt(rank);
        int[] dims = randomDims(r, rank);
        Fixtures p = Fixtures.program();
        List<String> ports = new ArrayList<>();
        List<Tensor> parts = new ArrayList<>();
        int total = 0;
        for (int q = 0; q < inputs; q++) {
            int[] d = dims.clone();
            d[axis] = r.nextInt(3); // empty parts too
            Tensor t = Tensor.fromInts(Shape.of(d), r.ints((int) Shape.of(d).elementCount()).toArray());
            p.input("x" + q, t).buffer("X" + q, DType.I32, d).loadAll("l" + q, "x" + q, "X" + q, CORE);
            ports.add("X" + q);
            parts.add(t);
            total += d[axis];
        }
        int[] outDims = dims.clone();
        outDims[axis] = total;
        RunResult res = p.buffer("Y", DType.I32, outDims).compute("op", ports, "Y", new ComputeOp.Concat(axis)).run();
        assertThat(res.faults()).isEmpty();
        Tensor y = res.trace().get("op").getFirst();
        for (long e = 0; e < y.size(); e++) {
            int[] o = unflatten(e, outDims);
            int q = 0;
            while (o[axis] >= parts.get(q).shape().dim(axis)) {
                o[axis] -= parts.get(q).shape().dim(axis);
                q++;
            }
            assertThat(y.getInt(e)).isEqualTo(parts.get(q).getInt(flatten(o, parts.get(q).shape().toArray())));
        }
    }

    @SeededProperty(tries = 30)
    void reshapeAcrossRanksKeepsRowMajorOrder(long seed) {
        Random r = new Random(seed);
        int rank = r.nextInt(5);
        int[] dims = randomDims(r, rank);
        int n = (int) Shape.of(dims).elementCount();
        Tensor x = Tensor.fromFloats(DType.F16, Shape.of(dims), values(r, n));
        RunResult res = one(x, new int[] {1, n, 1}, DType.F16, new ComputeOp.Reshape());
        assertThat(res.faults()).isEmpty();
        assertThat(res.trace().get("op").getFirst().rawBits16()).containsExactly(x.rawBits16());
    }

    @SeededProperty(tries = 120)
    void everyReductionOnEveryAxisEqualsTheSequentialFold(long seed) {
        Random r = new Random(seed);
        int rank = 1 + r.nextInt(4);
        ReduceFn fn = ReduceFn.values()[r.nextInt(ReduceFn.values().length)];
        int[] dims = randomDims(r, rank);
        int axis = r.nextInt(rank);
        Tensor x = Tensor.fromFloats(DType.F32, Shape.of(dims), values(r, (int) Shape.of(dims).elementCount()));
        int[] outDims = dims.clone();
        outDims[axis] = 1;
        DType outType = fn == ReduceFn.ARGMAX ? DType.I32 : DType.F32;
        RunResult res = one(x, outDims, outType, new ComputeOp.Reduce(fn, axis));
        assertThat(res.faults()).isEmpty();
        Tensor y = res.trace().get("op").getFirst();
        for (long e = 0; e < y.size(); e++) {
            int[] idx = unflatten(e, outDims);
            // numpy-style reference written independently: NaN propagates; argmax = first max, first NaN wins
            float acc = 0;
            int best = -1;
            float bestValue = 0;
            for (int a = 0; a < dims[axis]; a++) {
                idx[axis] = a;
                float v = x.getFloat(flatten(idx, dims));
                if (a == 0) {
                    acc = v;
                } else {
                    acc = switch (fn) {
                        case SUM -> acc + v;
                        case MAX -> Float.isNaN(acc) || Float.isNaN(v) ? Float.NaN : (v > acc || (v == acc && Float.compare(v, acc) > 0) ? v : acc);
                        case MIN -> Float.isNaN(acc) || Float.isNaN(v) ? Float.NaN : (v < acc || (v == acc && Float.compare(v, acc) < 0) ? v : acc);
                        case ARGMAX -> acc;
                    };
                }
                if (best < 0 || (!Float.isNaN(bestValue) && (Float.isNaN(v) || v > bestValue))) {
                    best = a;
                    bestValue = v;
                }
            }
            if (fn == ReduceFn.ARGMAX) {
                assertThat(y.getInt(e)).as("argmax at %s", java.util.Arrays.toString(idx)).isEqualTo(best);
            } else {
                assertThat(Float.floatToRawIntBits(y.getFloat(e))).as("%s at %s", fn, java.util.Arrays.toString(idx))
                        .isEqualTo(Float.floatToRawIntBits(acc));
            }
        }
    }
}
