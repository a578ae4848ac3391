package org.stagecheck.cuda.runtime;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Host emulation (brief, "CUDA backend"): the generated source compiled by the host compiler into
 * a shared library, loaded with {@link SymbolLookup#libraryLookup} and called through the FFM
 * {@link Linker}. Its {@code sc_host_launch} runs a kernel once per (block, thread) of the same
 * grid the GPU would get, with the same argument array {@code cuLaunchKernel} takes. "Device"
 * memory is native memory of this launcher's arena. A capture records launches with a copy of
 * their argument values, as a CUDA graph bakes them in; a replay runs the recording.
 */
public final class HostLauncher implements Launcher {
    /** Threads per block, as on the GPU. */
    static final int BLOCK = 128;
    /** Blocks at most per launch; the kernels' grid-stride loops cover the rest. */
    static final long MAX_GRID = 4096;

    private final Arena arena = Arena.ofShared();
    /** Keeps the library loaded while this launcher lives. */
    private final Arena library;
    private final MethodHandle hostLaunch;
    private final Map<Long, MemorySegment> allocations = new HashMap<>();
    private List<Recorded> recording;

    private record Recorded(int kernel, long threads, long[] args) {}

    private record HostGraph(List<Recorded> recorded) implements Graph {
        @Override
        public int launches() {
            return recorded.size();
        }
    }

    private HostLauncher(Arena library, MethodHandle hostLaunch) {
        this.library = library;
        this.hostLaunch = hostLaunch;
    }

    /** Loads the emulation library at {@code library}; fails cleanly when it cannot be loaded. */
    public static HostLauncher open(Path library) throws LaunchException {
        Arena libArena = Arena.ofShared();
        SymbolLookup lookup;
        try {
            lookup = SymbolLookup.libraryLookup(library, libArena);
        } catch (IllegalArgumentException e) {
            libArena.close();
            throw new LaunchException("EMULATION_LOAD", "cannot load the host-emulation library " + library + ": " + e.getMessage());
        }
        MemorySegment fn = lookup.find("sc_host_launch").orElse(null);
        if (fn == null) {
            libArena.close();
            throw new LaunchException("EMULATION_LOAD", library + " has no sc_host_launch: it is not a stagecheck emulation library");
        }
        MethodHandle h = Linker.nativeLinker().downcallHandle(fn, FunctionDescriptor.of(ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        return new HostLauncher(libArena, h);
    }

    @Override
    public String name() {
        return "cuda-emu";
    }

    @Override
    public long alloc(long bytes) {
        MemorySegment s = arena.allocate(Math.max(bytes, 1), 256);
        s.fill((byte) 0);
        allocations.put(s.address(), s);
        return s.address();
    }

    @Override
    public void free(long address) {
        // arena memory is released with the launcher; forgetting the segment makes later use an error
        allocations.remove(address);
    }

    private MemorySegment segment(long address, long bytes) throws LaunchException {
        for (MemorySegment s : allocations.values()) {
            if (address >= s.address() && address + bytes <= s.address() + s.byteSize()) {
                return s.asSlice(address - s.address(), bytes);
            }
        }
        throw new LaunchException("INVALID_ADDRESS", "no allocation holds [" + address + ", +" + bytes + ")");
    }

    @Override
    public void upload(long address, MemorySegment src, long bytes) throws LaunchException {
        MemorySegment.copy(src, 0, segment(address, bytes), 0, bytes);
    }

    @Override
    public void download(long address, MemorySegment dst, long bytes) throws LaunchException {
        MemorySegment.copy(segment(address, bytes), 0, dst, 0, bytes);
    }

    @Override
    public void launch(int kernel, long threads, long[] args) throws LaunchException {
        if (recording != null) {
            recording.add(new Recorded(kernel, threads, args.clone()));
            return;
        }
        run(kernel, threads, args);
    }

    private void run(int kernel, long threads, long[] args) throws LaunchException {
        if (threads <= 0) {
            return;
        }
        long grid = Math.min((threads + BLOCK - 1) / BLOCK, MAX_GRID);
        try (Arena call = Arena.ofConfined()) {
            MemorySegment values = call.allocate(ValueLayout.JAVA_LONG, args.length);
            MemorySegment pointers = call.allocate(ValueLayout.ADDRESS, args.length);
            for (int i = 0; i < args.length; i++) {
                values.setAtIndex(ValueLayout.JAVA_LONG, i, args[i]);
                pointers.setAtIndex(ValueLayout.ADDRESS, i, values.asSlice(8L * i, 8));
            }
            int rc;
            try {
                rc = (int) hostLaunch.invokeExact(kernel, (int) grid, BLOCK, pointers);
            } catch (Throwable t) {
                throw new LaunchException("EMULATION_CALL", "the emulated launch failed: " + t);
            }
            if (rc != 0) {
                throw new LaunchException("EMULATION_NO_KERNEL", "the emulation library has no kernel number " + kernel);
            }
        }
    }

    @Override
    public void synchronize() {
        // emulated launches complete before launch() returns
    }

    @Override
    public void beginCapture() throws LaunchException {
        if (recording != null) {
            throw new LaunchException("CAPTURE_NESTED", "a capture is already in progress");
        }
        recording = new ArrayList<>();
    }

    @Override
    public Graph endCapture() throws LaunchException {
        if (recording == null) {
            throw new LaunchException("CAPTURE_NOT_STARTED", "no capture is in progress");
        }
        HostGraph g = new HostGraph(List.copyOf(recording));
        recording = null;
        return g;
    }

    @Override
    public void replay(Graph graph) throws LaunchException {
        if (!(graph instanceof HostGraph g)) {
            throw new LaunchException("GRAPH_FOREIGN", "the graph was not captured by this launcher");
        }
        for (Recorded r : g.recorded()) {
            run(r.kernel(), r.threads(), r.args());
        }
    }

    @Override
    public void destroy(Graph graph) {
        // a recording holds no native resources
    }

    @Override
    public void close() {
        allocations.clear();
        arena.close();
        library.close();
    }
}
