package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;
import org.stagecheck.verifier.ProgramIndex;

/**
 * The UnreducedShard obligation (brief, "Certificates"; docs/verifier.md): an abstract
 * interpretation over the stage list, in reference order, that keeps one {@link Fact} per buffer
 * and checks every stage's use of partial values. One pass, O(1) map operations per buffer
 * reference, so the check is linear in program size.
 *
 * <p>One instance per verification (it holds the per-buffer facts).
 */
public final class ShardChecker {
    private final ProgramIndex index;
    private final ShardDecls decls;
    private final Findings findings;
    /** The fact of every written buffer; absent means unwritten. */
    private final Map<String, Fact> facts = new HashMap<>();
    /** The fact of the value each multicast group's latest load sent, for its receivers. */
    private final Map<String, Fact> inFlight = new HashMap<>();
    /** For each declared-partial tensor, the partials stored to it so far (for the view of a reload). */
    private final Map<String, Stored> stored = new HashMap<>();
    private final View.Table views = new View.Table();

    /**
     * The stores to one declared-partial tensor: {@code history} names every store's pattern and
     * partial in order; {@code onlyPattern}/{@code onlyView} are set while there was exactly one,
     * so that reloading exactly the region stored gives the partial back unchanged.
     */
    private record Stored(View history, String onlyPattern, View onlyView) {}

    private int stageIndex;
    private Stage stage;

    public ShardChecker(ProgramIndex index, ShardDecls decls, Findings findings) {
        this.index = index;
        this.decls = decls;
        this.findings = findings;
    }

    public void run() {
        List<Stage> stages = index.program().stages();
        for (int i = 0; i < stages.size(); i++) {
            stageIndex = i;
            stage = stages.get(i);
            checkIndexRefs();
            List<Fact> out;
            try {
                out = stageFacts();
            } catch (StackOverflowError e) {
                // the one recursion here is over a Generic expression tree: report this stage, go on
                findings.atStage(Code.EXPR_TOO_DEEP, i, stage, "/kind", null,
                        "The expression of this stage nests too deeply for the checker's stack, so its use of partial values is not checked; flatten it or run with a larger -Xss.");
                out = List.of(Fact.TAINTED);
            }
            Fact written = out.isEmpty() ? null : out.getFirst();
            for (String o : stage.outs()) {
                facts.put(o, written);
            }
            if (stage.kind() instanceof StageKind.Load l && l.multicast() != null) {
                inFlight.put(l.multicast(), written);
            }
        }
    }

    private List<Fact> stageFacts() {
        return switch (stage.kind()) {
            case StageKind.Load l -> List.of(load(l));
            case StageKind.Store s -> { store(s); yield List.of(); }
            case StageKind.Recv r -> List.of(inFlight.getOrDefault(r.group(), Fact.FULL));
            case StageKind.AllReduce a -> List.of(new AllReduceCheck(index, decls, findings, facts, stageIndex, stage, a).run());
            case StageKind.Compute c -> compute(c.op());
            case StageKind.Scalar s -> List.of(scalar());
        };
    }

    // ------------------------------------------------------------------ helpers

    private Fact fact(String buffer) {
        return buffer == null ? null : facts.get(buffer);
    }

    private String where() {
        return "#" + stageIndex + " " + stage.id();
    }

    private Origin step(String what, Origin previous) {
        return new Origin(stageIndex, stage.id(), what, previous);
    }

    private void report(Code code, String field, String buffer, String message, Fact.Partial partial, String finalStep) {
        List<String> trail = new ArrayList<>();
        if (partial != null && partial.origin() != null) {
            trail.addAll(partial.origin().trail());
        }
        trail.add(where() + ": " + finalStep);
        findings.atStage(code, stageIndex, stage, field, buffer, message, trail);
    }

    /** A partial used as an index buffer or offset term is an error whatever the stage does. */
    private void checkIndexRefs() {
        for (InternalRef r : stage.kind().internalRefs()) {
            if (r.field().startsWith("pattern/") && fact(r.buffer()) instanceof Fact.Partial p) {
                report(Code.PARTIAL_AS_INDEX, "/kind/" + r.field(), r.buffer(),
                        "Buffer '" + r.buffer() + "' holds a " + p.describe() + " and is used as an index or offset before it is reduced.",
                        p, "uses the " + p.describe() + " in buffer " + r.buffer() + " as an index or offset");
            }
        }
    }

    // ------------------------------------------------------------------ Load and Store

    private Fact load(StageKind.Load l) {
        TensorDecl t = index.tensor(l.tensor());
        ShardDecl d = decls.of(l.tensor());
        if (t == null || d == null) {
            return Fact.FULL;
        }
        if (!t.role().isBoundBeforeRun()) {
            Slices s = Slices.of(d.start(), d.end());
            Stored st = stored.get(t.name());
            String pattern = View.pattern(l.pattern());
            View view = st == null ? views.of("load " + pattern + " of nothing stored")
                    : st.onlyPattern() != null && st.onlyPattern().equals(pattern) && l.numBlocks() == 1 ? st.onlyView()
                    : views.of("load " + pattern + " x" + l.numBlocks(), st.history());
            return new Fact.Partial(d.logical(), s, ReducePool.SUM, view,
                    step("Load of " + t.name() + ", declared to hold a partial of " + d.logical() + " over " + s, null));
        }
        Slices held = loadedSlices(l, d);
        String axisName = d.axis() == 0 ? "rows" : d.axis() == 1 ? "columns" : "axis-" + d.axis() + " elements";
        return new Fact.Shard(d.logical(), d.axis(), held, t.name(),
                step("Load of " + t.name() + " holds " + axisName + " " + held + " of " + d.logical(), null));
    }

    /** The slices of the logical tensor a load of shard tensor {@code d.tensor()} puts in its buffer. */
    private Slices loadedSlices(StageKind.Load l, ShardDecl d) {
        Slices whole = Slices.of(d.start(), d.end());
        int axis = d.axis();
        long len = d.end() - d.start();
        return switch (l.pattern()) {
            case AccessPattern.Block b -> window(b.origin(), axis, b.block().rank() > axis ? b.block().dim(axis) : len, whole, d);
            case AccessPattern.Streamed s -> {
                if (s.axis() != axis) {
                    yield window(s.origin(), axis, s.block().rank() > axis ? s.block().dim(axis) : len, whole, d);
                }
                Slices acc = Slices.empty();
                long blockLen = s.block().rank() > axis ? s.block().dim(axis) : len;
                Long o = constantAt(s.origin(), axis);
                if (o == null) {
                    yield unknownOffset(whole, d);
                }
                for (int k = 0; k < l.numBlocks(); k++) {
                    long from = o + k * s.stride();
                    acc = acc.union(whole.sub(from, from + blockLen));
                }
                yield acc;
            }
            case AccessPattern.Indirect ind -> axis == 0
                    ? unknownOffset(whole, d)
                    : window(ind.origin(), axis - 1, ind.block().rank() > axis - 1 ? ind.block().dim(axis - 1) : len, whole, d);
        };
    }

    private Slices window(List<Offset> origin, int originAxis, long blockLen, Slices whole, ShardDecl d) {
        Long o = constantAt(origin, originAxis);
        if (o == null) {
            return unknownOffset(whole, d);
        }
        return whole.sub(o, o + blockLen);
    }

    private static Long constantAt(List<Offset> origin, int axis) {
        if (axis >= origin.size()) {
            return 0L;
        }
        Offset o = origin.get(axis);
        return o.isConstant() ? o.constant() : null;
    }

    private Slices unknownOffset(Slices whole, ShardDecl d) {
        findings.atStage(Code.SHARD_OFFSET_UNKNOWN, stageIndex, stage, "/kind/pattern", null,
                "The load reads shard tensor '" + d.tensor() + "' at an offset along its shard axis " + d.axis()
                        + " that is not a constant, so the slice of " + d.logical() + " it holds cannot be derived.");
        return whole;
    }

    private void store(StageKind.Store s) {
        String buffer = stage.ins().isEmpty() ? null : stage.ins().getFirst();
        Fact f = fact(buffer);
        TensorDecl t = index.tensor(s.tensor());
        ShardDecl d = decls.of(s.tensor());
        boolean declaredPartial = t != null && d != null && !t.role().isBoundBeforeRun();
        if (f instanceof Fact.Partial p) {
            boolean fits = declaredPartial && d.logical().equals(p.logical()) && p.pool() == ReducePool.SUM
                    && p.slices().equals(Slices.of(d.start(), d.end()));
            if (fits) {
                String pattern = View.pattern(s.pattern());
                Stored before = stored.get(s.tensor());
                View history = before == null ? views.of("store " + pattern, p.view()) : views.of("store " + pattern, before.history(), p.view());
                stored.put(s.tensor(), before == null ? new Stored(history, pattern, p.view()) : new Stored(history, null, null));
            } else {
                String declared = declaredPartial ? "declared to hold a partial of " + d.logical() + " over [" + d.start() + "," + d.end() + ")" : "not declared partial";
                report(Code.PARTIAL_STORE, "/ins/0", buffer,
                        "Buffer '" + buffer + "' holds a " + p.describe() + " and is stored to tensor '" + s.tensor() + "', which is " + declared + ".",
                        p, "stores the " + p.describe() + " to tensor " + s.tensor());
            }
        } else if ((f instanceof Fact.Full || f instanceof Fact.Shard) && declaredPartial) {
            findings.atStage(Code.STORE_FULL_AS_PARTIAL, stageIndex, stage, "/ins/0", buffer,
                    "Buffer '" + buffer + "' holds a full value but is stored to tensor '" + s.tensor()
                            + "', declared to hold a partial of " + d.logical() + ", so a later reduce counts it once per shard.");
        }
    }

    // ------------------------------------------------------------------ Scalar

    private Fact scalar() {
        for (int p = 0; p < stage.ins().size(); p++) {
            String b = stage.ins().get(p);
            if (fact(b) instanceof Fact.Partial partial) {
                report(Code.PARTIAL_AS_INDEX, "/ins/" + p, b,
                        "Buffer '" + b + "' holds a " + partial.describe() + " and is read by a scalar program (index arithmetic) before it is reduced.",
                        partial, "reads the " + partial.describe() + " in scalar arithmetic");
                return Fact.TAINTED;
            }
        }
        return Fact.FULL;
    }

    // ------------------------------------------------------------------ Compute

    private List<Fact> compute(ComputeOp op) {
        List<Fact> ins = new ArrayList<>(stage.ins().size());
        for (String b : stage.ins()) {
            ins.add(fact(b));
        }
        for (Fact f : ins) {
            if (f instanceof Fact.Tainted) {
                return List.of(Fact.TAINTED);
            }
        }
        return List.of(switch (op) {
            case ComputeOp.Generic g -> generic(g, ins);
            case ComputeOp.MatMul m -> new MatMulCheck(this, m, ins).run();
            case ComputeOp.Reduce r -> reduce(r, ins);
            case ComputeOp.Reshape r -> reshape(ins);
            case ComputeOp.Transpose t -> transpose(t, ins);
            case ComputeOp.Slice s -> slice(s, ins);
            case ComputeOp.Concat c -> concat(c, ins);
        });
    }

    private Fact generic(ComputeOp.Generic g, List<Fact> ins) {
        GenericAbstraction abs = new GenericAbstraction(ins, stage.ins());
        GenericAbstraction.Value v = abs.eval(g.expr());
        GenericAbstraction.Problem p = abs.problem();
        if (p != null) {
            String full = p.fullPort() >= 0 && p.fullPort() < stage.ins().size() ? stage.ins().get(p.fullPort()) : null;
            String buffer = full != null ? full : bufferHolding(p.partial());
            report(p.code(), "/kind/op/expr", buffer, sentence(p.code(), p.what()), p.partial(), p.what());
            return Fact.TAINTED;
        }
        return switch (v) {
            case GenericAbstraction.Pa pa -> new Fact.Partial(pa.partial().logical(), pa.partial().slices(), pa.partial().pool(), genericView(g, ins),
                    step("elementwise op keeps the " + pa.partial().describe(), pa.partial().origin()));
            case GenericAbstraction.Sh sh -> sh.shard();
            case GenericAbstraction.Repl r -> Fact.FULL;
            case GenericAbstraction.Zero z -> Fact.FULL;
            case GenericAbstraction.Taint t -> Fact.TAINTED;
        };
    }

    /**
     * The expression with what each port held: P (with its view), F (full or unwritten), S (shard).
     * The expression text carries every constant, so a partial scaled by 2 on one chip and by 3 on
     * another gets two views.
     */
    private View genericView(ComputeOp.Generic g, List<Fact> ins) {
        StringBuilder roles = new StringBuilder();
        List<View> partials = new ArrayList<>();
        for (Fact f : ins) {
            roles.append(switch (f) {
                case Fact.Partial p -> {
                    partials.add(p.view());
                    yield 'P';
                }
                case Fact.Shard sh -> 'S';
                case Fact.Full full -> 'F';
                case Fact.Tainted t -> 'T';
                case null -> 'F';
            });
        }
        return views.of("generic " + org.stagecheck.spec.ir.Expr.print(g.expr()) + " on " + roles, partials.toArray(View[]::new));
    }

    /** The first input port holding {@code p} (for naming the buffer in a diagnostic). */
    private String bufferHolding(Fact.Partial p) {
        for (String b : stage.ins()) {
            if (fact(b) == p) {
                return b;
            }
        }
        return stage.ins().isEmpty() ? null : stage.ins().getFirst();
    }

    static String sentence(Code code, String what) {
        String s = Character.toUpperCase(what.charAt(0)) + what.substring(1);
        return switch (code) {
            case PARTIAL_PLUS_FULL -> s + " before the reduce, so the full value is counted once per shard.";
            case PARTIAL_NONLINEAR -> s + " before the partial is reduced, which does not commute with the reduce.";
            case PARTIAL_PARTITION_MISMATCH -> s + "; their sum is no partial of either.";
            default -> s + ".";
        };
    }

    private Fact reduce(ComputeOp.Reduce r, List<Fact> ins) {
        Fact f = ins.isEmpty() ? null : ins.getFirst();
        return switch (f) {
            case Fact.Partial p when r.fn() == ReduceFn.SUM && p.pool() == ReducePool.SUM ->
                    new Fact.Partial(p.logical(), p.slices(), p.pool(), views.of("reduce sum axis " + r.axis(), p.view()),
                            step("reduce sum keeps the " + p.describe(), p.origin()));
            case Fact.Partial p -> {
                report(Code.PARTIAL_NONLINEAR, "/kind/op/fn", stage.ins().getFirst(),
                        "Reduce " + r.fn().jsonName() + " meets the " + p.describe() + " in buffer '" + stage.ins().getFirst() + "' before it is reduced across chips.",
                        p, "reduce " + r.fn().jsonName() + " meets the " + p.describe());
                yield Fact.TAINTED;
            }
            case Fact.Shard s when s.axis() == r.axis() && r.fn() != ReduceFn.ARGMAX -> {
                ReducePool pool = switch (r.fn()) {
                    case SUM -> ReducePool.SUM;
                    case MAX -> ReducePool.MAX;
                    case MIN -> ReducePool.MIN;
                    case ARGMAX -> ReducePool.SUM; // excluded by the guard
                };
                View view = views.of("reduce " + r.fn().jsonName() + " axis " + r.axis() + " of a shard");
                Fact.Partial made = new Fact.Partial(s.logical(), s.slices(), pool, view, null);
                yield new Fact.Partial(s.logical(), s.slices(), pool, view,
                        step("reduce " + r.fn().jsonName() + " over the shard axis of " + s.tensor() + " makes a " + made.describe(), s.origin()));
            }
            case Fact.Shard s when s.axis() == r.axis() -> {
                // the index of the maximum within this chip's slice, not within the logical tensor
                findings.atStage(Code.SHARD_LOCAL_ARGMAX, stageIndex, stage, "/kind/op/fn", stage.ins().getFirst(),
                        "Reduce argmax runs over the shard axis of buffer '" + stage.ins().getFirst() + "' (" + s.slices() + " of " + s.logical()
                                + "), so it gives the index of the maximum within this chip's slice, not within " + s.logical() + ".",
                        List.of());
                yield Fact.TAINTED;
            }
            case Fact.Shard s -> s;
            case null -> Fact.FULL;
            case Fact.Full full -> Fact.FULL;
            case Fact.Tainted t -> Fact.TAINTED;
        };
    }

    private Fact reshape(List<Fact> ins) {
        Fact f = ins.isEmpty() ? null : ins.getFirst();
        if (f instanceof Fact.Partial p) {
            return keep(p, "reshape", views.of("reshape to " + outShape(), p.view()));
        }
        if (f instanceof Fact.Shard s) {
            BufferDecl in = index.buffer(stage.ins().getFirst());
            BufferDecl out = stage.outs().isEmpty() ? null : index.buffer(stage.outs().getFirst());
            return in != null && out != null && in.shape().equals(out.shape()) ? s : Fact.FULL;
        }
        return f == null ? Fact.FULL : f;
    }

    private Fact transpose(ComputeOp.Transpose t, List<Fact> ins) {
        Fact f = ins.isEmpty() ? null : ins.getFirst();
        if (f instanceof Fact.Partial p) {
            return keep(p, "transpose", views.of("transpose " + t.perm(), p.view()));
        }
        if (f instanceof Fact.Shard s) {
            int newAxis = t.perm().indexOf(s.axis());
            return newAxis < 0 ? Fact.FULL : new Fact.Shard(s.logical(), newAxis, s.slices(), s.tensor(), s.origin());
        }
        return f == null ? Fact.FULL : f;
    }

    private Fact slice(ComputeOp.Slice sl, List<Fact> ins) {
        Fact f = ins.isEmpty() ? null : ins.getFirst();
        if (f instanceof Fact.Partial p) {
            return keep(p, "slice", views.of("slice at " + sl.starts() + " to " + outShape(), p.view()));
        }
        if (f instanceof Fact.Shard s) {
            BufferDecl out = stage.outs().isEmpty() ? null : index.buffer(stage.outs().getFirst());
            if (out == null || s.axis() >= sl.starts().size() || s.axis() >= out.shape().rank()) {
                return s;
            }
            long from = sl.starts().get(s.axis());
            return new Fact.Shard(s.logical(), s.axis(), s.slices().sub(from, from + out.shape().dim(s.axis())), s.tensor(), s.origin());
        }
        return f == null ? Fact.FULL : f;
    }

    private Fact concat(ComputeOp.Concat c, List<Fact> ins) {
        Fact.Partial first = null;
        for (Fact f : ins) {
            if (f instanceof Fact.Partial p) {
                first = p;
                break;
            }
        }
        if (first != null) {
            for (int i = 0; i < ins.size(); i++) {
                Fact f = ins.get(i);
                String b = stage.ins().get(i);
                if (f instanceof Fact.Partial p && !p.samePartition(first)) {
                    report(Code.PARTIAL_PARTITION_MISMATCH, "/ins/" + i, b,
                            "Concat joins the " + first.describe() + " with the " + p.describe() + " in buffer '" + b + "'; the result is no partial of either.",
                            first, "concat joins the " + first.describe() + " with the " + p.describe());
                    return Fact.TAINTED;
                }
                if (!(f instanceof Fact.Partial)) {
                    report(Code.PARTIAL_PLUS_FULL, "/ins/" + i, b,
                            "Concat joins the " + first.describe() + " with full buffer '" + b + "' before the reduce, so that part is counted once per shard.",
                            first, "concat joins the " + first.describe() + " with full buffer " + b);
                    return Fact.TAINTED;
                }
            }
            List<View> parts = new ArrayList<>();
            for (Fact f : ins) {
                parts.add(((Fact.Partial) f).view());
            }
            return keep(first, "concat", views.of("concat axis " + c.axis(), parts.toArray(View[]::new)));
        }
        Fact.Shard shard = null;
        for (Fact f : ins) {
            if (!(f instanceof Fact.Shard s) || s.axis() == c.axis()
                    || (shard != null && !(shard.axis() == s.axis() && shard.slices().equals(s.slices())))) {
                return Fact.FULL;
            }
            shard = s;
        }
        return shard == null ? Fact.FULL : shard;
    }

    private String outShape() {
        BufferDecl out = stage.outs().isEmpty() ? null : index.buffer(stage.outs().getFirst());
        return out == null ? "?" : out.shape().toString();
    }

    private Fact.Partial keep(Fact.Partial p, String op, View view) {
        return new Fact.Partial(p.logical(), p.slices(), p.pool(), view, step(op + " keeps the " + p.describe(), p.origin()));
    }

    // ------------------------------------------------------------------ for MatMulCheck

    Fact factOf(String buffer) {
        return fact(buffer);
    }

    void write(String buffer, Fact f) {
        if (buffer != null) {
            facts.put(buffer, f);
        }
    }

    Stage stage() {
        return stage;
    }

    View.Table views() {
        return views;
    }

    Origin stepHere(String what, Origin previous) {
        return step(what, previous);
    }

    void reportHere(Code code, String field, String buffer, String message, Fact.Partial partial, String finalStep) {
        report(code, field, buffer, message, partial, finalStep);
    }
}
