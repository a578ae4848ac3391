package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.CudaDriver;
import org.stagecheck.cuda.runtime.GraphCounters;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * The GPU test set (run by bin/gpu-check with -Pgpu; skipped, saying so, on a machine without a
 * CUDA driver): every example and the tiny decode step on the device against the reference, the
 * device bit-identical to host emulation, and graph replay equal to eager over 8 decode steps, of
 * tiny and of tiny-moe (its shared experts on the side stream).
 */
@Tag("gpu")
class GpuTest {
    @BeforeAll
    static void needsADriver() {
        boolean present;
        try {
            CudaDriver.system();
            present = true;
        } catch (LaunchException e) {
            present = false;
        }
        assumeTrue(present, "no CUDA driver on this machine: the GPU tests are skipped");
    }

    static CudaOptions device() {
        return CudaOptions.device().withCache(TestBackends.cache());
    }

    @Test
    void everyExampleOnTheDeviceAgreesWithTheReferenceAndWithEmulation() throws Exception {
        List<Path> files;
        try (Stream<Path> s = Files.list(Path.of("..", "examples"))) {
            files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        for (Path f : files) {
            Program p = ExamplesDifferentialTest.read(f);
            Map<String, Long> params = new LinkedHashMap<>();
            for (Param prm : p.params()) {
                params.put(prm.name(), prm.max());
            }
            Map<String, Tensor> bound = RandomBindings.forProgram(p, 11);
            RunResult ref = new Interpreter(RunOptions.defaults()).run(p, bound, params, true);
            RunResult gpu = new CudaBackend(device()).run(p, bound, params, true);
            RunResult emu = new CudaBackend(TestBackends.emulation()).run(p, bound, params, true);
            assertThat(Agreement.compare(p, ref, gpu)).as(p.name()).isEmpty();
            for (var e : emu.tensors().entrySet()) {
                assertThat(Agreement.differ(e.getValue(), gpu.tensor(e.getKey()), !Agreement.hasTranscendental(p)))
                        .as("%s: %s on the device vs emulation", p.name(), e.getKey()).isNull();
            }
        }
    }

    @Test
    void tinyDecodeReplaysEqualEagerOnTheDeviceOverEightSteps() throws Exception {
        replaysEqualEager(TinyModelDifferentialTest.author(Cut.decode(TinyModelDifferentialTest.CTX), AuthorOptions.single()));
    }

    /** The shared experts captured on the side stream (real events and a second stream). */
    @Test
    void tinyMoeDecodeWithTheSideStreamReplaysEqualEagerOnTheDevice() throws Exception {
        GraphCounters c = replaysEqualEager(MoeGraphModeTest.author(Cut.decode(MoeGraphModeTest.CTX), AuthorOptions.single()));
        assertThat(c.sideForks()).isPositive();
        assertThat(c.sideJoins()).isEqualTo(c.sideForks());
    }

    private static GraphCounters replaysEqualEager(AuthorOutcome.Authored a) throws Exception {
        Program p = a.program();
        Interpreter interp = new Interpreter(RunOptions.defaults());
        try (CudaSession eager = new CudaBackend(device().withSegmentStages(40)).prepare(p);
             CudaSession graphs = new CudaBackend(device().withSegmentStages(40).withGraphs(true)).prepare(p)) {
            Map<String, Tensor> br = new LinkedHashMap<>(a.bound());
            Map<String, Tensor> be = new LinkedHashMap<>(a.bound());
            Map<String, Tensor> bg = new LinkedHashMap<>(a.bound());
            for (int pos = 0; pos < 8; pos++) {
                Map<String, Long> params = Map.of("pos", (long) pos);
                RunResult r = interp.run(p, br, params);
                RunResult e = eager.step(be, params);
                RunResult g = graphs.step(bg, params);
                assertThat(Agreement.compare(p, r, e)).as("step %d", pos).isEmpty();
                for (var t : e.tensors().entrySet()) {
                    assertThat(g.tensor(t.getKey()).bitEquals(t.getValue())).as("step %d %s", pos, t.getKey()).isTrue();
                }
                br = TinyModelDifferentialTest.carry(p, br, r);
                be = TinyModelDifferentialTest.carry(p, be, e);
                bg = TinyModelDifferentialTest.carry(p, bg, g);
            }
            assertThat(graphs.counters().replays()).isPositive();
            assertThat(graphs.counters().graphsDisabled()).as(graphs.counters().notes().toString()).isFalse();
            return graphs.counters();
        }
    }
}
