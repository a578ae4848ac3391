package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.cuda.compile.FakeDriverLibrary;
import org.stagecheck.cuda.compile.Toolchain;
import org.stagecheck.cuda.runtime.CudaDriver;

/**
 * A kernel that faults on the device (the driver reports CUDA_ERROR_ILLEGAL_ADDRESS at a later
 * launch) is a failed run of a program the user gave correctly: exit 1, not 2, which says the
 * input was bad. The message says once that the faulting kernel is not known.
 */
class CudaRunDeviceFaultTest {
    @TempDir
    Path tmp;

    @Test
    void aKernelFaultIsAFailedRunNotBadInput() throws Throwable {
        assumeTrue(Toolchain.fromEnvironment().cxx() != null && FakeDriverLibrary.compiler() != null,
                "no g++ or no C compiler: the fake driver and its module cannot be built here");
        fakeDriverFails("cuLaunchKernel", 700);
        try {
            CliRunner r = CliRunner.run("cuda", "run", "../examples/elementwise-chain.json", "--random", "7", "--out", tmp.resolve("x").toString(),
                    "--fake-driver");
            String said = r.out() + r.err();
            assertThat(said).contains("CUDA_ERROR_ILLEGAL_ADDRESS").doesNotContain("Exception");
            assertThat(said.split("the kernel that faulted is not known", -1)).as(said).hasSize(2);
            assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCode.CHECK_FAILED);
        } finally {
            fakeDriverFails("cuLaunchKernel", 0);
        }
    }

    /** Makes every later call of {@code symbol} in the fake driver return {@code rc} (0 clears). */
    private static void fakeDriverFails(String symbol, int rc) throws Throwable {
        SymbolLookup lib = SymbolLookup.libraryLookup(Path.of(CudaDriver.fake().library()), Arena.global());
        var fail = Linker.nativeLinker().downcallHandle(lib.find("fake_cuda_fail").orElseThrow(),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        try (Arena a = Arena.ofConfined()) {
            fail.invokeExact(a.allocateFrom(symbol), rc);
        }
    }
}
