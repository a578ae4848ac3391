package org.stagecheck.cuda.lower;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.spec.flow.Dataflow;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * Lowers a validated program to one plain CUDA C kernel per stage (brief, "CUDA backend"; the
 * plan is in docs/cuda.md). Before writing code it walks the stages in order once, as the
 * reference will run them, to settle what is known without data: which buffers have been written
 * (a read before any write is the reference's fault, found here), which multicast Load a Recv
 * takes its delivery from (each multicast Load has its own delivery slot), whether a MatMul's
 * spill holds a value yet, and which outputs the stage also reads (those are written to a staging
 * area and copied into place by a second kernel, so no thread reads an element another thread of
 * the same kernel has already overwritten).
 */
public final class ProgramLowering {
    private ProgramLowering() {
    }

    /** Lowers {@code program} to exact kernels; kernel names start with {@code prefix}. */
    public static LoweredProgram lower(Program program, String prefix) {
        return lower(program, prefix, Kernels.EXACT);
    }

    /** Lowers {@code program} to {@code mode}'s kernels; kernel names start with {@code prefix}. */
    public static LoweredProgram lower(Program program, String prefix, Kernels mode) {
        Map<String, String> slotOfLoad = new HashMap<>();
        Map<Integer, String> recvSlot = new HashMap<>();
        Map<Integer, String> recvFrom = new HashMap<>();
        Map<Integer, Map<String, String>> staging = new HashMap<>();
        Map<Integer, Boolean> spillWritten = new HashMap<>();
        Map<Integer, Split> splits = new HashMap<>();
        List<MemoryPlan.Extra> extras = new ArrayList<>();
        Map<String, String> lastDelivery = new HashMap<>();
        Dataflow flow = Dataflow.of(program);
        StaticFault fault = null;
        List<Stage> stages = program.stages();
        var buffers = program.buffersByName();
        var groups = program.groupsByName();
        for (int i = 0; i < stages.size() && fault == null; i++) {
            Stage st = stages.get(i);
            // the first buffer the stage reads that no earlier stage wrote (a spill may be unwritten: it reads +0)
            String unwritten = flow.readsBeforeWrite(i).stream().findFirst().orElse(null);
            if (unwritten != null) {
                fault = new StaticFault(i, st.id(), FaultCode.READ_BEFORE_WRITE, unwritten,
                        "buffer '" + unwritten + "' is read before any stage wrote it.");
                break;
            }
            switch (st.kind()) {
                case StageKind.Load l when l.multicast() != null -> {
                    String key = "slot:" + i;
                    var out = buffers.get(st.outs().getFirst());
                    var g = groups.get(l.multicast());
                    if (out == null || g == null) {
                        throw new LoweringException("stage '" + st.id() + "' names an undeclared buffer or group");
                    }
                    extras.add(new MemoryPlan.Extra(key, "delivery slot of group '" + l.multicast() + "' from stage '" + st.id() + "'",
                            g.chip(), out.dtype(), out.shape()));
                    slotOfLoad.put(st.id() + "#" + i, key);
                    lastDelivery.put(l.multicast(), key + "|" + st.id());
                }
                case StageKind.Recv r -> {
                    String d = lastDelivery.get(r.group());
                    if (d == null) {
                        fault = new StaticFault(i, st.id(), FaultCode.RECV_WITHOUT_LOAD, null, "nothing was delivered to "
                                + st.site() + " by group '" + r.group() + "': no multicast Load of the group ran before this stage.");
                        continue;
                    }
                    recvSlot.put(i, d.substring(0, d.indexOf('|')));
                    recvFrom.put(i, d.substring(d.indexOf('|') + 1));
                }
                case StageKind.Compute c when c.op() instanceof ComputeOp.MatMul mm && mm.spill() != null ->
                    spillWritten.put(i, flow.reads(i).stream().anyMatch(r -> r.ref() != null
                            && r.ref().role() == InternalRef.Role.SPILL && r.writer() != Dataflow.NONE));
                case StageKind.Load l -> { }
                case StageKind.Compute c -> { }
                case StageKind.Store s -> { }
                case StageKind.AllReduce a -> { }
                case StageKind.Scalar s -> { }
            }
            if (mode == Kernels.FAST) {
                SplitRegions.plan(i, st, buffers, splits, extras);
            }
            Map<String, String> staged = new LinkedHashMap<>();
            if (!(st.kind() instanceof StageKind.Scalar)) {
                // a spill is read and written by the thread of each element alone, so it needs no
                // staging, unless it is also an output port
                Set<String> reads = new HashSet<>();
                for (Dataflow.Read r : flow.reads(i)) {
                    if (r.ref() == null || r.ref().role() != InternalRef.Role.SPILL || st.outs().contains(r.buffer())) {
                        reads.add(r.buffer());
                    }
                }
                for (String w : st.buffersWritten()) {
                    if (reads.contains(w) && !staged.containsKey(w)) {
                        var b = buffers.get(w);
                        String key = "stage:" + i + ":" + w;
                        extras.add(new MemoryPlan.Extra(key, "staging of buffer '" + w + "' for stage '" + st.id() + "'",
                                b.site().chip(), b.dtype(), b.shape()));
                        staged.put(w, key);
                    }
                }
            }
            staging.put(i, staged);
        }
        MemoryPlan plan = MemoryPlan.of(program, extras);
        List<Kernel> kernels = new ArrayList<>();
        StringBuilder src = new StringBuilder();
        if (mode == Kernels.FAST) {
            src.append("\n// fast kernels: a MatMul with few rows and a Reduce over a long axis are split into chunks\n")
                    .append("// (partials, then a combine in chunk order): deterministic, not the reference's order\n");
        }
        int end = fault == null ? stages.size() : fault.stageIndex();
        for (int i = 0; i < end; i++) {
            Stage st = stages.get(i);
            Map<String, String> staged = staging.getOrDefault(i, Map.of());
            Emit x = new Emit(program, plan, i, st, prefix, staged, kernels, src);
            try {
                switch (st.kind()) {
                    case StageKind.Load l -> MoveLowering.load(x, l, slotOfLoad.get(st.id() + "#" + i));
                    case StageKind.Store s -> MoveLowering.store(x, s);
                    case StageKind.Recv r -> MoveLowering.recv(x, r, recvSlot.get(i), recvFrom.get(i));
                    case StageKind.AllReduce a -> ExprLowering.elementwise(x, a.combine().expr(),
                            a.pool().jsonName() + " all-reduce of '" + a.tensor() + "' over the partials in port order");
                    case StageKind.Scalar s -> ExprLowering.scalar(x, s.body().results());
                    case StageKind.Compute c -> {
                        switch (c.op()) {
                            case ComputeOp.Generic g -> ExprLowering.elementwise(x, g.expr(), "elementwise");
                            case ComputeOp.MatMul mm -> ComputeLowering.matmul(x, mm, spillWritten.getOrDefault(i, false),
                                    splits.get(i), SplitRegions.partials(plan, i, splits));
                            case ComputeOp.Reduce r -> ComputeLowering.reduce(x, r, splits.get(i),
                                    SplitRegions.partials(plan, i, splits), SplitRegions.indices(plan, i, splits, r));
                            case ComputeOp.Reshape r -> ComputeLowering.reshape(x);
                            case ComputeOp.Transpose t -> ComputeLowering.transpose(x, t);
                            case ComputeOp.Slice s -> ComputeLowering.slice(x, s);
                            case ComputeOp.Concat cc -> ComputeLowering.concat(x, cc);
                        }
                    }
                }
                for (var e : staged.entrySet()) {
                    MoveLowering.commit(x, e.getKey(), plan.extra(e.getValue()));
                }
            } catch (LoweringException | IndexOutOfBoundsException | java.util.NoSuchElementException e) {
                throw new LoweringException("stage " + i + " '" + st.id() + "': " + e.getMessage());
            }
        }
        return new LoweredProgram(program, prefix, src.toString(), kernels, plan, fault);
    }
}
