package org.stagecheck.cuda.runtime;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.runtime.CudaDriver.MemoryLayoutList;

/**
 * Kernels on a GPU through the driver API (brief, "CUDA backend"): device 0's primary context,
 * the nvcc-built fatbin (or, on the fake driver, the emulation library) loaded with {@code cuModuleLoadData}, one blocking stream, launches with
 * {@code cuLaunchKernel}, graphs by stream capture ({@code cuStreamBeginCapture},
 * {@code cuStreamEndCapture}, {@code cuGraphInstantiateWithFlags}, {@code cuGraphLaunch}).
 * A second stream, the side stream, takes the launches of a side branch: a fork records the fork
 * event on the main stream and makes the side stream wait on it, a join records the join event
 * on the side stream and makes the main stream wait on it ({@code cuEventRecord},
 * {@code cuStreamWaitEvent}); inside a capture these calls bring the side stream into the graph
 * and back, as the seed's {@code cap_side}, {@code ev_fork} and {@code ev_join} do.
 * Every driver call runs on this launcher's own platform thread, which made the context current:
 * the context belongs to an OS thread, and a virtual thread may move between them. Every kernel
 * is resolved when the module is loaded, so a capture never needs a function the driver has not
 * loaded yet. The driver itself is the process's ({@link CudaDriver#system()}, or
 * {@link CudaDriver#fake()}), shared with other launchers and left loaded on close.
 */
public final class DriverLauncher implements Launcher, DeviceTiming {
    static final int BLOCK = 128;
    static final long MAX_GRID = 1L << 20;

    private static final MemoryLayoutList L = MemoryLayoutList.of(JAVA_LONG);
    /** cuEventCreate's flag for an event used only to order streams: no timestamp is taken. */
    static final int CU_EVENT_DISABLE_TIMING = 0x2;
    private static final MemoryLayoutList EVENT_RECORD = MemoryLayoutList.of(JAVA_LONG, JAVA_LONG);
    private static final MemoryLayoutList STREAM_WAIT_EVENT = MemoryLayoutList.of(JAVA_LONG, JAVA_LONG, JAVA_INT);

    private final CudaDriver driver;
    private final ExecutorService thread;
    private final List<Kernel> kernels;
    private long context;
    private long module;
    private long stream;
    private long side;
    private long forkEvent;
    private long joinEvent;
    private final long[] functions;
    private final Arena arena = Arena.ofShared();
    private String device = "";

    private record DeviceGraph(long graph, long exec, int launches) implements Graph {}

    private int captured;

    private DriverLauncher(CudaDriver driver, List<Kernel> kernels) {
        this.driver = driver;
        this.kernels = kernels;
        this.functions = new long[kernels.size()];
        this.thread = Executors.newSingleThreadExecutor(r -> Thread.ofPlatform().name("stagecheck-cuda-driver").daemon().unstarted(r));
    }

    private interface DriverCall<T> {
        T run() throws LaunchException;
    }

    private <T> T on(DriverCall<T> c) throws LaunchException {
        Future<T> f = thread.submit(c::run);
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof LaunchException le) {
                throw le;
            }
            throw new LaunchException("CUDA_CALL", "a driver call failed: " + e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LaunchException("CUDA_CALL", "interrupted while waiting for the driver");
        }
    }

    /**
     * Initialises the driver, makes device 0's primary context current on the driver thread, loads
     * {@code moduleFile} and resolves every kernel. A driver error on the way is a LaunchException with
     * the driver's name for it, after what was set up is released.
     */
    public static DriverLauncher open(CudaDriver driver, Path moduleFile, List<Kernel> kernels) throws LaunchException {
        DriverLauncher l = new DriverLauncher(driver, kernels);
        try {
            byte[] image = Files.readAllBytes(moduleFile);
            l.on(() -> {
                l.init(image);
                return null;
            });
            return l;
        } catch (IOException e) {
            l.close();
            throw new LaunchException("CUDA_MODULE", "cannot read the module image " + moduleFile + ": " + e.getMessage());
        } catch (LaunchException e) {
            l.close();
            throw e;
        }
    }

    private void init(byte[] image) throws LaunchException {
        try (Arena a = Arena.ofConfined()) {
            driver.call("cuInit", MemoryLayoutList.of(JAVA_INT), 0);
            MemorySegment dev = a.allocate(JAVA_INT);
            driver.call("cuDeviceGet", MemoryLayoutList.of(ADDRESS, JAVA_INT), dev, 0);
            int d = dev.get(JAVA_INT, 0);
            MemorySegment name = a.allocate(256);
            driver.call("cuDeviceGetName", MemoryLayoutList.of(ADDRESS, JAVA_INT, JAVA_INT), name, 256, d);
            device = name.getString(0);
            MemorySegment ctx = a.allocate(ADDRESS);
            driver.call("cuDevicePrimaryCtxRetain", MemoryLayoutList.of(ADDRESS, JAVA_INT), ctx, d);
            context = ctx.get(JAVA_LONG, 0);
            driver.call("cuCtxSetCurrent", L, context);
            MemorySegment img = a.allocate(image.length + 1L);
            MemorySegment.copy(MemorySegment.ofArray(image), 0, img, 0, image.length);
            MemorySegment mod = a.allocate(ADDRESS);
            driver.call("cuModuleLoadData", MemoryLayoutList.of(ADDRESS, ADDRESS), mod, img);
            module = mod.get(JAVA_LONG, 0);
            // every kernel now, while no capture is active: resolving one later, inside a capture,
            // fails under lazy loading (CUDA 12.2 and later load a function when it is first asked for)
            for (int k = 0; k < kernels.size(); k++) {
                MemorySegment f = a.allocate(ADDRESS);
                driver.call("cuModuleGetFunction", MemoryLayoutList.of(ADDRESS, JAVA_LONG, ADDRESS), f, module,
                        a.allocateFrom(kernels.get(k).name()));
                functions[k] = f.get(JAVA_LONG, 0);
            }
            MemorySegment s = a.allocate(ADDRESS);
            driver.call("cuStreamCreate", MemoryLayoutList.of(ADDRESS, JAVA_INT), s, 0);
            stream = s.get(JAVA_LONG, 0);
            driver.call("cuStreamCreate", MemoryLayoutList.of(ADDRESS, JAVA_INT), s, 0);
            side = s.get(JAVA_LONG, 0);
            MemorySegment e = a.allocate(ADDRESS);
            driver.call("cuEventCreate", MemoryLayoutList.of(ADDRESS, JAVA_INT), e, CU_EVENT_DISABLE_TIMING);
            forkEvent = e.get(JAVA_LONG, 0);
            driver.call("cuEventCreate", MemoryLayoutList.of(ADDRESS, JAVA_INT), e, CU_EVENT_DISABLE_TIMING);
            joinEvent = e.get(JAVA_LONG, 0);
        }
    }

    @Override
    public String device() {
        return device;
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public long alloc(long bytes) throws LaunchException {
        return on(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment p = a.allocate(JAVA_LONG);
                driver.call("cuMemAlloc", MemoryLayoutList.of(ADDRESS, JAVA_LONG), p, Math.max(bytes, 1));
                long ptr = p.get(JAVA_LONG, 0);
                driver.call("cuMemsetD8", MemoryLayoutList.of(JAVA_LONG, ValueLayout.JAVA_BYTE, JAVA_LONG), ptr, (byte) 0, Math.max(bytes, 1));
                return ptr;
            }
        });
    }

    @Override
    public void free(long address) throws LaunchException {
        on(() -> {
            driver.call("cuMemFree", L, address);
            return null;
        });
    }

    @Override
    public void upload(long address, MemorySegment src, long bytes) throws LaunchException {
        // the caller's segment may belong to the caller's thread (a confined arena) and a heap
        // segment cannot be handed to native code: stage it, on this thread, in shared native memory
        try (Arena a = Arena.ofShared()) {
            MemorySegment host = a.allocate(Math.max(bytes, 1));
            MemorySegment.copy(src, 0, host, 0, bytes);
            on(() -> {
                driver.call("cuStreamSynchronize", L, stream);
                driver.call("cuMemcpyHtoD", MemoryLayoutList.of(JAVA_LONG, ADDRESS, JAVA_LONG), address, host, bytes);
                return null;
            });
        }
    }

    @Override
    public void download(long address, MemorySegment dst, long bytes) throws LaunchException {
        try (Arena a = Arena.ofShared()) {
            MemorySegment host = a.allocate(Math.max(bytes, 1));
            on(() -> {
                driver.call("cuStreamSynchronize", L, stream);
                driver.call("cuMemcpyDtoH", MemoryLayoutList.of(ADDRESS, JAVA_LONG, JAVA_LONG), host, address, bytes);
                return null;
            });
            // back on the caller's thread, which may own dst
            MemorySegment.copy(host, 0, dst, 0, bytes);
        }
    }

    @Override
    public void zero(long address, long bytes) throws LaunchException {
        on(() -> {
            // on the legacy stream, which waits for the blocking main stream's launches before it
            driver.call("cuMemsetD8", MemoryLayoutList.of(JAVA_LONG, ValueLayout.JAVA_BYTE, JAVA_LONG), address, (byte) 0, bytes);
            return null;
        });
    }

    @Override
    public void launch(int kernel, long threads, long[] args, Lane lane) throws LaunchException {
        if (threads <= 0) {
            return;
        }
        on(() -> {
            long grid = Math.min((threads + BLOCK - 1) / BLOCK, MAX_GRID);
            try (Arena a = Arena.ofConfined()) {
                // kernelParams: an array of pointers to the argument values, which the driver copies at launch
                MemorySegment values = a.allocate(JAVA_LONG, args.length);
                MemorySegment params = a.allocate(ADDRESS, args.length);
                for (int i = 0; i < args.length; i++) {
                    values.setAtIndex(JAVA_LONG, i, args[i]);
                    params.setAtIndex(ADDRESS, i, values.asSlice(8L * i, 8));
                }
                driver.call("cuLaunchKernel", MemoryLayoutList.of(JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT,
                                JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS),
                        functions[kernel], (int) grid, 1, 1, BLOCK, 1, 1, 0, switch (lane) {
                            case MAIN -> stream;
                            case SIDE -> side;
                        }, params, MemorySegment.NULL);
            }
            captured++;
            return null;
        });
    }

    @Override
    public void fork() throws LaunchException {
        on(() -> {
            driver.call("cuEventRecord", EVENT_RECORD, forkEvent, stream);
            driver.call("cuStreamWaitEvent", STREAM_WAIT_EVENT, side, forkEvent, 0);
            return null;
        });
    }

    @Override
    public void join() throws LaunchException {
        on(() -> {
            driver.call("cuEventRecord", EVENT_RECORD, joinEvent, side);
            driver.call("cuStreamWaitEvent", STREAM_WAIT_EVENT, stream, joinEvent, 0);
            return null;
        });
    }

    @Override
    public void synchronize() throws LaunchException {
        on(() -> {
            driver.call("cuStreamSynchronize", L, stream);
            return null;
        });
    }

    @Override
    public void beginCapture() throws LaunchException {
        on(() -> {
            captured = 0;
            driver.call("cuStreamBeginCapture", MemoryLayoutList.of(JAVA_LONG, JAVA_INT), stream, 0);
            return null;
        });
    }

    @Override
    public Graph endCapture() throws LaunchException {
        return on(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment g = a.allocate(ADDRESS);
                driver.call("cuStreamEndCapture", MemoryLayoutList.of(JAVA_LONG, ADDRESS), stream, g);
                long graph = g.get(JAVA_LONG, 0);
                MemorySegment e = a.allocate(ADDRESS);
                driver.call("cuGraphInstantiateWithFlags", MemoryLayoutList.of(ADDRESS, JAVA_LONG, JAVA_LONG), e, graph, 0L);
                return new DeviceGraph(graph, e.get(JAVA_LONG, 0), captured);
            }
        });
    }

    @Override
    public void replay(Graph graph) throws LaunchException {
        if (!(graph instanceof DeviceGraph g)) {
            throw new LaunchException("GRAPH_FOREIGN", "the graph was not captured by this launcher");
        }
        on(() -> {
            driver.call("cuGraphLaunch", MemoryLayoutList.of(JAVA_LONG, JAVA_LONG), g.exec(), stream);
            return null;
        });
    }

    @Override
    public void destroy(Graph graph) {
        if (graph instanceof DeviceGraph g) {
            try {
                on(() -> {
                    driver.call("cuGraphExecDestroy", L, g.exec());
                    driver.call("cuGraphDestroy", L, g.graph());
                    return null;
                });
            } catch (LaunchException e) {
                // destroying at the end of a session: the context is released right after
            }
        }
    }

    /** Records an event pair around {@code work} on the stream and returns the milliseconds between them. */
    @Override
    public float time(Work work) throws LaunchException {
        long[] ev = new long[2];
        on(() -> {
            try (Arena a = Arena.ofConfined()) {
                for (int i = 0; i < 2; i++) {
                    MemorySegment e = a.allocate(ADDRESS);
                    driver.call("cuEventCreate", MemoryLayoutList.of(ADDRESS, JAVA_INT), e, 0);
                    ev[i] = e.get(JAVA_LONG, 0);
                }
                driver.call("cuEventRecord", MemoryLayoutList.of(JAVA_LONG, JAVA_LONG), ev[0], stream);
            }
            return null;
        });
        work.run();
        return on(() -> {
            try (Arena a = Arena.ofConfined()) {
                driver.call("cuEventRecord", MemoryLayoutList.of(JAVA_LONG, JAVA_LONG), ev[1], stream);
                driver.call("cuEventSynchronize", L, ev[1]);
                MemorySegment ms = a.allocate(ValueLayout.JAVA_FLOAT);
                driver.call("cuEventElapsedTime", MemoryLayoutList.of(ADDRESS, JAVA_LONG, JAVA_LONG), ms, ev[0], ev[1]);
                driver.call("cuEventDestroy", L, ev[0]);
                driver.call("cuEventDestroy", L, ev[1]);
                return ms.get(ValueLayout.JAVA_FLOAT, 0);
            }
        });
    }

    /** The device's L2 cache size ({@code CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE}). */
    @Override
    public long l2CacheBytes() throws LaunchException {
        return on(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment v = a.allocate(JAVA_INT);
                driver.call("cuDeviceGetAttribute", MemoryLayoutList.of(ADDRESS, JAVA_INT, JAVA_INT), v, 38, 0); // L2 cache size, bytes
                return (long) v.get(JAVA_INT, 0);
            }
        });
    }

    /** The device's peak DRAM bandwidth in GB/s from its memory clock and bus width. */
    @Override
    public double peakBandwidthGBs() throws LaunchException {
        return on(() -> {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment v = a.allocate(JAVA_INT);
                driver.call("cuDeviceGetAttribute", MemoryLayoutList.of(ADDRESS, JAVA_INT, JAVA_INT), v, 36, 0); // memory clock, kHz
                double khz = v.get(JAVA_INT, 0);
                driver.call("cuDeviceGetAttribute", MemoryLayoutList.of(ADDRESS, JAVA_INT, JAVA_INT), v, 37, 0); // bus width, bits
                double bits = v.get(JAVA_INT, 0);
                return 2.0 * khz * 1e3 * bits / 8 / 1e9;
            }
        });
    }

    @Override
    public void close() {
        try {
            on(() -> {
                try {
                    if (module != 0) {
                        driver.call("cuModuleUnload", L, module);
                    }
                    if (forkEvent != 0) {
                        driver.call("cuEventDestroy", L, forkEvent);
                    }
                    if (joinEvent != 0) {
                        driver.call("cuEventDestroy", L, joinEvent);
                    }
                    if (side != 0) {
                        driver.call("cuStreamDestroy", L, side);
                    }
                    if (stream != 0) {
                        driver.call("cuStreamDestroy", L, stream);
                    }
                    if (context != 0) {
                        driver.call("cuDevicePrimaryCtxRelease", MemoryLayoutList.of(JAVA_INT), 0);
                    }
                } catch (LaunchException e) {
                    // releasing: nothing more to do
                }
                return null;
            });
        } catch (LaunchException e) {
            // the driver thread is gone already
        } finally {
            // the driver stays loaded: it is the process's, shared with every other launcher
            thread.shutdownNow();
            arena.close();
        }
    }
}
