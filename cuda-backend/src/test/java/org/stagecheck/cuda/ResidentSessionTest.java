package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.StepRequest;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/**
 * A session keeps the weights on the device: over decode steps of the tiny model, after the first
 * step only the bound tensors that changed go up (the token; the KV cache is the object the last
 * step returned), only the tensors the program writes come back, and every step still agrees bit
 * for bit with the reference. A weight bound anew between steps is uploaded again, as is a state
 * tensor the device has overwritten since.
 */
@Tag("slow")
class ResidentSessionTest {
    /** Bytes of the control allocation: the 64-byte fault record and one 64-bit slot per parameter. */
    private static long controlBytes(Program p) {
        return 64 + 8L * Math.max(1, p.params().stream().map(x -> x.name()).distinct().count());
    }

    private static AuthorOutcome.Authored decode;
    private static CountingLauncher counting;
    private static CudaModule module;

    @BeforeAll
    static void compileOnce() throws Exception {
        decode = TinyModelDifferentialTest.author(Cut.decode(TinyModelDifferentialTest.CTX), AuthorOptions.single());
        module = CudaModule.build(List.of(decode.program()), GraphModeTest.options(), (source, o) -> {
            counting = new CountingLauncher(org.stagecheck.cuda.runtime.LauncherFactory.emulation().open(source, o));
            return counting;
        });
    }

    @AfterAll
    static void close() {
        if (module != null) {
            module.close();
        }
    }

    private static long bytes(TensorDecl t) {
        return t.shape().elementCount() * t.dtype().byteSize();
    }

    private static long bytes(Program p, Set<String> names) {
        return p.tensors().stream().filter(t -> names.contains(t.name())).mapToLong(ResidentSessionTest::bytes).sum();
    }

    /** Tensors some Store writes. */
    private static Set<String> written(Program p) {
        Set<String> w = new HashSet<>();
        p.stages().forEach(st -> {
            if (st.kind() instanceof StageKind.Store s) {
                w.add(s.tensor());
            }
        });
        return w;
    }

    /**
     * Names bound to another object than the device holds: for a tensor the program writes, the
     * one the last step returned; for the others, the one bound last.
     */
    private static Set<String> changed(Set<String> written, Map<String, Tensor> before, RunResult last, Map<String, Tensor> now) {
        Set<String> out = new HashSet<>();
        for (String n : now.keySet()) {
            Tensor held = last == null ? null : written.contains(n) ? last.tensor(n) : before.get(n);
            if (held != now.get(n)) {
                out.add(n);
            }
        }
        return out;
    }

    private static Set<String> names(Program p, TensorRole role) {
        Set<String> out = new HashSet<>();
        p.tensors().stream().filter(t -> t.role() == role).forEach(t -> out.add(t.name()));
        return out;
    }

    /** The tensor with every element's sign flipped (a new object with new bytes). */
    private static Tensor negated(Tensor t) {
        float[] v = t.toFloats();
        for (int i = 0; i < v.length; i++) {
            v[i] = -v[i] + 0.25f;
        }
        return Tensor.fromFloats(t.dtype(), t.shape(), v);
    }

    @Test
    void afterTheFirstStepOnlyWhatChangedMovesAndEveryStepAgreesWithTheReference() throws Exception {
        Program p = decode.program();
        Set<String> written = written(p);
        Set<String> unboundWritten = new HashSet<>(written);
        unboundWritten.removeAll(decode.bound().keySet());
        String weight = p.tensors().stream().filter(t -> t.role() == TensorRole.WEIGHT && t.dtype().isFloating())
                .filter(t -> t.name().contains("norm")).reduce((a, b) -> b).orElseThrow().name();
        Interpreter interp = new Interpreter(RunOptions.defaults().withThreads(1));
        Map<String, Tensor> refBound = new LinkedHashMap<>(decode.bound());
        Map<String, Tensor> bound = new LinkedHashMap<>(decode.bound());
        Map<String, Tensor> before = Map.of();
        RunResult last = null;
        try (CudaSession s = CudaSession.of(module, 0, false)) {
            for (int pos = 0; pos < 6; pos++) {
                if (pos == 3) {
                    // a weight bound anew: it must reach the device, or this step computes with the old one
                    Tensor w = negated(bound.get(weight));
                    bound.put(weight, w);
                    refBound.put(weight, w);
                }
                Map<String, Long> params = Map.of("pos", (long) pos);
                counting.reset();
                RunResult act = s.step(bound, params);
                CountingLauncher.Moved m = counting.moved();
                RunResult ref = interp.run(p, refBound, params);
                assertThat(ref.ok()).isTrue();
                assertThat(Agreement.compare(p, ref, act)).as("step %d", pos).isEmpty();

                Set<String> changed = changed(written, before, last, bound);
                if (pos == 0) {
                    assertThat(changed).isEqualTo(bound.keySet());
                } else if (pos == 3) {
                    assertThat(changed).isEqualTo(union(names(p, TensorRole.INPUT), Set.of(weight)));
                } else {
                    // the KV cache is the object the last step returned: only the token changed
                    assertThat(changed).isEqualTo(names(p, TensorRole.INPUT));
                }
                assertThat(m.uploaded()).as("bytes uploaded at step %d", pos).isEqualTo(bytes(p, changed) + controlBytes(p));
                assertThat(m.downloaded()).as("bytes downloaded at step %d", pos).isEqualTo(bytes(p, written) + 32);
                // outputs start zeroed, as the reference's do: cleared on the device once they hold a result
                assertThat(m.zeroed()).isEqualTo(pos == 0 ? 0 : bytes(p, unboundWritten));

                before = new LinkedHashMap<>(bound);
                last = act;
                bound = TinyModelDifferentialTest.carry(p, bound, act);
                refBound = TinyModelDifferentialTest.carry(p, refBound, ref);
            }
        }
        assertThat(names(p, TensorRole.WEIGHT)).isNotEmpty();
        assertThat(names(p, TensorRole.STATE)).isNotEmpty().isSubsetOf(written);
    }

    @Test
    void aStateTensorTheDeviceOverwroteIsUploadedAgainWhenBoundAgain() throws Exception {
        Program p = decode.program();
        try (CudaSession s = CudaSession.of(module, 0, false)) {
            RunResult first = s.step(decode.bound(), Map.of("pos", 0L));
            s.step(TinyModelDifferentialTest.carry(p, decode.bound(), first), Map.of("pos", 1L));
            // the original bindings again: the cache the device holds is step 1's, so it must go up
            counting.reset();
            RunResult again = s.step(decode.bound(), Map.of("pos", 0L));
            Set<String> state = names(p, TensorRole.STATE);
            assertThat(counting.moved().uploaded()).isEqualTo(bytes(p, union(state, names(p, TensorRole.INPUT))) + controlBytes(p));
            for (var t : first.tensors().entrySet()) {
                assertThat(again.tensor(t.getKey()).bitEquals(t.getValue())).as(t.getKey()).isTrue();
            }
        }
    }

    @Test
    void aStepBringsBackOnlyTheTensorsAskedFor() throws Exception {
        Program p = decode.program();
        Set<String> outputs = names(p, TensorRole.OUTPUT);
        try (CudaSession s = CudaSession.of(module, 0, false)) {
            RunResult all = s.step(decode.bound(), Map.of("pos", 0L));
            counting.reset();
            RunResult some = s.step(decode.bound(), Map.of("pos", 0L), StepRequest.of(false, false).fetching(outputs));
            assertThat(some.tensors().keySet()).isEqualTo(outputs);
            assertThat(counting.moved().downloaded()).isEqualTo(bytes(p, outputs) + 32);
            for (String o : outputs) {
                assertThat(some.tensor(o).bitEquals(all.tensor(o))).as(o).isTrue();
            }
        }
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> u = new HashSet<>(a);
        u.addAll(b);
        return u;
    }
}
