package org.stagecheck.cuda;

import org.stagecheck.cuda.runtime.ForwardingLauncher;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.cuda.runtime.DeviceBench;
import org.stagecheck.cuda.runtime.DeviceTiming;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.RandomBindings;

/**
 * The benchmark's {@code l2} flag against the launches that really come between two uses of one
 * copy. A kernel's graph holds {@code reps} launches on {@code reps} copies and is replayed twice
 * (once untimed, then timed): each copy the timed replay touches was touched by the untimed one
 * {@code reps - 1} launches before, whatever the number of copies. A kernel is beyond the L2 only
 * when those launches move at least the L2; with fewer, its figure may be L2 hits and it must be
 * flagged.
 */
@Tag("slow")
class DeviceBenchL2FlagTest {
    private static final int REPS = 2;

    /** One Load of a 64 x 64 f32 weight and one Store of it: the Load moves most of the chip. */
    private static final String PROGRAM = """
            {"format": "stagecheck-program", "version": 1, "name": "load-store",
             "machine": {"chips": 1, "width": 1, "height": 1}, "params": [], "groups": [],
             "tensors": [{"name": "w", "dtype": "f32", "shape": [64, 64], "chip": 0, "role": "weight"},
                         {"name": "out", "dtype": "f32", "shape": [64, 64], "chip": 0, "role": "output"}],
             "buffers": [{"name": "w_buf", "dtype": "f32", "shape": [64, 64], "site": [0, 0, 0]}],
             "stages": [
               {"id": "load_w", "site": [0, 0, 0], "ins": [], "outs": ["w_buf"],
                "kind": {"type": "Load", "tensor": "w", "pattern": {"type": "block", "origin": [0, 0], "block": [64, 64]}, "numBlocks": 1}},
               {"id": "store_out", "site": [0, 0, 0], "ins": ["w_buf"], "outs": [],
                "kind": {"type": "Store", "tensor": "out", "pattern": {"type": "block", "origin": [0, 0], "block": [64, 64]}, "subBlocks": [1, 1]}}]}
            """;

    @Test
    void aKernelIsBeyondL2OnlyWhenTheLaunchesBetweenTwoUsesOfItsCopyFillIt() throws Exception {
        Program p = new ProgramCodec().read(PROGRAM);
        Clock[] clock = new Clock[1];
        try (CudaModule module = CudaModule.build(List.of(p), TestBackends.emulation(), (source, o) -> {
            clock[0] = new Clock(LauncherFactory.emulation().open(source, o));
            return clock[0];
        }); CudaSession s = CudaSession.of(module, 0, true)) {
            long copyBytes = module.lowered().getFirst().memory().allChipBytes()[0];
            // an L2 of 8 copies: the benchmark rotates over 32 copies, but each graph uses only REPS of them
            clock[0].l2 = 8 * copyBytes;
            DeviceBench.Report r = DeviceBench.measure(s.runner(), clock[0], RandomBindings.forProgram(p, 1), Map.of(), REPS);

            assertThat(r.copies()).isGreaterThan(REPS);
            for (DeviceBench.KernelTime k : r.kernels()) {
                boolean filled = (long) (REPS - 1) * k.bytes() >= clock[0].l2;
                assertThat(k.beyondL2()).as("%s moves %d bytes; %d launches between two uses of a copy, L2 %d", k.kernel(), k.bytes(),
                        REPS - 1, clock[0].l2).isEqualTo(filled);
            }
        }
    }

    /** Host emulation with a clock that charges nothing: only the L2 figure matters here. */
    private static final class Clock extends ForwardingLauncher implements DeviceTiming {
        long l2;

        Clock(Launcher inner) {
            super(inner);
        }

        @Override
        public String device() {
            return "host emulation";
        }

        @Override
        public double peakBandwidthGBs() {
            return 1000;
        }

        @Override
        public long l2CacheBytes() {
            return l2;
        }

        @Override
        public float time(Work work) throws LaunchException {
            work.run();
            return 1;
        }
    }
}
