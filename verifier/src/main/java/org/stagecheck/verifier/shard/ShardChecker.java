package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;
import org.stagecheck.verifier.ProgramIndex;

/**
 * The UnreducedShard obligation (brief, "Certificates"; docs/verifier.md): an abstract
 * interpretation over the stage list, in reference order, that keeps for every buffer the logical
 * expression it holds, over which window, and whether only as a chip's partial share of a
 * reduction; and for every tensor what was stored where. At the end, every logical output or
 * state tensor must hold the same logical expression on every chip that holds part of it.
 *
 * <p>The rules live with their seams: {@link MemoryRules} (load, store, receive),
 * {@link ExprRules} (elementwise and scalar), {@link ContractionRules} (matmul, reduce),
 * {@link LayoutRules} (reshape, transpose, slice, concat), {@link AllReduceRule}. One pass, O(1)
 * work per buffer reference and expression node (hash-consed terms), so the check is linear in
 * program size. One instance per verification.
 */
public final class ShardChecker {
    private final ShardState st;
    private final MemoryRules memory;
    private final ExprRules exprs;
    private final ContractionRules contractions;
    private final LayoutRules layout;
    private final AllReduceRule allReduce;
    private final PartialNarrowing narrowing;
    private final Program unsplit;

    /** The check of a program alone: every chip computes its part of one logical program. */
    public ShardChecker(ProgramIndex index, ShardDecls decls, Findings findings) {
        this(index, decls, findings, null);
    }

    /**
     * The check of a split against its unsplit parent (nullable): also, every output and state
     * tensor holds what the parent's tensor of that logical name holds (docs/verifier.md, "The
     * unsplit parent"). The parent is analysed first, without declarations (its tensors are the
     * logical tensors), with the same term table.
     */
    public ShardChecker(ProgramIndex index, ShardDecls decls, Findings findings, Program unsplit) {
        this(new ShardState(index, decls, findings, new Terms(), Terms.CHILD), unsplit);
    }

    private ShardChecker(ShardState st, Program unsplit) {
        this.st = st;
        this.memory = new MemoryRules(st);
        this.exprs = new ExprRules(st);
        this.contractions = new ContractionRules(st, exprs);
        this.layout = new LayoutRules(st);
        this.allReduce = new AllReduceRule(st, exprs);
        this.narrowing = new PartialNarrowing(st);
        this.unsplit = unsplit;
    }

    /** How many terms the analysis made (its term table's size; the parent's included): O(1) per stage, whatever the shape. */
    int termsMade() {
        return st.terms.size();
    }

    /** Runs the analysis; returns the remarks that are not findings. */
    public List<String> run() {
        ShardState parent = null;
        if (unsplit != null) {
            Findings own = new Findings();
            // the parent on the parameter values the split runs (a split may be specialised for a narrower range)
            parent = new ShardState(ProgramIndex.of(ParamRanges.within(unsplit, st.index.program())), ShardDecls.none(), own, st.terms, Terms.PARENT);
            ShardChecker parentChecker = new ShardChecker(parent, null);
            parentChecker.pass();
            narrowing.compareWith(parentChecker.narrowing);
            if (!own.all().isEmpty()) {
                st.notes.add("The unsplit parent has " + own.all().size() + " UnreducedShard finding(s) of its own (first: "
                        + own.all().getFirst().code() + "); the comparison uses what it computes.");
            }
        } else {
            narrowing.off();
        }
        pass();
        exprs.vocab().reportUncombined();
        outputsAgree();
        UnreducedOutputs.check(st);
        if (parent != null) {
            st.notes.addAll(new UnsplitOutputs(parent, st).check());
            Precision.compare(unsplit, st.index.program(), st.decls, st.findings);
        }
        return List.copyOf(st.notes);
    }

    /** One pass over the stages in reference order. */
    private void pass() {
        List<Stage> stages = st.index.program().stages();
        for (int i = 0; i < stages.size(); i++) {
            st.terms.at(st.phase, i);
            st.stageIndex = i;
            st.stage = stages.get(i);
            memory.checkIndexRefs();
            st.guards.begin();
            List<Val> out;
            try {
                out = unmaskedGuards() ? List.of(Val.TAINTED) : stageValues();
            } catch (StackOverflowError e) {
                // the one recursion here is over an expression tree: report this stage, go on
                st.findings.atStage(Code.EXPR_TOO_DEEP, i, st.stage, "/kind", null,
                        "The expression of this stage nests too deeply for the checker's stack, so its use of partial values is not checked; flatten it or run with a larger -Xss.");
                out = List.of(Val.TAINTED);
            }
            narrowing.stage(out);
            exprs.vocab().written();
            for (int k = 0; k < st.stage.outs().size(); k++) {
                Val v = out.isEmpty() ? null : out.get(Math.min(k, out.size() - 1));
                if (v == null) {
                    st.values.remove(st.stage.outs().get(k));
                } else {
                    st.values.put(st.stage.outs().get(k), v);
                }
            }
            if (st.stage.kind() instanceof StageKind.Load l && l.multicast() != null) {
                st.inFlight.put(l.multicast(), out.isEmpty() ? null : out.getFirst());
            }
            st.guards.finish(st.stage, st.index.refs(i));
        }
    }

    /**
     * An all-reduce, or a store to an output or state tensor, of a value that is right only under
     * a guard (a block read at an owned expert's offset, never masked to 0 outside the owned
     * range) is a finding: what the chips add, or what the tensor holds, is not the term the
     * checker derived wherever the guard fails (docs/verifier.md, "Sums over an index").
     */
    private boolean unmaskedGuards() {
        boolean use = switch (st.stage.kind()) {
            case StageKind.AllReduce a -> true;
            case StageKind.Store s -> st.index.tensor(s.tensor()) != null
                    && st.index.tensor(s.tensor()).role().isResult();
            case StageKind.Load l -> false;
            case StageKind.Recv r -> false;
            case StageKind.Compute c -> false;
            case StageKind.Scalar s -> false;
        };
        if (!use) {
            return false;
        }
        for (int p = 0; p < st.stage.ins().size(); p++) {
            String b = st.stage.ins().get(p);
            java.util.Set<Guard> g = st.guards.of(b);
            if (!g.isEmpty() && !(st.value(b) instanceof Val.Tainted)) {
                Guard first = g.iterator().next();
                String madeAt = st.guards.madeAt(first);
                List<String> trail = new ArrayList<>();
                if (madeAt != null) {
                    trail.add(madeAt + ": reads a block at an offset that holds only where " + st.describe(first));
                }
                trail.add("#" + st.stageIndex + " " + st.stage.id() + ": takes '" + b + "', never masked by that index within that range");
                st.findings.atStage(Code.GUARDED_READ_UNMASKED, st.stageIndex, st.stage, "/ins/" + p, b,
                        "Buffer '" + b + "' holds a value computed from a block read at an offset that is right only where " + st.describe(first)
                                + ", and it reaches this " + (st.stage.kind() instanceof StageKind.AllReduce ? "all-reduce" : "store")
                                + " without being masked (multiplied by a mask, or selected under a range test) to 0 wherever the index lies outside that range.", trail);
                return true;
            }
        }
        return false;
    }

    private List<Val> stageValues() {
        return switch (st.stage.kind()) {
            case StageKind.Load l -> List.of(memory.load(l));
            case StageKind.Store s -> {
                memory.store(s);
                yield List.of();
            }
            case StageKind.Recv r -> {
                Val v = st.inFlight.get(r.group());
                yield List.of(v != null ? v : st.opaque(st.outDims(), "receive"));
            }
            case StageKind.AllReduce a -> List.of(allReduce.apply(a));
            case StageKind.Compute c -> List.of(compute(c.op()));
            case StageKind.Scalar s -> exprs.scalar(s.body(), inputs());
        };
    }

    private List<Val> inputs() {
        List<Val> ins = new ArrayList<>(st.stage.ins().size());
        for (String b : st.stage.ins()) {
            ins.add(st.value(b));
        }
        return ins;
    }

    private Val compute(ComputeOp op) {
        List<Val> ins = inputs();
        for (Val v : ins) {
            if (v instanceof Val.Tainted) {
                return Val.TAINTED;
            }
        }
        Val first = ins.isEmpty() ? null : ins.getFirst();
        return switch (op) {
            case ComputeOp.Generic g -> exprs.generic(g, ins);
            case ComputeOp.MatMul m -> contractions.matmul(m, ins);
            case ComputeOp.Reduce r -> contractions.reduce(r, first);
            case ComputeOp.Reshape r -> layout.reshape(first);
            case ComputeOp.Transpose t -> layout.transpose(t, first);
            case ComputeOp.Slice s -> layout.slice(s, first);
            case ComputeOp.Concat c -> layout.concat(c, ins);
        };
    }

    /**
     * The windows declared of one logical output or state tensor must together hold all of it on
     * their axis: an element no chip holds is an element nobody computes (the unsplit parent, when
     * given, also checks this against its shape). Windows on different axes are not judged here.
     */
    private void coverage(String logical, List<TensorMemory> parts) {
        Slices held = null;
        ShardDecl first = st.decls.of(parts.getFirst().tensor.name());
        for (TensorMemory m : parts) {
            ShardDecl d = st.decls.of(m.tensor.name());
            if (d.axis() != first.axis()) {
                return;
            }
            Slices s = Slices.of(d.start(), d.end());
            held = held == null ? s : held.union(s);
        }
        if (held != null && !held.equals(Slices.of(0, first.extent()))) {
            st.findings.atField(Code.OUTPUT_WINDOWS_GAP, "/tensors", null, "The tensors " + parts.stream().map(m -> "'" + m.tensor.name() + "'").toList()
                    + " are declared windows of logical tensor " + logical + ", but on axis " + first.axis() + " they hold only " + held + " of [0,"
                    + first.extent() + "): part of it is computed by no chip.");
        }
    }

    /**
     * Every output or state tensor declared a window of a logical tensor must end up holding the
     * same logical expression as every other tensor declared a window of it: each chip computed
     * its part of one value, not a value of its own.
     */
    private void outputsAgree() {
        Map<String, List<TensorMemory>> byLogical = new LinkedHashMap<>();
        for (TensorDecl t : st.index.program().tensors()) {
            ShardDecl d = st.decls.of(t.name());
            if (d == null || !t.role().isResult() || st.index.tensor(t.name()) != t) {
                continue;
            }
            byLogical.computeIfAbsent(d.logical(), k -> new ArrayList<>()).add(st.memory(t));
        }
        for (Map.Entry<String, List<TensorMemory>> e : byLogical.entrySet()) {
            coverage(e.getKey(), e.getValue());
            TensorMemory first = e.getValue().getFirst();
            for (TensorMemory m : e.getValue()) {
                if (m.content.id() == first.content.id() || OutputTiling.sameValue(first, m)) {
                    continue;
                }
                if (st.reportDemotions(List.of(first.content, m.content), Code.PARTIAL_STORE)) {
                    break;
                }
                TensorMemory blame = m.lastStore >= 0 ? m : first;
                String message = "Tensors '" + first.tensor.name() + "' (chip " + first.tensor.chip() + ") and '" + m.tensor.name() + "' (chip "
                        + m.tensor.chip() + ") are declared to hold parts of logical tensor " + e.getKey()
                        + ", but the chips computed different values for it: " + first.content + " and " + m.content + ".";
                if (blame.lastStore >= 0) {
                    st.findings.atStage(Code.OUTPUT_CHIPS_DIFFER, blame.lastStore, st.index.program().stages().get(blame.lastStore),
                            "/ins/0", null, message);
                } else {
                    st.findings.atField(Code.OUTPUT_CHIPS_DIFFER, "/tensors", null, message);
                }
                break;
            }
        }
    }
}
