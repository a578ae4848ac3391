package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.at;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * A Load of one block is the value of that block at the time of the load, whether the evaluator
 * copies it or leaves it in place: a Store to the tensor after the Load does not change what the
 * buffer's readers (a MatMul reading it as B in place, a Generic reading a copy) see, traced or
 * not. And a prepared program gives, run after run, what a fresh run gives.
 */
class LoadInPlaceTest {
    /**
     * w [4, 6], owned by the run (not bound), is first written 0..23 by a Store, so only the Load
     * itself can protect the block it loads from the later Store of -1; x [1, 4] = 1, 2, 3, 4.
     */
    private static Fixtures program() {
        Expr rowMajorIndex = new Expr.Cast(DType.F32,
                Expr.apply(Fn.ADD, Expr.apply(Fn.MUL, new Expr.Index(0), Expr.i(6)), new Expr.Index(1)));
        return Fixtures.program()
                .output("w", DType.F32, 4, 6)
                .input("x", f32(dims(1, 4), 1, 2, 3, 4))
                .output("y", DType.F32, 1, 3).output("c", DType.F32, 4, 3)
                .buffer("X", DType.F32, 1, 4).buffer("B", DType.F32, 4, 3).buffer("Z", DType.F32, 4, 6)
                .buffer("W0", DType.F32, 4, 6).buffer("Y", DType.F32, 1, 3).buffer("C", DType.F32, 4, 3)
                .generic("iota", List.of(), "W0", rowMajorIndex)
                .storeAll("sw0", "W0", "w", Fixtures.CORE)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                // columns 2..4 of w: a block in w's layout, rows 6 apart
                .stage("lb", List.of(), List.of("B"), new StageKind.Load("w",
                        new AccessPattern.Block(at(0, 2), Shape.of(4, 3)), 1, null))
                // overwrite all of w with -1 after the load
                .generic("neg", List.of(), "Z", Expr.f(-1.0))
                .storeAll("sw", "Z", "w", Fixtures.CORE)
                .compute("mm", List.of("X", "B"), "Y", new ComputeOp.MatMul(false, false, null, null))
                .generic("twice", List.of("B"), "C", Expr.apply(Fn.MUL, Expr.in(0), Expr.f(2.0)))
                .storeAll("sy", "Y", "y", Fixtures.CORE)
                .storeAll("sc", "C", "c", Fixtures.CORE);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aStoreAfterALoadDoesNotChangeTheLoadedBlock(boolean trace) {
        RunResult r = program().run(RunOptions.defaults().withTrace(trace));
        assertThat(r.faults()).isEmpty();
        // y_j = sum_k x_k * w[k][2 + j] with the w of before the store: x = 1..4, w[k][c] = 6k + c
        assertThat(r.tensor("y").toFloats()).containsExactly(
                1 * 2 + 2 * 8 + 3 * 14 + 4 * 20, 1 * 3 + 2 * 9 + 3 * 15 + 4 * 21, 1 * 4 + 2 * 10 + 3 * 16 + 4 * 22);
        assertThat(r.tensor("c").toFloats()).containsExactly(4, 6, 8, 16, 18, 20, 28, 30, 32, 40, 42, 44);
        assertThat(r.tensor("w").toFloats()).containsOnly(-1f);
    }

    @Test
    void aPreparedProgramRunsLikeAFreshOneRunAfterRunAndConcurrently() throws Exception {
        Fixtures f = program();
        Program p = f.build();
        Interpreter interp = new Interpreter(RunOptions.defaults());
        PreparedProgram prepared = interp.prepare(p);
        List<Map<String, Tensor>> bindings = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            float[] x = {t, -t, 2 * t + 1, 0.5f * t};
            Map<String, Tensor> b = new java.util.HashMap<>(f.bound());
            b.put("x", f32(dims(1, 4), x));
            bindings.add(b);
        }
        List<CompletableFuture<RunResult>> concurrent = new ArrayList<>();
        for (Map<String, Tensor> b : bindings) {
            concurrent.add(CompletableFuture.supplyAsync(() -> prepared.run(b, Map.of())));
        }
        for (int t = 0; t < bindings.size(); t++) {
            RunResult fresh = new Interpreter(RunOptions.defaults()).run(p, bindings.get(t), Map.of());
            RunResult again = prepared.run(bindings.get(t), Map.of());
            RunResult parallel = concurrent.get(t).get();
            for (String name : List.of("y", "c", "w")) {
                assertThat(again.tensor(name).bitEquals(fresh.tensor(name))).as(name + " run " + t).isTrue();
                assertThat(parallel.tensor(name).bitEquals(fresh.tensor(name))).as(name + " concurrent run " + t).isTrue();
            }
        }
    }
}
