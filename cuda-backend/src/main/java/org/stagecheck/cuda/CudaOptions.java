package org.stagecheck.cuda;

import java.util.Objects;

import org.stagecheck.cuda.compile.ArtifactCache;
import org.stagecheck.cuda.lower.Kernels;
import org.stagecheck.backend.BackendOptions;
import org.stagecheck.backend.MathMode;

/**
 * How the CUDA backend runs (docs/cuda.md): its {@link BackendOptions}, given to
 * {@code Backends.named("cuda", options)}, {@code Backends.named("cuda-emu", options)} or
 * {@code Backends.named("cuda-fake", options)} (the name chooses the {@link #target}).
 *
 * @param target        on a GPU through the driver, in host emulation, or through the fake driver
 * @param math          how transcendental functions are computed
 * @param graphs        replay captured segment graphs after the first step
 * @param segmentStages stages per graph segment (at least 1)
 * @param cache         where compiled artifacts are kept, and the compilers
 * @param hostOpt       the host compiler's optimisation level for emulation (0 to 2): the values are
 *                      the same at every level (no contraction, no fast-math); 0 compiles fastest
 * @param kernels       exact kernels (the reference's accumulation order, the default) or fast ones
 *                      (split accumulations, judged by the golden tolerances: docs/cuda.md, "Fast kernels")
 */
public record CudaOptions(Target target, MathMode math, boolean graphs, int segmentStages, ArtifactCache cache, int hostOpt,
                          Kernels kernels)
        implements BackendOptions {
    /** Where the kernels run. */
    public enum Target {
        /** A GPU, through the CUDA driver API: backend name {@code cuda}. */
        DEVICE,
        /** The host, through the g++-built emulation library: backend name {@code cuda-emu}. */
        EMULATION,
        /**
         * The device path (the driver API, {@code DriverLauncher}) on the fake driver, which runs
         * the emulation library as its module: backend name {@code cuda-fake} (docs/cuda.md).
         */
        FAKE_DRIVER
    }

    public CudaOptions {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(math, "math");
        Objects.requireNonNull(cache, "cache");
        Objects.requireNonNull(kernels, "kernels");
        if (hostOpt < 0 || hostOpt > 2) {
            throw new IllegalArgumentException("the host optimisation level is 0, 1 or 2, not " + hostOpt);
        }
        if (segmentStages < 1) {
            throw new IllegalArgumentException("a graph segment holds at least one stage, not " + segmentStages);
        }
    }

    /** Host emulation, precise math, eager, the standard cache. */
    public static CudaOptions emulation() {
        return new CudaOptions(Target.EMULATION, MathMode.PRECISE, false, 64, ArtifactCache.standard(), 1, Kernels.EXACT);
    }

    /** The GPU, precise math, eager, the standard cache. */
    public static CudaOptions device() {
        return new CudaOptions(Target.DEVICE, MathMode.PRECISE, false, 64, ArtifactCache.standard(), 1, Kernels.EXACT);
    }

    public CudaOptions withTarget(Target t) {
        return new CudaOptions(t, math, graphs, segmentStages, cache, hostOpt, kernels);
    }

    public CudaOptions withGraphs(boolean g) {
        return new CudaOptions(target, math, g, segmentStages, cache, hostOpt, kernels);
    }

    public CudaOptions withMath(MathMode m) {
        return new CudaOptions(target, m, graphs, segmentStages, cache, hostOpt, kernels);
    }

    public CudaOptions withSegmentStages(int n) {
        return new CudaOptions(target, math, graphs, n, cache, hostOpt, kernels);
    }

    public CudaOptions withCache(ArtifactCache c) {
        return new CudaOptions(target, math, graphs, segmentStages, c, hostOpt, kernels);
    }

    public CudaOptions withHostOpt(int level) {
        return new CudaOptions(target, math, graphs, segmentStages, cache, level, kernels);
    }

    public CudaOptions withKernels(Kernels k) {
        return new CudaOptions(target, math, graphs, segmentStages, cache, hostOpt, k);
    }

    /** The fake driver, precise math, eager, the standard cache. */
    public static CudaOptions fakeDriver() {
        return new CudaOptions(Target.FAKE_DRIVER, MathMode.PRECISE, false, 64, ArtifactCache.standard(), 1, Kernels.EXACT);
    }

    /** {@code cuda}, {@code cuda-emu} or {@code cuda-fake}. */
    public String backendName() {
        return switch (target) {
            case DEVICE -> "cuda";
            case EMULATION -> "cuda-emu";
            case FAKE_DRIVER -> "cuda-fake";
        };
    }
}
