package org.stagecheck.cuda.runtime;

import java.lang.foreign.Arena;
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

    /** Sets {@code bytes} at {@code address} to zero (by default by uploading zeros; a device clears its own memory). */
    default void zero(long address, long bytes) throws LaunchException {
        try (Arena a = Arena.ofConfined()) {
            upload(address, a.allocate(Math.max(bytes, 1)), bytes);
        }
    }

    /**
     * Launches kernel {@code kernel} over {@code threads} elements with 64-bit argument values
     * {@code args} (element count, chip base addresses, parameter array, fault record) on the
     * main stream. While capturing, the launch is recorded instead.
     */
    default void launch(int kernel, long threads, long[] args) throws LaunchException {
        launch(kernel, threads, args, Lane.MAIN);
    }

    /** Launches (or records) kernel {@code kernel} on the main or the side stream. */
    void launch(int kernel, long threads, long[] args, Lane lane) throws LaunchException;

    /**
     * Forks the side stream off the main stream: records the fork event on the main stream and
     * makes the side stream wait on it, so side launches after it see every main launch before
     * it ({@code cuEventRecord}, {@code cuStreamWaitEvent}). While capturing, the side stream
     * joins the capture.
     */
    void fork() throws LaunchException;

    /**
     * Joins the side stream back: records the join event on the side stream and makes the main
     * stream wait on it, so main launches after it see every side launch before it. A capture
     * must join every fork before it ends.
     */
    void join() throws LaunchException;

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

    /** The stream a launch goes to: the main one, or the side one forked from it ({@link #fork}). */
    enum Lane { MAIN, SIDE }

    /** A captured sequence of launches; opaque to callers. */
    interface Graph {
        /** Launches in the graph. */
        int launches();
    }
}
