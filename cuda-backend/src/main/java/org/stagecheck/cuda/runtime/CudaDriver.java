package org.stagecheck.cuda.runtime;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.stagecheck.cuda.compile.ArtifactCache;
import org.stagecheck.cuda.compile.CompileException;
import org.stagecheck.cuda.compile.FakeDriverLibrary;

/**
 * The CUDA driver API through the Foreign Function & Memory API, no JNI and no binding library
 * (brief, "CUDA backend"). Only {@code cuGetProcAddress_v2} is looked up by symbol name; every
 * other entry point is resolved through it with a pinned API version, because {@code cuda.h}
 * maps names such as {@code cuMemAlloc} to versioned symbols ({@code cuMemAlloc_v2}) and a bare
 * symbol lookup would get the legacy ABI. The caller keeps every call on one platform thread
 * ({@link DriverLauncher} does), which owns the context.
 *
 * <p>A driver library is loaded once per process and never unloaded ({@link #system()}, the
 * machine's {@code libcuda}; {@link #fake()}, the fake driver of docs/cuda.md): launchers share
 * it, each on its own thread, and closing a launcher leaves it loaded for the others.
 */
public final class CudaDriver {
    /** The API version the entry points are resolved for: CUDA 12.0's signatures. */
    static final int API_VERSION = 12000;

    private final String library;
    private final MethodHandle getProcAddress;
    private final Map<String, MethodHandle> handles = new ConcurrentHashMap<>();
    private final Linker linker = Linker.nativeLinker();

    private CudaDriver(String library, MethodHandle getProcAddress) {
        this.library = library;
        this.getProcAddress = getProcAddress;
    }

    /** A driver, or why there is none; computed once per process. */
    private record Loaded(CudaDriver driver, LaunchException failure) {
        CudaDriver get() throws LaunchException {
            if (failure != null) {
                throw failure;
            }
            return driver;
        }

        static Loaded of(String name) {
            try {
                return new Loaded(load(name), null);
            } catch (LaunchException e) {
                return new Loaded(null, e);
            }
        }
    }

    /** The machine's driver, loaded on first use (the holder idiom: the JVM initialises it once). */
    private static final class SystemDriver {
        static final Loaded LOADED = Loaded.of(systemName());
    }

    /** The fake driver, built and loaded on first use. */
    private static final class FakeDriver {
        static final Loaded LOADED = fake(ArtifactCache.defaultRoot());

        private static Loaded fake(Path cacheRoot) {
            try {
                return Loaded.of(FakeDriverLibrary.build(cacheRoot).toAbsolutePath().toString());
            } catch (CompileException e) {
                return new Loaded(null, new LaunchException("FAKE_DRIVER_BUILD", "the fake CUDA driver cannot be built: " + e.getMessage()));
            }
        }
    }

    /**
     * The process's CUDA driver: {@code libcuda.so.1} ({@code $STAGECHECK_LIBCUDA} overrides the
     * name), loaded on the first call. A machine without the driver gets a
     * {@link LaunchException} {@code NO_CUDA_DRIVER} saying so, on every call.
     */
    public static CudaDriver system() throws LaunchException {
        return SystemDriver.LOADED.get();
    }

    /**
     * The fake driver (backend {@code cuda-fake}): {@code libcuda_fake.c} built by the C compiler
     * into the compile cache's default directory on the first call, then loaded for the rest of
     * the process; {@code FAKE_DRIVER_BUILD} when it cannot be built.
     */
    public static CudaDriver fake() throws LaunchException {
        return FakeDriver.LOADED.get();
    }

    private static String systemName() {
        String name = System.getenv("STAGECHECK_LIBCUDA");
        return name == null || name.isBlank() ? "libcuda.so.1" : name;
    }

    /** The library this driver was loaded from (a name the loader searched for, or a path). */
    public String library() {
        return library;
    }

    private static CudaDriver load(String name) throws LaunchException {
        SymbolLookup lib;
        try {
            // the global arena: a driver stays loaded for the life of the process
            lib = SymbolLookup.libraryLookup(name, Arena.global());
        } catch (IllegalArgumentException e) {
            throw new LaunchException("NO_CUDA_DRIVER", "no CUDA driver: " + name + " cannot be loaded on this machine"
                    + " (no GPU, or the NVIDIA driver is not installed); host emulation (cuda-emu, --emulate) needs none");
        }
        MemorySegment gpa = lib.find("cuGetProcAddress_v2").orElse(null);
        if (gpa == null) {
            throw new LaunchException("NO_CUDA_DRIVER", "the CUDA driver " + name + " has no cuGetProcAddress_v2: it predates CUDA 12,"
                    + " which this backend needs");
        }
        MethodHandle h = Linker.nativeLinker().downcallHandle(gpa,
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT, JAVA_LONG, ADDRESS));
        return new CudaDriver(name, h);
    }

    /** The entry point {@code symbol} as a method handle returning the CUresult as an int. */
    MethodHandle function(String symbol, MemoryLayoutList args) throws LaunchException {
        MethodHandle h = handles.get(symbol);
        if (h != null) {
            return h;
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pfn = a.allocate(ADDRESS);
            MemorySegment status = a.allocate(JAVA_INT);
            int rc = (int) getProcAddress.invokeExact(a.allocateFrom(symbol), pfn, API_VERSION, 0L, status);
            MemorySegment fn = pfn.get(ADDRESS, 0);
            if (rc != 0 || fn.address() == 0) {
                throw new LaunchException("CUDA_SYMBOL", "the CUDA driver does not provide " + symbol + " for API version "
                        + API_VERSION + " (cuGetProcAddress returned " + rc + ", status " + status.get(JAVA_INT, 0) + ")");
            }
            h = linker.downcallHandle(fn, FunctionDescriptor.of(JAVA_INT, args.layouts()));
            handles.put(symbol, h);
            return h;
        } catch (LaunchException e) {
            throw e;
        } catch (Throwable t) {
            throw new LaunchException("CUDA_SYMBOL", "resolving " + symbol + " failed: " + t);
        }
    }

    /** Calls {@code symbol} and turns a non-zero CUresult into a LaunchException with its name. */
    void call(String symbol, MemoryLayoutList args, Object... values) throws LaunchException {
        int rc;
        try {
            rc = (int) function(symbol, args).invokeWithArguments(values);
        } catch (LaunchException e) {
            throw e;
        } catch (Throwable t) {
            throw new LaunchException("CUDA_CALL", symbol + " failed: " + t);
        }
        if (rc != 0) {
            throw new LaunchException(errorName(rc), symbol + " returned " + errorName(rc) + " (" + rc + ")" + explain(rc));
        }
    }

    /** The driver's name for CUresult {@code rc}. */
    String errorName(int rc) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(ADDRESS);
            int r = (int) function("cuGetErrorName", MemoryLayoutList.of(JAVA_INT, ADDRESS)).invokeExact(rc, p);
            MemorySegment s = p.get(ADDRESS, 0);
            return r == 0 && s.address() != 0 ? s.reinterpret(256).getString(0) : "CUDA_ERROR_" + rc;
        } catch (Throwable t) {
            return "CUDA_ERROR_" + rc;
        }
    }

    /** What the errors people meet first mean. */
    static String explain(int rc) {
        return switch (rc) {
            case 209 -> ": the module has no code this GPU can run (NO_BINARY_FOR_GPU): it holds SASS for "
                    + org.stagecheck.cuda.compile.Toolchain.ARCH + " and PTX for " + org.stagecheck.cuda.compile.Toolchain.VIRTUAL_ARCH
                    + ", which the driver compiles just in time only for a GPU of compute capability 9.0 or newer: the GPU is older, or the driver is older than the nvcc that built the module (its PTX version is newer than the driver reads)";
            case 218 -> ": the driver cannot read the PTX (INVALID_PTX)";
            case 222 -> ": the PTX is newer than the driver (UNSUPPORTED_PTX_VERSION); update the driver or use an older nvcc";
            case 700 -> ": a kernel read or wrote outside its allocations (ILLEGAL_ADDRESS); the context is unusable now";
            case 100 -> ": no CUDA-capable device is visible (NO_DEVICE)";
            // the driver's result codes are an open set of ints: the rest need no more than their name
            default -> "";
        };
    }

    /** The argument layouts of one entry point. */
    record MemoryLayoutList(java.lang.foreign.MemoryLayout[] layouts) {
        static MemoryLayoutList of(java.lang.foreign.MemoryLayout... layouts) {
            return new MemoryLayoutList(layouts);
        }
    }
}
