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
 *
 * <p>The side stream is emulated so that ordering bugs show rather than hide: its kernels run
 * only when the order the streams promise forces them ({@link SideOrder#AT_JOIN}, the default:
 * when the main stream reaches the join that waits for them, so a consumer launched before the
 * join reads stale values), or as early as the fork allows ({@link SideOrder#AT_FORK}: before
 * the main stream's launches after the fork, so a side kernel that needs one of those reads
 * stale values). A capture is held to the driver's rules: a capture that ends with the side
 * stream forked and not joined fails as the driver's does
 * ({@code CUDA_ERROR_STREAM_CAPTURE_UNJOINED}), and a side launch or a join with no fork before
 * it is refused (on a GPU such a launch would run at once, outside the graph).
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
    private final SideOrder sideOrder;
    private List<Op> recording;
    /** Whether the side stream is forked and not yet joined: in the capture, and outside one. */
    private boolean recordingForked;
    private boolean forked;
    /** Side launches made outside a capture that have not run yet (AT_JOIN). */
    private final List<Recorded> pendingSide = new ArrayList<>();

    /** When the emulated side stream runs its kernels. */
    public enum SideOrder {
        /** As late as the join allows: when the main stream waits for them. */
        AT_JOIN,
        /** As early as the fork allows: before the main stream's launches after the fork. */
        AT_FORK
    }

    /** One recorded stream operation. */
    private sealed interface Op permits Recorded, Fork, Join {}

    private record Recorded(int kernel, long threads, long[] args, Lane lane) implements Op {}

    private record Fork() implements Op {}

    private record Join() implements Op {}

    private record HostGraph(List<Op> recorded) implements Graph {
        @Override
        public int launches() {
            return (int) recorded.stream().filter(o -> o instanceof Recorded).count();
        }
    }

    private HostLauncher(Arena library, MethodHandle hostLaunch, SideOrder sideOrder) {
        this.library = library;
        this.hostLaunch = hostLaunch;
        this.sideOrder = sideOrder;
    }

    /** Loads the emulation library at {@code library}; fails cleanly when it cannot be loaded. */
    public static HostLauncher open(Path library) throws LaunchException {
        return open(library, SideOrder.AT_JOIN);
    }

    /** Loads the emulation library at {@code library}, its side stream run in {@code sideOrder}. */
    public static HostLauncher open(Path library, SideOrder sideOrder) throws LaunchException {
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
        return new HostLauncher(libArena, h, sideOrder);
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
    public void zero(long address, long bytes) throws LaunchException {
        segment(address, bytes).fill((byte) 0);
    }

    @Override
    public void launch(int kernel, long threads, long[] args, Lane lane) throws LaunchException {
        if (lane == Lane.SIDE && !(recording != null ? recordingForked : forked)) {
            throw new LaunchException("SIDE_STREAM_NOT_FORKED", "kernel " + kernel + " launched on the side stream with no fork"
                    + " before it: it would not wait for the main stream (on a GPU, in a capture, it would run at once, outside the graph)");
        }
        Recorded r = new Recorded(kernel, threads, args.clone(), lane);
        if (recording != null) {
            recording.add(r);
        } else if (lane == Lane.SIDE && sideOrder == SideOrder.AT_JOIN) {
            pendingSide.add(r);
        } else {
            run(r);
        }
    }

    @Override
    public void fork() {
        if (recording != null) {
            recording.add(new Fork());
            recordingForked = true;
        } else {
            forked = true;
        }
    }

    @Override
    public void join() throws LaunchException {
        if (!(recording != null ? recordingForked : forked)) {
            throw new LaunchException("JOIN_WITHOUT_FORK", "a join of the side stream with no fork before it");
        }
        if (recording != null) {
            recording.add(new Join());
            recordingForked = false;
        } else {
            runPendingSide();
            forked = false;
        }
    }

    private void runPendingSide() throws LaunchException {
        for (Recorded r : pendingSide) {
            run(r);
        }
        pendingSide.clear();
    }

    private void run(Recorded r) throws LaunchException {
        run(r.kernel(), r.threads(), r.args());
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
    public void synchronize() throws LaunchException {
        // emulated launches complete before launch() returns; a device-wide wait also drains the side stream
        runPendingSide();
    }

    @Override
    public void beginCapture() throws LaunchException {
        if (recording != null) {
            throw new LaunchException("CAPTURE_NESTED", "a capture is already in progress");
        }
        recording = new ArrayList<>();
        recordingForked = false;
    }

    @Override
    public Graph endCapture() throws LaunchException {
        if (recording == null) {
            throw new LaunchException("CAPTURE_NOT_STARTED", "no capture is in progress");
        }
        boolean unjoined = recordingForked;
        HostGraph g = new HostGraph(List.copyOf(recording));
        recording = null;
        recordingForked = false;
        if (unjoined) {
            // the driver invalidates such a capture and returns no graph
            throw new LaunchException("CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "the capture ended with the side stream forked"
                    + " and not joined back into the main stream");
        }
        return g;
    }

    @Override
    public void replay(Graph graph) throws LaunchException {
        if (!(graph instanceof HostGraph g)) {
            throw new LaunchException("GRAPH_FOREIGN", "the graph was not captured by this launcher");
        }
        List<Op> ops = g.recorded();
        List<Recorded> waiting = new ArrayList<>();
        for (int i = 0; i < ops.size(); i++) {
            switch (ops.get(i)) {
                case Recorded r when r.lane() == Lane.MAIN -> run(r);
                case Recorded r -> {
                    if (sideOrder == SideOrder.AT_JOIN) {
                        waiting.add(r);
                    }
                }
                case Fork f -> {
                    if (sideOrder == SideOrder.AT_FORK) {
                        // every side launch of this fork, before the main stream goes on
                        for (int j = i + 1; j < ops.size() && !(ops.get(j) instanceof Join); j++) {
                            if (ops.get(j) instanceof Recorded r && r.lane() == Lane.SIDE) {
                                run(r);
                            }
                        }
                    }
                }
                case Join j -> {
                    for (Recorded r : waiting) {
                        run(r);
                    }
                    waiting.clear();
                }
            }
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
