package org.stagecheck.cli;

import java.lang.foreign.MemorySegment;

import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;

/**
 * A launcher whose graph captures fail as a driver's can (a call not allowed while capturing),
 * everything else passed to the real one: {@code cuda check} drives graph mode's capture-failure
 * fall-back through it.
 */
final class CaptureRefusingLauncher implements Launcher {
    static final String ERROR = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";

    private final Launcher inner;

    CaptureRefusingLauncher(Launcher inner) {
        this.inner = inner;
    }

    @Override
    public void beginCapture() throws LaunchException {
        throw new LaunchException(ERROR, "cuStreamBeginCapture: operation not permitted when stream is capturing (refused on purpose by cuda check)");
    }

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public long alloc(long bytes) throws LaunchException {
        return inner.alloc(bytes);
    }

    @Override
    public void free(long address) throws LaunchException {
        inner.free(address);
    }

    @Override
    public void upload(long address, MemorySegment src, long bytes) throws LaunchException {
        inner.upload(address, src, bytes);
    }

    @Override
    public void download(long address, MemorySegment dst, long bytes) throws LaunchException {
        inner.download(address, dst, bytes);
    }

    @Override
    public void launch(int kernel, long threads, long[] args, Lane lane) throws LaunchException {
        inner.launch(kernel, threads, args, lane);
    }

    @Override
    public void fork() throws LaunchException {
        inner.fork();
    }

    @Override
    public void join() throws LaunchException {
        inner.join();
    }

    @Override
    public void synchronize() throws LaunchException {
        inner.synchronize();
    }

    @Override
    public Graph endCapture() throws LaunchException {
        return inner.endCapture();
    }

    @Override
    public void replay(Graph graph) throws LaunchException {
        inner.replay(graph);
    }

    @Override
    public void destroy(Graph graph) {
        inner.destroy(graph);
    }

    @Override
    public void close() {
        inner.close();
    }
}
