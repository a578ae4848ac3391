package org.stagecheck.cuda.runtime;

import org.stagecheck.cuda.CudaOptions;
import org.stagecheck.cuda.compile.CompileException;
import org.stagecheck.cuda.lower.CudaSource;

/**
 * Compiles a source for a target and opens the launcher that runs it. The standard factories
 * build the g++ library ({@link #emulation}), the nvcc fatbin for the driver ({@link #device}), or
 * the g++ library as the module image of the fake driver ({@link #fakeDriver}); a test may wrap
 * one to inject a failure through the same interface a real failure takes.
 */
@FunctionalInterface
public interface LauncherFactory {
    Launcher open(CudaSource source, CudaOptions options) throws CompileException, LaunchException;

    /** Host emulation: the source compiled by the host compiler, loaded through FFM. */
    static LauncherFactory emulation() {
        return (source, o) -> HostLauncher.open(o.cache().hostLibrary(source, o.math(), o.hostOpt()));
    }

    /** The GPU: the driver is opened first (so a machine without one says so before nvcc runs), then the fatbin loaded. */
    static LauncherFactory device() {
        return (source, o) -> {
            CudaDriver driver = CudaDriver.system();
            return DriverLauncher.open(driver, o.cache().deviceFatbin(source, o.math()), source.kernels());
        };
    }

    /**
     * The device path on the fake driver (docs/cuda.md, "The fake driver"): the same
     * {@link DriverLauncher}, the fake {@code libcuda}, and the host-emulation library of the
     * source as the module image, whose kernels the fake runs.
     */
    static LauncherFactory fakeDriver() {
        return (source, o) -> {
            CudaDriver driver = CudaDriver.fake();
            return DriverLauncher.open(driver, o.cache().hostLibrary(source, o.math(), o.hostOpt()), source.kernels());
        };
    }
}
