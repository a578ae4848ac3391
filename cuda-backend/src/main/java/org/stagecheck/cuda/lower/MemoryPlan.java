package org.stagecheck.cuda.lower;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * Where everything of a program lives on the device (brief, "CUDA backend": several chips are
 * simulated on one GPU as separate allocations). Each chip is one allocation holding its DRAM
 * tensors, the buffers of its cores, the multicast delivery slots of groups on it and the staging
 * areas of its stages; each region starts on a 256-byte boundary. The parameters and the fault
 * record live in a separate control allocation: parameters at {@code P[i]} (64-bit, in the
 * program's parameter order), so a captured graph reads each step's values.
 */
public final class MemoryPlan {
    /** Region alignment in bytes (the driver's allocation granularity for coalesced access). */
    public static final long ALIGN = 256;

    private final long[] chipBytes;
    private final Map<String, Placed> tensors;
    private final Map<String, Placed> buffers;
    private final Map<String, Placed> extra;
    private final List<String> params;

    private MemoryPlan(long[] chipBytes, Map<String, Placed> tensors, Map<String, Placed> buffers,
                       Map<String, Placed> extra, List<String> params) {
        this.chipBytes = chipBytes;
        this.tensors = tensors;
        this.buffers = buffers;
        this.extra = extra;
        this.params = params;
    }

    /** A region to place besides the program's declarations: a delivery slot or a staging area. */
    public record Extra(String key, String what, int chip, DType dtype, Shape shape) {}

    /** Lays out every tensor, buffer and extra region of {@code program}. */
    public static MemoryPlan of(Program program, List<Extra> extras) {
        int chips = program.machine().chips();
        long[] used = new long[chips];
        Map<String, Placed> tensors = new LinkedHashMap<>();
        for (TensorDecl t : program.tensorsByName().values()) {
            tensors.put(t.name(), place(used, "tensor '" + t.name() + "'", t.chip(), t.dtype(), t.shape()));
        }
        Map<String, Placed> buffers = new LinkedHashMap<>();
        for (BufferDecl b : program.buffersByName().values()) {
            buffers.put(b.name(), place(used, "buffer '" + b.name() + "'", b.site().chip(), b.dtype(), b.shape()));
        }
        Map<String, Placed> extra = new LinkedHashMap<>();
        for (Extra e : extras) {
            extra.put(e.key(), place(used, e.what(), e.chip(), e.dtype(), e.shape()));
        }
        List<String> params = program.params().stream().map(p -> p.name()).distinct().toList();
        return new MemoryPlan(used, tensors, buffers, extra, params);
    }

    private static Placed place(long[] used, String what, int chip, DType dtype, Shape shape) {
        Placed p = new Placed(what, chip, used[chip], dtype, shape);
        long end = used[chip] + p.bytes();
        used[chip] = (end + ALIGN - 1) / ALIGN * ALIGN;
        return p;
    }

    public int chips() {
        return chipBytes.length;
    }

    /** Bytes of chip {@code c}'s allocation (at least one alignment unit, so every chip has an address). */
    public long chipBytes(int c) {
        return Math.max(chipBytes[c], ALIGN);
    }

    public long[] allChipBytes() {
        long[] out = Arrays.copyOf(chipBytes, chipBytes.length);
        for (int i = 0; i < out.length; i++) {
            out[i] = Math.max(out[i], ALIGN);
        }
        return out;
    }

    public Placed tensor(String name) {
        return require(tensors.get(name), "tensor", name);
    }

    public Placed buffer(String name) {
        return require(buffers.get(name), "buffer", name);
    }

    public Placed extra(String key) {
        return require(extra.get(key), "region", key);
    }

    public Map<String, Placed> tensors() {
        return tensors;
    }

    /** The index of parameter {@code name} in the device parameter array {@code P}. */
    public int param(String name) {
        int i = params.indexOf(name);
        if (i < 0) {
            throw new LoweringException("parameter '" + name + "' is not declared");
        }
        return i;
    }

    public List<String> params() {
        return params;
    }

    private static Placed require(Placed p, String kind, String name) {
        if (p == null) {
            throw new LoweringException(kind + " '" + name + "' is not declared");
        }
        return p;
    }
}
