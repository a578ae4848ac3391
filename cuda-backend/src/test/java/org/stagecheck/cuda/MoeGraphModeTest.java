package org.stagecheck.cuda;

import org.stagecheck.cuda.runtime.ForwardingLauncher;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ExpertSplit;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.GraphCounters;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.cuda.runtime.HostLauncher;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.cuda.runtime.SideBranches;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * Graph mode with the side stream on the {@code tiny-moe} model (Qwen2-MoE style: a shared expert
 * beside the routed ones), in host emulation: the shared expert of every sparse layer is captured
 * on the side stream (fork, side launches, join), and replays equal eager launches bit for bit over
 * several decode steps, on one chip and split over two with either expert split, and on a prefill,
 * with the side stream run at the join and at the fork; every step also agrees with the reference.
 * A launcher that drops the join makes the capture fail as the driver's does (graph mode off, the
 * note says why, results still right); one that joins too late, or forks too early, gives a wrong
 * result, which is what the emulated side stream exists to show. Each cut's graph-mode outputs
 * pass a golden case recorded on the reference. The four programs share one compile.
 */
@Tag("slow") // compiles the MoE programs for host emulation
class MoeGraphModeTest {
    static final int CTX = 8;
    static final int SEGMENT = 40;
    private static final List<AuthorOutcome.Authored> cuts = new ArrayList<>();
    private static CudaModule module;

    static AuthorOutcome.Authored author(Cut cut, AuthorOptions options) {
        AuthorOutcome o = Author.author(ModelSpec.tinyMoe(), cut, options);
        if (!(o instanceof AuthorOutcome.Authored a)) {
            throw new IllegalStateException("tiny-moe " + cut + " was refused: " + o);
        }
        return a;
    }

    @BeforeAll
    static void compileOnce() throws Exception {
        cuts.add(author(Cut.decode(CTX), AuthorOptions.single()));
        cuts.add(author(Cut.prefill(4, CTX), AuthorOptions.single()));
        cuts.add(author(Cut.decode(CTX), AuthorOptions.split(2).withExpertSplit(ExpertSplit.EXPERT_PARALLEL)));
        cuts.add(author(Cut.decode(CTX), AuthorOptions.split(2).withExpertSplit(ExpertSplit.TENSOR_PARALLEL)));
        module = open(LauncherFactory.emulation());
    }

    static CudaOptions options() {
        return TestBackends.emulation().withHostOpt(0).withSegmentStages(SEGMENT).withGraphs(true);
    }

    /** The same compiled unit (the cache holds it after the first open) under another launcher. */
    private static CudaModule open(LauncherFactory factory) throws Exception {
        return new CudaBackend(options(), factory).openAll(cuts.stream().map(a -> a.program()).toList());
    }

    private static LauncherFactory sideAtFork() {
        return (source, o) -> HostLauncher.open(o.cache().hostLibrary(source, o.math(), o.hostOpt()), HostLauncher.SideOrder.AT_FORK);
    }

    @AfterAll
    static void close() {
        if (module != null) {
            module.close();
        }
    }

    /**
     * Runs {@code steps} steps of program {@code index} eagerly on {@code module} and in graph mode
     * on {@code graphed}, each carrying its own state; returns the graph session's counters and
     * whether every tensor of every step was bit-identical. The eager side is held to the reference.
     */
    private static Outcome run(CudaModule graphed, int index, int steps) throws Exception {
        AuthorOutcome.Authored a = cuts.get(index);
        Program p = a.program();
        boolean decode = a.params().containsKey("pos") && index != 1;
        Interpreter interp = new Interpreter(RunOptions.defaults().withThreads(1));
        Map<String, Tensor> br = new LinkedHashMap<>(a.bound());
        Map<String, Tensor> be = new LinkedHashMap<>(a.bound());
        Map<String, Tensor> bg = new LinkedHashMap<>(a.bound());
        boolean same = true;
        try (CudaSession eager = CudaSession.of(module, index, false); CudaSession graphs = CudaSession.of(graphed, index, true)) {
            for (int step = 0; step < steps; step++) {
                Map<String, Long> params = new LinkedHashMap<>(a.params());
                if (decode) {
                    params.put("pos", (long) step);
                }
                RunResult ref = interp.run(p, br, params);
                RunResult e = eager.step(be, params);
                RunResult g = graphs.step(bg, params);
                assertThat(ref.ok()).isTrue();
                assertThat(e.faults()).isEmpty();
                assertThat(g.faults()).isEmpty();
                assertThat(Agreement.compare(p, ref, e)).as("%s step %d against the reference", p.name(), step).isEmpty();
                for (var t : e.tensors().entrySet()) {
                    same &= g.tensor(t.getKey()).bitEquals(t.getValue());
                }
                if (decode) {
                    br = TinyModelDifferentialTest.carry(p, br, ref);
                    be = TinyModelDifferentialTest.carry(p, be, e);
                    bg = TinyModelDifferentialTest.carry(p, bg, g);
                }
            }
            return new Outcome(graphs.counters(), same);
        }
    }

    private record Outcome(GraphCounters counters, boolean bitIdentical) {}

    /** Side branches of program {@code index}: two per chip (an attention head and the shared expert) in each of the two layers. */
    private static List<SideBranches.Branch> branches(int index) {
        return SideBranches.of(cuts.get(index).program());
    }

    private static void replayEqualsEager(CudaModule graphed, int index, int steps) throws Exception {
        Outcome o = run(graphed, index, steps);
        assertThat(o.bitIdentical()).as("graph replay bit-identical to eager").isTrue();
        GraphCounters c = o.counters();
        int forksPerCapture = branches(index).size();
        assertThat(forksPerCapture).isPositive();
        assertThat(c.graphsDisabled()).isFalse();
        assertThat(c.eagerLaunches()).isZero();
        assertThat(c.recaptures()).isZero();
        assertThat(c.replays()).isEqualTo(steps * c.captures());
        // every branch lies whole in one segment, captured once
        assertThat(c.sideForks()).isEqualTo(forksPerCapture);
        assertThat(c.sideJoins()).isEqualTo(forksPerCapture);
        assertThat(c.sideLaunches()).isGreaterThan(c.sideForks());
        assertThat(c.summary()).contains("side-stream forks " + forksPerCapture, "joins " + forksPerCapture);
    }

    @Test
    void decodeOnOneChipReplaysEqualEagerOverFiveSteps() throws Exception {
        replayEqualsEager(module, 0, 5);
    }

    @Test
    void prefillReplaysEqualEager() throws Exception {
        replayEqualsEager(module, 1, 2);
    }

    @Test
    void expertParallelSplitReplaysEqualEager() throws Exception {
        replayEqualsEager(module, 2, 3);
    }

    @Test
    void tensorParallelSplitReplaysEqualEager() throws Exception {
        replayEqualsEager(module, 3, 3);
    }

    @Test
    void theSideStreamRunAtTheForkGivesTheSameResults() throws Exception {
        try (CudaModule atFork = open(sideAtFork())) {
            for (int index = 0; index < cuts.size(); index++) {
                Outcome o = run(atFork, index, 2);
                assertThat(o.bitIdentical()).as("%s, side stream at the fork", cuts.get(index).program().name()).isTrue();
                assertThat(o.counters().sideForks()).isEqualTo(branches(index).size());
            }
        }
    }

    @Test
    void aDroppedJoinFailsTheCaptureAsTheDriverDoes() throws Exception {
        LauncherFactory dropping = (source, o) -> new DroppedJoin(LauncherFactory.emulation().open(source, o));
        try (CudaModule broken = open(dropping)) {
            Outcome o = run(broken, 0, 3);
            GraphCounters c = o.counters();
            assertThat(c.graphsDisabled()).isTrue();
            assertThat(c.eagerFallbacks()).isEqualTo(1);
            assertThat(c.notes()).singleElement().asString().contains("CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "running eagerly");
            // the fall-back runs eagerly, on the main stream: right again
            assertThat(o.bitIdentical()).isTrue();
        }
    }

    @Test
    void aJoinTooLateGivesAWrongResult() throws Exception {
        LauncherFactory late = (source, o) -> new LateJoin(LauncherFactory.emulation().open(source, o));
        try (CudaModule broken = open(late)) {
            Outcome o = run(broken, 0, 2);
            assertThat(o.counters().graphsDisabled()).isFalse();
            assertThat(o.counters().sideForks()).isPositive();
            assertThat(o.bitIdentical()).as("the consumer ran before the side stream's kernels").isFalse();
        }
    }

    @Test
    void aForkTooEarlyGivesAWrongResultWhenTheSideStreamRunsAtTheFork() throws Exception {
        LauncherFactory early = (source, o) -> new EarlyFork(sideAtFork().open(source, o));
        try (CudaModule broken = open(early)) {
            Outcome o = run(broken, 0, 2);
            assertThat(o.counters().graphsDisabled()).isFalse();
            assertThat(o.bitIdentical()).as("the side stream ran before the activations it reads").isFalse();
        }
    }

    @Test
    void everyMoeCutInGraphModeMatchesAGoldenCaseRecordedOnTheReference(@TempDir Path dir) throws Exception {
        for (int index = 0; index < cuts.size(); index++) {
            AuthorOutcome.Authored a = cuts.get(index);
            Path golden = dir.resolve(a.program().name() + "-" + index);
            Golden.record(a.program(), a.bound(), a.params(), RecordOptions.defaults(), golden);
            try (CudaSession s = CudaSession.of(module, index, true)) {
                // the first step captures and replays, the second only replays
                for (int step = 0; step < 2; step++) {
                    RunResult r = s.step(a.bound(), a.params());
                    CaseResult c = Golden.check(golden, new Actuals.FromTensors(r.tensors()));
                    assertThat(c.status()).as("%s step %d: %s", a.program().name(), step, c.message()).isEqualTo(CaseResult.Status.PASS);
                }
                assertThat(s.counters().sideForks()).isPositive();
            }
        }
    }

    /** Never joins the side stream back. */
    private static final class DroppedJoin extends ForwardingLauncher {
        DroppedJoin(Launcher inner) {
            super(inner);
        }

        @Override
        public void join() {
            // dropped
        }
    }

    /** Forks as soon as a capture begins, before the kernels whose results the side stream reads. */
    private static final class EarlyFork extends ForwardingLauncher {
        private boolean forked;

        EarlyFork(Launcher inner) {
            super(inner);
        }

        @Override
        public void beginCapture() throws LaunchException {
            inner.beginCapture();
            inner.fork();
            forked = true;
        }

        @Override
        public void fork() throws LaunchException {
            if (!forked) {
                inner.fork();
            }
            forked = false;
        }

        @Override
        public Graph endCapture() throws LaunchException {
            if (forked) {
                // a segment without a branch: close the early fork so the capture stays valid
                inner.join();
                forked = false;
            }
            return inner.endCapture();
        }
    }

    /** Joins only when the capture ends, after the consumer of the side stream's result was launched. */
    private static final class LateJoin extends ForwardingLauncher {
        private int owed;

        LateJoin(Launcher inner) {
            super(inner);
        }

        @Override
        public void join() {
            owed++;
        }

        @Override
        public Graph endCapture() throws LaunchException {
            for (; owed > 0; owed--) {
                inner.join();
            }
            return inner.endCapture();
        }
    }
}
