package org.stagecheck.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import org.stagecheck.cuda.compile.FakeDriverLibrary;
import org.stagecheck.cuda.compile.Toolchain;
import org.stagecheck.cuda.runtime.CudaDriver;
import org.stagecheck.cuda.runtime.LaunchException;

/**
 * The tests' handle on the fake driver's own exports (fault injection, the call log), and on its
 * entry points called directly, bypassing {@code DriverLauncher}. Loading the library's path
 * again gives the loader's one copy, so these calls reach the driver the backend uses.
 */
final class FakeCuda {
    private FakeCuda() {
    }

    /** The process's fake driver; the test is skipped, saying why, where no C compiler can build it. */
    static CudaDriver driver() {
        assumeTrue(FakeDriverLibrary.compiler() != null, "no C compiler (cc, gcc or $STAGECHECK_CC): the fake CUDA driver cannot be built");
        assumeTrue(Toolchain.fromEnvironment().cxx() != null, "no g++: the fake driver's module (the host-emulation library) cannot be built");
        try {
            return CudaDriver.fake();
        } catch (LaunchException e) {
            throw new AssertionError("the fake driver did not load: " + e.getMessage(), e);
        }
    }

    private static SymbolLookup lookup() {
        return SymbolLookup.libraryLookup(Path.of(driver().library()), Arena.global());
    }

    private static MethodHandle export(String name, FunctionDescriptor d) {
        return Linker.nativeLinker().downcallHandle(lookup().find(name).orElseThrow(), d);
    }

    /** Every later call of {@code symbol} returns {@code rc}; 0 clears. */
    static void fail(String symbol, int rc) {
        try (Arena a = Arena.ofConfined()) {
            export("fake_cuda_fail", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT)).invokeExact(a.allocateFrom(symbol), rc);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Injects the failures of {@code spec}, as {@code STAGECHECK_FAKE_CUDA_FAIL=spec} does when the library loads. */
    static void failSpec(String spec) {
        try (Arena a = Arena.ofConfined()) {
            export("fake_cuda_fail_spec", FunctionDescriptor.ofVoid(ADDRESS)).invokeExact(a.allocateFrom(spec));
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Clears injected failures and the log; logs every later call when {@code logCalls}. */
    static void reset(boolean logCalls) {
        try {
            export("fake_cuda_reset", FunctionDescriptor.ofVoid(JAVA_INT)).invokeExact(logCalls ? 1 : 0);
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The calls logged since the last reset, one per line. */
    static List<String> log() {
        try {
            MemorySegment s = (MemorySegment) export("fake_cuda_log", FunctionDescriptor.of(ADDRESS)).invokeExact();
            return Arrays.stream(s.reinterpret(Long.MAX_VALUE).getString(0).split("\n")).filter(l -> !l.isEmpty()).toList();
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** What {@code cuGetProcAddress_v2} answered: the result, the status out-parameter, and the entry point. */
    record ProcAddress(int result, int status, MemorySegment function) {}

    static ProcAddress procAddress(String symbol, int version) {
        MethodHandle gpa = export("cuGetProcAddress_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pfn = a.allocate(ADDRESS);
            MemorySegment status = a.allocate(JAVA_INT);
            status.set(JAVA_INT, 0, -1);
            int rc = (int) gpa.invokeExact(a.allocateFrom(symbol), pfn, version, 0L, status);
            return new ProcAddress(rc, status.get(JAVA_INT, 0), pfn.get(ADDRESS, 0));
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The entry point {@code symbol} (API 12000) as a method handle of {@code d}. */
    static MethodHandle entry(String symbol, FunctionDescriptor d) {
        ProcAddress p = procAddress(symbol, 12000);
        if (p.result() != 0) {
            throw new AssertionError(symbol + ": cuGetProcAddress_v2 returned " + p.result());
        }
        return Linker.nativeLinker().downcallHandle(p.function(), d);
    }
}
