package org.stagecheck.spec.gen;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * Checks of well-formedness written independently of the generator (and of the validator), so
 * that the generator's tests can fail: each method returns the list of violations it found.
 */
final class ProgramFacts {
    private ProgramFacts() {}

    /** Every buffer a stage reads (ports and kind-internal references) was written by an earlier stage. */
    static List<String> readBeforeWrite(Program p) {
        List<String> bad = new ArrayList<>();
        Set<String> written = new HashSet<>();
        for (Stage s : p.stages()) {
            for (String b : s.buffersRead()) {
                if (!written.contains(b)) {
                    bad.add(s.id() + " reads " + b + " before any stage writes it");
                }
            }
            written.addAll(s.outs());
            if (s.kind() instanceof StageKind.Compute c && c.op() instanceof org.stagecheck.spec.ir.ComputeOp.MatMul m && m.spill() != null) {
                written.add(m.spill());
            }
        }
        return bad;
    }

    /** Names of tensors, buffers, groups and stages are unique, and every reference resolves. */
    static List<String> danglingOrDuplicate(Program p) {
        List<String> bad = new ArrayList<>();
        unique(bad, "tensor", p.tensors().stream().map(TensorDecl::name).toList());
        unique(bad, "buffer", p.buffers().stream().map(BufferDecl::name).toList());
        unique(bad, "group", p.groups().stream().map(Group::name).toList());
        unique(bad, "stage", p.stages().stream().map(Stage::id).toList());
        Map<String, BufferDecl> buffers = p.buffersByName();
        for (Stage s : p.stages()) {
            List<String> named = new ArrayList<>(s.buffersRead());
            named.addAll(s.outs());
            for (String b : named) {
                if (!buffers.containsKey(b)) {
                    bad.add(s.id() + " names undeclared buffer " + b);
                }
            }
            String tensor = switch (s.kind()) {
                case StageKind.Load l -> l.tensor();
                case StageKind.Store st -> st.tensor();
                case StageKind.Recv r -> null;
                case StageKind.AllReduce a -> null;
                case StageKind.Compute c -> null;
                case StageKind.Scalar sc -> null;
            };
            if (tensor != null && !p.tensorsByName().containsKey(tensor)) {
                bad.add(s.id() + " names undeclared tensor " + tensor);
            }
        }
        return bad;
    }

    private static void unique(List<String> bad, String what, List<String> names) {
        Set<String> seen = new HashSet<>();
        for (String n : names) {
            if (!seen.add(n)) {
                bad.add(what + " " + n + " is declared twice");
            }
        }
    }

    /**
     * Every buffer a stage names lives on the stage's core (an AllReduce's ports excepted: they are
     * on the member chips), and every tensor a stage reads or writes is on the stage's chip.
     */
    static List<String> placement(Program p) {
        List<String> bad = new ArrayList<>();
        Map<String, BufferDecl> buffers = p.buffersByName();
        Map<String, TensorDecl> tensors = p.tensorsByName();
        for (Stage s : p.stages()) {
            List<String> local = new ArrayList<>(s.kind().internalRefs().stream().map(r -> r.buffer()).toList());
            if (!(s.kind() instanceof StageKind.AllReduce)) {
                local.addAll(s.ins());
                local.addAll(s.outs());
            }
            for (String b : local) {
                BufferDecl d = buffers.get(b);
                if (d != null && !d.site().equals(s.site())) {
                    bad.add(s.id() + " on " + s.site() + " names " + b + " on " + d.site());
                }
            }
            if (s.kind() instanceof StageKind.Load l && tensors.get(l.tensor()).chip() != s.site().chip()) {
                bad.add(s.id() + " loads " + l.tensor() + " from another chip");
            }
            if (s.kind() instanceof StageKind.Store st && tensors.get(st.tensor()).chip() != s.site().chip()) {
                bad.add(s.id() + " stores " + st.tensor() + " on another chip");
            }
        }
        return bad;
    }

    /**
     * Every Load/Store block lies inside its tensor for the extreme values of every parameter (the
     * offsets are affine, so the extremes bound every value); buffer-term offsets are skipped: only
     * run time knows them. Streamed patterns are checked up to their last block.
     */
    static List<String> blocksInBounds(Program p) {
        List<String> bad = new ArrayList<>();
        Map<String, Param> params = p.paramsByName();
        Map<String, BufferDecl> buffers = p.buffersByName();
        for (Stage s : p.stages()) {
            AccessPattern pattern;
            String tensor;
            int blocks;
            switch (s.kind()) {
                case StageKind.Load l -> {
                    pattern = l.pattern();
                    tensor = l.tensor();
                    blocks = l.numBlocks();
                }
                case StageKind.Store st -> {
                    pattern = st.pattern();
                    tensor = st.tensor();
                    blocks = st.pattern() instanceof AccessPattern.Streamed sp
                            ? buffers.get(s.ins().get(0)).shape().dim(sp.axis()) / sp.block().dim(sp.axis()) : 1;
                }
                case StageKind.Recv r -> { continue; }
                case StageKind.AllReduce a -> { continue; }
                case StageKind.Compute c -> { continue; }
                case StageKind.Scalar sc -> { continue; }
            }
            Shape t = p.tensorsByName().get(tensor).shape();
            int shift = pattern instanceof AccessPattern.Indirect ? 1 : 0;
            Shape block = switch (pattern) {
                case AccessPattern.Block b -> b.block();
                case AccessPattern.Streamed st -> st.block();
                case AccessPattern.Indirect ind -> ind.block();
            };
            if (t.rank() != block.rank() + shift || pattern.originOffsets().size() != block.rank()) {
                bad.add(s.id() + ": pattern rank does not match tensor " + tensor + " " + t);
                continue;
            }
            for (int k = 0; k < block.rank(); k++) {
                Offset o = pattern.originOffsets().get(k);
                if (!o.buffers().isEmpty()) {
                    continue;
                }
                long lo = o.constant();
                long hi = o.constant();
                for (Offset.Term term : o.terms()) {
                    Param prm = params.get(((Offset.Term.OfParam) term).param());
                    long a = term.coefficient() * prm.min();
                    long b = term.coefficient() * prm.max();
                    lo += Math.min(a, b);
                    hi += Math.max(a, b);
                }
                if (pattern instanceof AccessPattern.Streamed st && st.axis() == k) {
                    hi += (long) (blocks - 1) * st.stride();
                }
                if (lo < 0 || hi + block.dim(k) > t.dim(k + shift)) {
                    bad.add(s.id() + ": block [" + lo + ", " + (hi + block.dim(k)) + ") leaves axis " + (k + shift) + " of " + tensor + " " + t);
                }
            }
        }
        return bad;
    }

    /** Each group's Load comes first, then exactly one Recv on each receiver, with the sent shape and dtype. */
    static List<String> multicastComplete(Program p) {
        List<String> bad = new ArrayList<>();
        Map<String, BufferDecl> buffers = p.buffersByName();
        Map<String, BufferDecl> sent = new HashMap<>();
        Map<String, List<org.stagecheck.spec.ir.Site>> received = new HashMap<>();
        for (Stage s : p.stages()) {
            if (s.kind() instanceof StageKind.Load l && l.multicast() != null) {
                sent.put(l.multicast(), buffers.get(s.outs().get(0)));
            }
            if (s.kind() instanceof StageKind.Recv r) {
                BufferDecl from = sent.get(r.group());
                BufferDecl to = buffers.get(s.outs().get(0));
                if (from == null) {
                    bad.add(s.id() + " receives from " + r.group() + " before its Load");
                } else if (!from.shape().equals(to.shape()) || from.dtype() != to.dtype()) {
                    bad.add(s.id() + " receives " + from.dtype() + from.shape() + " into " + to.dtype() + to.shape());
                }
                received.computeIfAbsent(r.group(), k -> new ArrayList<>()).add(s.site());
            }
        }
        for (Group g : p.groups()) {
            List<org.stagecheck.spec.ir.Site> got = received.getOrDefault(g.name(), List.of());
            if (!got.equals(g.receivers())) {
                bad.add("group " + g.name() + " has receivers " + g.receivers() + " but Recvs on " + got);
            }
        }
        return bad;
    }
}
