package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * A KV-cache step that aliases everything the evaluator may leave in place: the cache is stored
 * into, loaded whole, windowed by a Slice (which a matmul multiplies where it lies, as B and as
 * B transposed), overwritten whole while the window is still to be read, loaded again as a block
 * view, and stored into again; the product's spill and a Generic read the old window too. Every
 * untraced run of a prepared program, with the cache donated or not, with 1 or 3 threads, in
 * every storage dtype of the cache, at a size the kernels run alone and one they split over
 * threads, equals a fresh traced run (which copies every value) bit for bit; the caller's tensors
 * never change unless donated.
 */
class CacheWindowAliasingTest {
    private static final int C0 = 4;

    private static Fixtures program(DType dt, int r, int c, int dh, int m) {
        return Fixtures.program()
                .param("pos", 0, r - 1, 0)
                .tensor("kv", TensorRole.STATE, 0, Tensor.zeros(dt, Shape.of(r, c)))
                .input("q", Tensor.zeros(DType.F32, Shape.of(m, dh)))
                .input("x", Tensor.zeros(DType.F32, Shape.of(1, c)))
                .output("s", DType.F32, m, r).output("o", DType.F32, m, dh).output("o2", DType.F32, m, dh)
                .output("w", DType.F32, r, dh).output("sp", DType.F32, m, r)
                .buffer("X", DType.F32, 1, c).buffer("XR", dt, 1, c).buffer("KV", dt, r, c).buffer("W", dt, r, dh)
                .buffer("Q", DType.F32, m, dh).buffer("S", DType.F32, m, r).buffer("SP", DType.F32, m, r)
                .buffer("Z", dt, r, c).buffer("W2", dt, r, dh).buffer("O", DType.F32, m, dh).buffer("O2", DType.F32, m, dh)
                .buffer("WD", DType.F32, r, dh)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .generic("round", List.of("X"), "XR", Expr.apply(Fn.MUL, Expr.in(0), Expr.f(1.0)))
                .stage("srow", List.of("XR"), List.of(), new StageKind.Store("kv", row(c), 1, 1))
                .loadAll("lkv", "kv", "KV", Fixtures.CORE)
                .compute("win", List.of("KV"), "W", new ComputeOp.Slice(List.of(0, C0)))
                .loadAll("lq", "q", "Q", Fixtures.CORE)
                .compute("qk", List.of("Q", "W"), "S", new ComputeOp.MatMul(false, true, null, "SP"))
                // the whole cache overwritten while the window W is still to be read
                .generic("minus", List.of(), "Z", Expr.f(-1.0))
                .storeAll("skv", "Z", "kv", Fixtures.CORE)
                .stage("lw2", List.of(), List.of("W2"), new StageKind.Load("kv",
                        new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant(C0)), Shape.of(r, dh)), 1, null))
                .compute("pv", List.of("S", "W"), "O", new ComputeOp.MatMul(false, false, null, null))
                // the spill is written again by a product over the new cache
                .compute("qk2", List.of("Q", "W2"), "S", new ComputeOp.MatMul(false, true, null, "SP"))
                .compute("pv2", List.of("S", "W2"), "O2", new ComputeOp.MatMul(false, false, null, null))
                .generic("twice", List.of("W"), "WD", Expr.apply(Fn.MUL, Expr.in(0), Expr.f(2.0)))
                .stage("srow2", List.of("XR"), List.of(), new StageKind.Store("kv", row(c), 1, 1))
                .storeAll("ss", "S", "s", Fixtures.CORE).storeAll("so", "O", "o", Fixtures.CORE)
                .storeAll("so2", "O2", "o2", Fixtures.CORE).storeAll("sw", "WD", "w", Fixtures.CORE)
                .storeAll("ssp", "SP", "sp", Fixtures.CORE);
    }

    private static AccessPattern row(int c) {
        return new AccessPattern.Block(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(1, c));
    }

    private static Tensor random(DType dt, Shape shape, Random rnd) {
        float[] v = new float[(int) shape.elementCount()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) rnd.nextGaussian();
        }
        return Tensor.fromFloats(dt, shape, v);
    }

    @ParameterizedTest(name = "{0}, {1}x{2} cache, window {3}, {4} rows")
    @CsvSource({
        "F32, 8, 12, 4, 2", "BF16, 8, 12, 4, 2", "F16, 8, 12, 4, 3", "E4M3, 8, 12, 4, 5",
        "F32, 512, 160, 128, 8", "BF16, 512, 160, 128, 2", "BF16, 512, 160, 128, 8", "E5M2, 300, 160, 128, 8"})
    void everyUntracedRunEqualsAFreshTracedRun(DType dt, int r, int c, int dh, int m) {
        Program p = program(dt, r, c, dh, m).build();
        Random rnd = new Random(r * 31L + m);
        for (int threads : new int[] {1, 3}) {
            PreparedProgram prepared = new Interpreter(RunOptions.defaults().withThreads(threads)).prepare(p);
            Interpreter fresh = new Interpreter(RunOptions.defaults().withThreads(1).withTrace(true));
            Tensor kv = random(dt, Shape.of(r, c), rnd);
            Tensor donatedKv = kv.copy();
            for (int round = 0; round < 3; round++) {
                Map<String, Tensor> bound = new HashMap<>(Map.of("kv", kv, "q", random(DType.F32, Shape.of(m, dh), rnd),
                        "x", random(DType.F32, Shape.of(1, c), rnd)));
                Map<String, Long> params = Map.of("pos", (long) rnd.nextInt(r));
                String what = "threads " + threads + ", round " + round;
                Tensor kvBefore = kv.copy();
                RunResult expected = fresh.run(p, bound, params);
                assertThat(expected.faults()).isEmpty();
                PreparedProgramReuseTest.assertSameRun(prepared.run(bound, params), expected, what);
                assertThat(kv.bitEquals(kvBefore)).as("%s: the caller's cache is unchanged", what).isTrue();
                Map<String, Tensor> donating = new HashMap<>(bound);
                donating.put("kv", donatedKv);
                RunResult donated = prepared.run(donating, params, Set.of("kv"));
                PreparedProgramReuseTest.assertSameRun(donated, expected, what + ", cache donated");
                // step after step: each run's cache is the next run's
                kv = expected.tensor("kv");
                donatedKv = donated.tensor("kv");
            }
        }
    }
}
