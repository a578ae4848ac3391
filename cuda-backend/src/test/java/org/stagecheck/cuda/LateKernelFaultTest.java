package org.stagecheck.cuda;

import org.stagecheck.cuda.runtime.ForwardingLauncher;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.cuda.runtime.StepRequest;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;

/**
 * A fault inside a kernel (an illegal address) is reported by the driver only at a later call:
 * the next synchronisation, or the next launch. Tracing, or synchronising after each stage,
 * names the stage whose kernel faulted; a plain run cannot, and says so instead of naming the
 * stage whose launch happened to report it.
 */
@Tag("slow")
class LateKernelFaultTest {
    private static AuthorOutcome.Authored decode;
    private static Kernel faulty;
    private static int faultyIndex;

    @BeforeAll
    static void author() throws Exception {
        decode = TinyModelDifferentialTest.author(Cut.decode(TinyModelDifferentialTest.CTX), AuthorOptions.single());
        List<Kernel> kernels = CudaModule.lower(List.of(decode.program())).programs().getFirst().kernels();
        // a kernel in the middle of the step, with stages after it
        faultyIndex = kernels.size() / 2;
        faulty = kernels.get(faultyIndex);
    }

    private static RunResult run(StepRequest how) throws Exception {
        LauncherFactory late = (source, o) -> new FaultsAtTheNextCall(LauncherFactory.emulation().open(source, o), faultyIndex);
        try (CudaModule m = CudaModule.build(List.of(decode.program()), TestBackends.emulation(), late);
             CudaSession s = CudaSession.of(m, 0, false)) {
            return s.step(decode.bound(), Map.of("pos", 0L), how);
        }
    }

    @Test
    void aTracedRunNamesTheStageWhoseKernelFaulted() throws Exception {
        RunResult r = run(StepRequest.of(true, false));
        Program p = decode.program();
        assertThat(r.stoppedAtStage()).isEqualTo(faulty.stageId()).isEqualTo(p.stages().get(faulty.stageIndex()).id());
        Diagnostic d = r.faults().getFirst();
        assertThat(d.code()).isEqualTo("CUDA_ERROR_ILLEGAL_ADDRESS");
        assertThat(d.message()).contains("stage " + faulty.stageIndex() + " '" + faulty.stageId() + "'");
    }

    @Test
    void aRunSynchronisingAfterEachStageNamesItToo() throws Exception {
        RunResult r = run(StepRequest.of(false, false).syncingEachStage());
        assertThat(r.stoppedAtStage()).isEqualTo(faulty.stageId());
        assertThat(r.trace()).isEmpty();
    }

    @Test
    void aPlainRunDoesNotBlameTheStageWhoseLaunchReportedIt() throws Exception {
        RunResult r = run(StepRequest.of(false, false));
        assertThat(r.stoppedAtStage()).isNull();
        assertThat(r.faults()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo("CUDA_ERROR_ILLEGAL_ADDRESS");
            assertThat(d.message()).contains("the kernel that faulted is not known", "run with trace");
        });
    }

    /**
     * A launcher whose kernel number {@code faulty} faults as a GPU kernel that reads an illegal
     * address does: its launch succeeds, and the fault comes back from every later launch,
     * synchronisation or copy, as the driver's sticky error.
     */
    private static final class FaultsAtTheNextCall extends ForwardingLauncher {
        private final int faulty;
        private LaunchException pending;

        FaultsAtTheNextCall(Launcher inner, int faulty) {
            super(inner);
            this.faulty = faulty;
        }

        private void raiseIfFaulted(String call) throws LaunchException {
            if (pending != null) {
                throw new LaunchException(pending.errorName(), call + " returned CUDA_ERROR_ILLEGAL_ADDRESS (700): " + pending.getMessage());
            }
        }

        @Override
        public void launch(int kernel, long threads, long[] args, Lane lane) throws LaunchException {
            raiseIfFaulted("cuLaunchKernel");
            if (kernel == faulty) {
                pending = new LaunchException("CUDA_ERROR_ILLEGAL_ADDRESS", "a kernel read outside its allocations");
                return;
            }
            super.launch(kernel, threads, args, lane);
        }

        @Override
        public void synchronize() throws LaunchException {
            raiseIfFaulted("cuStreamSynchronize");
            super.synchronize();
        }

        @Override
        public void download(long address, MemorySegment dst, long bytes) throws LaunchException {
            raiseIfFaulted("cuMemcpyDtoH");
            super.download(address, dst, bytes);
        }

        @Override
        public void upload(long address, MemorySegment src, long bytes) throws LaunchException {
            raiseIfFaulted("cuMemcpyHtoD");
            super.upload(address, src, bytes);
        }
    }
}
