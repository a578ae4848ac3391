package org.stagecheck.cuda.runtime;

import java.lang.foreign.MemorySegment;

/**
 * A launcher that passes every call to {@code inner}: a wrapper overrides the calls it changes
 * ({@code cuda check}'s launcher that refuses captures, the tests' doubles that break one call).
 */
public class ForwardingLauncher implements Launcher {
    protected final Launcher inner;

    public ForwardingLauncher(Launcher inner) {
        this.inner = inner;
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
    public void zero(long address, long bytes) throws LaunchException {
        inner.zero(address, bytes);
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
    public void beginCapture() throws LaunchException {
        inner.beginCapture();
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
