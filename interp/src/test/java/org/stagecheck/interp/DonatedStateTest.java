package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.ir.AccessPattern;
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
 * Donated tensors ({@link PreparedProgram#run(Map, Map, Set)}): a run given a state tensor may
 * update it in place, and computes the same values as a run that copies it; without donation the
 * caller's tensor never changes; a donated tensor whose storage is also bound under another name
 * is copied, so the other name still reads its own value.
 */
class DonatedStateTest {
    /** cache [3, 2] (state): row pos of it = x + 1; then y = input "old", loaded after that store. */
    private static Fixtures program(Tensor cache, Tensor old) {
        return Fixtures.program()
                .param("pos", 0, 2, 0)
                .tensor("cache", TensorRole.STATE, 0, cache)
                .input("old", old)
                .input("x", f32(dims(1, 2), 10, 20))
                .output("y", DType.F32, 3, 2)
                .buffer("X", DType.F32, 1, 2).buffer("R", DType.F32, 1, 2).buffer("O", DType.F32, 3, 2)
                .buffer("Y", DType.F32, 3, 2)
                .loadAll("lx", "x", "X", Fixtures.CORE)
                .generic("inc", List.of("X"), "R", Expr.apply(Fn.ADD, Expr.in(0), Expr.f(1.0)))
                .stage("srow", List.of("R"), List.of(), new StageKind.Store("cache",
                        new AccessPattern.Block(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(1, 2)), 1, 2))
                // read "old" after the store: it must be the caller's value whatever "cache" did
                .loadAll("lold", "old", "O", Fixtures.CORE)
                .generic("copy", List.of("O"), "Y", Expr.apply(Fn.MUL, Expr.in(0), Expr.f(1.0)))
                .storeAll("sy", "Y", "y", Fixtures.CORE);
    }

    private static Tensor zeros() {
        return f32(dims(3, 2), 0, 0, 0, 0, 0, 0);
    }

    @Test
    void aDonatedStateIsUpdatedInPlaceWithTheValuesOfACopyingRun() {
        Fixtures f = program(zeros(), zeros());
        Program p = f.build();
        PreparedProgram prepared = new Interpreter(RunOptions.defaults()).prepare(p);
        Tensor donated = zeros();
        Tensor kept = zeros();
        for (int pos = 0; pos < 3; pos++) {
            Map<String, Tensor> withDonated = new HashMap<>(Map.of("cache", donated, "old", zeros(), "x", f.bound().get("x")));
            Map<String, Tensor> withKept = new HashMap<>(Map.of("cache", kept, "old", zeros(), "x", f.bound().get("x")));
            float[] before = kept.toFloats();
            RunResult d = prepared.run(withDonated, Map.of("pos", (long) pos), Set.of("cache"));
            RunResult c = prepared.run(withKept, Map.of("pos", (long) pos));
            assertThat(d.faults()).isEmpty();
            assertThat(c.faults()).isEmpty();
            assertThat(d.tensor("cache").bitEquals(c.tensor("cache"))).as("pos %d", pos).isTrue();
            assertThat(d.tensor("cache")).as("updated in place").isSameAs(donated);
            assertThat(c.tensor("cache")).as("copied before the store").isNotSameAs(kept);
            assertThat(kept.toFloats()).as("the caller's tensor without donation").containsExactly(before);
            kept = c.tensor("cache");
        }
        assertThat(donated.toFloats()).containsExactly(11, 21, 11, 21, 11, 21);
    }

    /**
     * A binding map may hold null for a tensor that needs no value (an output starts zeroed):
     * donating another tensor changes nothing about that, and the run is not an exception.
     */
    @Test
    void aNullBindingOfAnOutputBesideADonatedState_RunsAsWithoutDonation() {
        Fixtures f = program(zeros(), zeros());
        PreparedProgram prepared = new Interpreter(RunOptions.defaults()).prepare(f.build());
        Map<String, Tensor> bound = new HashMap<>(Map.of("cache", zeros(), "old", zeros(), "x", f.bound().get("x")));
        bound.put("y", null);
        RunResult plain = prepared.run(bound, Map.of("pos", 1L));
        RunResult donated = prepared.run(bound, Map.of("pos", 1L), Set.of("cache"));
        assertThat(plain.faults()).isEmpty();
        assertThat(donated.faults()).isEmpty();
        assertThat(donated.tensor("cache").toFloats()).containsExactly(0, 0, 11, 21, 0, 0);
        assertThat(donated.tensor("y").bitEquals(plain.tensor("y"))).isTrue();
    }

    @Test
    void aDonatedTensorBoundUnderAnotherNameToo_IsCopied() {
        Fixtures f = program(zeros(), zeros());
        PreparedProgram prepared = new Interpreter(RunOptions.defaults()).prepare(f.build());
        Tensor both = zeros();
        Map<String, Tensor> bound = Map.of("cache", both, "old", both, "x", f.bound().get("x"));
        RunResult r = prepared.run(bound, Map.of("pos", 1L), Set.of("cache"));
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("cache").toFloats()).containsExactly(0, 0, 11, 21, 0, 0);
        // "old" read after the store still reads zeros: the shared storage was copied, not written
        assertThat(r.tensor("y").toFloats()).containsOnly(0f);
        assertThat(both.toFloats()).containsOnly(0f);
    }

    @Test
    void aReshapedViewOfTheDonatedTensorBoundElsewhere_IsCopiedToo() {
        Fixtures f = program(zeros(), zeros());
        PreparedProgram prepared = new Interpreter(RunOptions.defaults()).prepare(f.build());
        Tensor cache = zeros();
        Tensor sameStorage = cache.reshaped(Shape.of(3, 2));
        RunResult r = prepared.run(Map.of("cache", cache, "old", sameStorage, "x", f.bound().get("x")), Map.of("pos", 2L),
                Set.of("cache"));
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("y").toFloats()).containsOnly(0f);
        assertThat(r.tensor("cache").toFloats()).containsExactly(0, 0, 0, 0, 11, 21);
    }
}
