package org.stagecheck.cuda.runtime;

import java.lang.foreign.MemorySegment;

/**
 * What runs generated kernels: the GPU through the CUDA driver ({@link DriverLauncher}) or the
 * host-emulation library ({@link HostLauncher}). Both take the same kernel numbers and the same
 * argument values, so the runner, the tests and the command line do not care which one runs.
 * Addresses are device addresses (host emulation: native addresses). A launcher is used from one
 * thread at a time.
 */
public interface Launcher extends AutoCloseable {
    /** {@code cuda} or {@code cuda-emu}. */
    String name();

    /** A zeroed allocation of {@code bytes}. */
    long alloc(long bytes) throws LaunchException;

    void free(long address) throws LaunchException;

    void upload(long address, MemorySegment src, long bytes) throws LaunchException;

    void download(long address, MemorySegment dst, long bytes) throws LaunchException;

    /**
     * Launches kernel {@code kernel} over {@code threads} elements with 64-bit argument values
     * {@code args} (element count, chip base addresses, parameter array, fault record). While
     * capturing, the launch is recorded instead.
     */
    void launch(int kernel, long threads, long[] args) throws LaunchException;

    /** Waits for every launch so far. */
    void synchronize() throws LaunchException;

    /** Starts recording launches into a graph (stream capture on the GPU). */
    void beginCapture() throws LaunchException;

    /** Ends the recording; the graph is ready to replay. */
    Graph endCapture() throws LaunchException;

    /** Runs a captured graph: every recorded launch with the argument values it was recorded with. */
    void replay(Graph graph) throws LaunchException;

    void destroy(Graph graph);

    @Override
    void close();

    /** A captured sequence of launches; opaque to callers. */
    interface Graph {
        /** Launches in the graph. */
        int launches();
    }
}
