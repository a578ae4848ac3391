package org.stagecheck.cuda;

import org.stagecheck.cuda.runtime.ForwardingLauncher;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.GraphCounters;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.cuda.runtime.SideBranches;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * Graph mode (after the seed's SegState) in host emulation, on the tiny model's decode step:
 * replay equals eager bit for bit over 8 steps with the position moving and the cache carried; a
 * reallocated chip makes every graph that baked it stale, and they are captured again and
 * counted; a capture that fails turns graph mode off, the step runs eagerly with the same result,
 * and the counters' notes say why.
 */
@Tag("slow")
class GraphModeTest {
    static final int SEGMENT = 40;
    private static AuthorOutcome.Authored decode;
    private static CudaModule module;

    @BeforeAll
    static void compileOnce() throws Exception {
        decode = TinyModelDifferentialTest.author(Cut.decode(TinyModelDifferentialTest.CTX), AuthorOptions.single());
        module = new CudaBackend(options()).openAll(List.of(decode.program()));
    }

    static CudaOptions options() {
        return TestBackends.emulation().withSegmentStages(SEGMENT).withGraphs(true);
    }

    @AfterAll
    static void close() {
        if (module != null) {
            module.close();
        }
    }

    private static int segments(Program p) {
        return (p.stages().size() + SEGMENT - 1) / SEGMENT;
    }

    /** Runs {@code steps} decode steps on both sessions and requires bit-identical tensors at every step. */
    private static void sameEveryStep(CudaSession eager, CudaSession graphs, int steps, Runnable beforeStep3) {
        Program p = decode.program();
        Map<String, Tensor> be = new LinkedHashMap<>(decode.bound());
        Map<String, Tensor> bg = new LinkedHashMap<>(decode.bound());
        for (int pos = 0; pos < steps; pos++) {
            if (pos == 3) {
                beforeStep3.run();
            }
            Map<String, Long> params = Map.of("pos", (long) pos);
            RunResult e = eager.step(be, params);
            RunResult g = graphs.step(bg, params);
            assertThat(e.faults()).isEmpty();
            assertThat(g.faults()).isEmpty();
            for (var t : e.tensors().entrySet()) {
                assertThat(g.tensor(t.getKey()).bitEquals(t.getValue())).as("step %d tensor %s", pos, t.getKey()).isTrue();
            }
            be = TinyModelDifferentialTest.carry(p, be, e);
            bg = TinyModelDifferentialTest.carry(p, bg, g);
        }
    }

    @Test
    void replayEqualsEagerOverEightDecodeSteps() throws Exception {
        CudaSession eager = CudaSession.of(module, 0, false);
        CudaSession graphs = CudaSession.of(module, 0, true);
        sameEveryStep(eager, graphs, 8, () -> { });
        GraphCounters c = graphs.counters();
        int n = segments(decode.program());
        assertThat(n).isGreaterThan(1);
        assertThat(c.captures()).isEqualTo(n);
        assertThat(c.replays()).isEqualTo(8L * n);
        assertThat(c.recaptures()).isZero();
        assertThat(c.eagerLaunches()).isZero();
        assertThat(c.graphsDisabled()).isFalse();
        // tiny has side branches too (an attention head, the up projection): each forked and joined once per capture
        assertThat(c.sideForks()).isEqualTo(SideBranches.of(decode.program()).size()).isPositive();
        assertThat(c.sideJoins()).isEqualTo(c.sideForks());
        assertThat(eager.counters().eagerLaunches()).isEqualTo(8L * module.lowered().getFirst().kernels().size());
    }

    @Test
    void aReallocatedChipMakesTheGraphsStaleAndTheyAreCapturedAgain() throws Exception {
        CudaSession eager = CudaSession.of(module, 0, false);
        CudaSession graphs = CudaSession.of(module, 0, true);
        sameEveryStep(eager, graphs, 6, () -> {
            try {
                graphs.reallocate(0);
            } catch (LaunchException e) {
                throw new AssertionError(e);
            }
        });
        GraphCounters c = graphs.counters();
        int n = segments(decode.program());
        // every segment bakes chip 0's base address: all are stale after the move
        assertThat(c.recaptures()).isEqualTo(n);
        assertThat(c.captures()).isEqualTo(2L * n);
        assertThat(c.replays()).isEqualTo(6L * n);
        assertThat(c.notes()).anyMatch(s -> s.contains("stale"));
    }

    @Test
    void aFailedCaptureFallsBackToEagerAndSaysSo() throws Exception {
        LauncherFactory failing = (source, o) -> new FailingCapture(LauncherFactory.emulation().open(source, o));
        try (CudaModule broken = new CudaBackend(options(), failing).openAll(List.of(decode.program()))) {
            CudaSession eager = CudaSession.of(module, 0, false);
            CudaSession graphs = CudaSession.of(broken, 0, true);
            sameEveryStep(eager, graphs, 4, () -> { });
            GraphCounters c = graphs.counters();
            assertThat(c.graphsDisabled()).isTrue();
            assertThat(c.captures()).isZero();
            assertThat(c.replays()).isZero();
            assertThat(c.eagerFallbacks()).isEqualTo(1);
            assertThat(c.eagerLaunches()).isEqualTo(4L * broken.lowered().getFirst().kernels().size());
            assertThat(c.notes()).singleElement().asString()
                    .contains("graph capture of segment 0 failed", "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "running eagerly");
            assertThat(c.summary()).contains("graph mode off");
        }
    }

    /** A launcher whose captures fail as a driver's can (a call not allowed while capturing). */
    private static final class FailingCapture extends ForwardingLauncher {
        FailingCapture(Launcher inner) {
            super(inner);
        }

        @Override
        public void beginCapture() throws LaunchException {
            throw new LaunchException("CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "cuStreamBeginCapture: operation not permitted when stream is capturing");
        }
    }
}
