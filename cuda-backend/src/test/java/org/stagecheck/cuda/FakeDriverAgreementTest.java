package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.GraphCounters;
import org.stagecheck.cuda.runtime.SideBranches;
import org.stagecheck.golden.Golden;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * The whole device path (CudaDriver, DriverLauncher, SegmentGraphs, the side stream) on the fake
 * driver, which runs the emulation library's kernels: every example and the tiny decode step (one
 * chip and two) agree with the reference interpreter bit for bit (NaN matching NaN), launched
 * eagerly and replayed from graphs; a graph made stale by a reallocation is captured again; a
 * capture the driver refuses falls back to eager launches; a data fault in a kernel names its
 * stage as the reference does. One compile for all of it (FakeDriverPrograms).
 */
@Tag("slow") // compiles the fake driver and the tiny decode step
class FakeDriverAgreementTest {
    private static CudaModule module;
    private static List<Program> programs;
    private static int examples;

    @BeforeAll
    static void compileOnce() throws Exception {
        FakeCuda.driver();
        FakeCuda.reset(false);
        programs = FakeDriverPrograms.all();
        examples = FakeDriverPrograms.exampleFiles().size();
        module = new CudaBackend(FakeDriverPrograms.options()).openAll(programs);
    }

    @AfterAll
    static void close() {
        if (module != null) {
            module.close();
        }
    }

    private static RunResult reference(Program p, Map<String, Tensor> bound, Map<String, Long> params) {
        return new Interpreter(RunOptions.defaults().withThreads(1)).run(p, bound, params, false);
    }

    /** The same faults (code, stage) and every tensor with the same bits (NaN matching NaN). */
    private static void sameBits(String what, RunResult ref, RunResult act) {
        assertThat(act.faults().stream().map(d -> d.code() + "@" + d.stageIndex()).toList()).as(what + " faults")
                .isEqualTo(ref.faults().stream().map(d -> d.code() + "@" + d.stageIndex()).toList());
        assertThat(act.stoppedAtStage()).as(what).isEqualTo(ref.stoppedAtStage());
        if (!ref.ok()) {
            return;
        }
        for (Map.Entry<String, Tensor> e : ref.tensors().entrySet()) {
            Tensor a = act.tensors().get(e.getKey());
            assertThat(a).as(what + " tensor " + e.getKey()).isNotNull();
            assertThat(Agreement.differ(e.getValue(), a, true)).as(what + " tensor " + e.getKey()).isNull();
        }
    }

    /** Graph mode ran from graphs: captured, replayed, never fell back. */
    private static void replayed(String what, GraphCounters c) {
        assertThat(c.captures()).as(what + ": " + c.notes()).isPositive();
        assertThat(c.replays()).as(what).isPositive();
        assertThat(c.eagerFallbacks()).as(what + ": " + c.notes()).isZero();
        assertThat(c.graphsDisabled()).as(what).isFalse();
    }

    @TestFactory
    Stream<DynamicTest> everyExampleEagerAndFromGraphsEqualsTheReference() {
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < examples; i++) {
            Program p = programs.get(i);
            int index = i;
            for (boolean atMax : new boolean[] {false, true}) {
                tests.add(DynamicTest.dynamicTest(p.name() + (atMax ? " at max params" : " at min params"), () -> {
                    Map<String, Long> params = new LinkedHashMap<>();
                    for (Param prm : p.params()) {
                        params.put(prm.name(), atMax ? prm.max() : prm.min());
                    }
                    Map<String, Tensor> bound = RandomBindings.forProgram(p, 11);
                    RunResult ref = reference(p, bound, params);
                    assertThat(ref.ok()).as("reference: %s", ref.faults()).isTrue();
                    try (CudaSession eager = CudaSession.of(module, index, false);
                         CudaSession graphs = CudaSession.of(module, index, true)) {
                        // the capture first: its launches are the first of these kernels in the module
                        sameBits(p.name() + " capture", ref, graphs.step(bound, params));
                        sameBits(p.name() + " eager", ref, eager.step(bound, params));
                        sameBits(p.name() + " replay", ref, graphs.step(bound, params));
                        replayed(p.name(), graphs.counters());
                    }
                }));
            }
        }
        return tests.stream();
    }

    private static int indexOf(String golden) {
        return examples + FakeDriverPrograms.GOLDEN.indexOf(golden);
    }

    @ParameterizedTest
    @ValueSource(strings = {"tiny-decode", "tiny-decode-tp2"})
    void theTinyDecodeStepOverThreeStepsEqualsTheReferenceEagerAndFromGraphs(String name) throws Exception {
        Golden.Recorded g = FakeDriverPrograms.golden(name);
        Program p = g.program();
        Map<String, Tensor> refBound = new LinkedHashMap<>(g.inputs());
        Map<String, Tensor> eagerBound = new LinkedHashMap<>(g.inputs());
        Map<String, Tensor> graphBound = new LinkedHashMap<>(g.inputs());
        try (CudaSession eager = CudaSession.of(module, indexOf(name), false);
             CudaSession graphs = CudaSession.of(module, indexOf(name), true)) {
            for (long pos = 0; pos < 3; pos++) {
                Map<String, Long> params = new LinkedHashMap<>(g.params());
                params.put("pos", pos);
                RunResult ref = reference(p, refBound, params);
                assertThat(ref.ok()).as("reference: %s", ref.faults()).isTrue();
                RunResult e = eager.step(eagerBound, params);
                RunResult r = graphs.step(graphBound, params);
                sameBits(name + " eager, pos " + pos, ref, e);
                sameBits(name + " graphs, pos " + pos, ref, r);
                refBound = TinyModelDifferentialTest.carry(p, refBound, ref);
                eagerBound = TinyModelDifferentialTest.carry(p, eagerBound, e);
                graphBound = TinyModelDifferentialTest.carry(p, graphBound, r);
            }
            replayed(name, graphs.counters());
            assertThat(graphs.counters().replays()).isGreaterThan(graphs.counters().captures());
        }
    }

    @Test
    void aGraphMadeStaleByAReallocationIsCapturedAgainAndStillAgrees() throws Exception {
        Golden.Recorded g = FakeDriverPrograms.golden("tiny-decode");
        Program p = g.program();
        try (CudaSession graphs = CudaSession.of(module, indexOf("tiny-decode"), true)) {
            sameBits("before", reference(p, g.inputs(), g.params()), graphs.step(g.inputs(), g.params()));
            long captured = graphs.counters().captures();
            graphs.reallocate(0);
            // a replay of the stale graphs would launch on the freed allocation: the fake driver faults on that
            sameBits("after the reallocation", reference(p, g.inputs(), g.params()), graphs.step(g.inputs(), g.params()));
            GraphCounters c = graphs.counters();
            assertThat(c.recaptures()).as(c.notes().toString()).isEqualTo(captured);
            assertThat(c.captures()).isEqualTo(2 * captured);
            assertThat(c.eagerFallbacks()).isZero();
        }
    }

    @Test
    void aCaptureTheDriverRefusesFallsBackToEagerLaunchesThatStillAgree() throws Exception {
        Golden.Recorded g = FakeDriverPrograms.golden("tiny-decode");
        Program p = g.program();
        FakeCuda.fail("cuStreamBeginCapture", 401);
        try (CudaSession graphs = CudaSession.of(module, indexOf("tiny-decode"), true)) {
            sameBits("fallen back", reference(p, g.inputs(), g.params()), graphs.step(g.inputs(), g.params()));
            GraphCounters c = graphs.counters();
            assertThat(c.graphsDisabled()).isTrue();
            assertThat(c.eagerFallbacks()).isEqualTo(1);
            assertThat(c.captures()).isZero();
            assertThat(c.notes()).singleElement().asString()
                    .startsWith("graph capture of segment 0 failed (CUDA_ERROR_ILLEGAL_STATE: ")
                    .endsWith("graph mode is off for this session; running eagerly");
        } finally {
            FakeCuda.reset(false);
        }
    }

    @Test
    void aCallFailingInsideACaptureIsTheCauseTheNoteNamesAndTheFallBackAgrees() throws Exception {
        Golden.Recorded g = FakeDriverPrograms.golden("tiny-decode");
        Program p = g.program();
        assertThat(SideBranches.of(p)).as("the tiny decode step forks a side branch").isNotEmpty();
        // the fork's cuStreamWaitEvent fails; the driver invalidates the capture, so ending it fails too
        FakeCuda.fail("cuStreamWaitEvent", 999);
        try (CudaSession graphs = CudaSession.of(module, indexOf("tiny-decode"), true)) {
            sameBits("fallen back", reference(p, g.inputs(), g.params()), graphs.step(g.inputs(), g.params()));
            GraphCounters c = graphs.counters();
            assertThat(c.graphsDisabled()).isTrue();
            assertThat(c.eagerFallbacks()).isEqualTo(1);
            assertThat(c.notes()).singleElement().asString().contains(" failed (CUDA_ERROR_UNKNOWN: cuStreamWaitEvent returned");
        } finally {
            FakeCuda.reset(false);
        }
    }

    @Test
    void anIndexOutOfRangeInAKernelNamesItsStageAsTheReferenceDoes() throws Exception {
        int index = FakeDriverPrograms.exampleFiles().stream().map(f -> f.getFileName().toString()).toList().indexOf("embedding-lookup.json");
        Program p = programs.get(index);
        Map<String, Tensor> bound = new LinkedHashMap<>(RandomBindings.forProgram(p, 5));
        bound.put("tokens", Tensor.fromInts(bound.get("tokens").shape(), new int[] {0, 1, 99, 2}));
        RunResult ref = reference(p, bound, Map.of());
        assertThat(ref.faults()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo("INDEX_OUT_OF_RANGE"));
        try (CudaSession eager = CudaSession.of(module, index, false); CudaSession graphs = CudaSession.of(module, index, true)) {
            RunResult e = eager.step(bound, Map.of());
            sameBits("eager", ref, e);
            sameBits("graphs", ref, graphs.step(bound, Map.of()));
            assertThat(e.stoppedAtStage()).isNotNull().isEqualTo(ref.stoppedAtStage());
        }
    }
}
