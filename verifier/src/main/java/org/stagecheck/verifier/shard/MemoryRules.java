package org.stagecheck.verifier.shard;

import java.util.Iterator;
import java.util.List;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.InternalRef;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.verifier.Code;

/**
 * The transfer rules of {@code Load}, {@code Store} and {@code Recv} (docs/verifier.md,
 * "Tensors"); over 300 lines because reading back a region (whole, inside, tiled) and writing the
 * content key share their region arithmetic. A load reads a region of a tensor in its logical tensor's coordinates: the most
 * recent store that wrote exactly that region (or a box containing it) gives back the value
 * stored, partial or not; a region no store touched is the tensor's initial value (a bound
 * tensor: its logical leaf; a scratch or output: a finding, since nothing was written there); a
 * load the checker cannot resolve gets the tensor's content term, unless a partial was ever
 * stored there.
 */
final class MemoryRules {
    private final ShardState st;

    MemoryRules(ShardState st) {
        this.st = st;
    }

    /** A partial used as an index buffer or offset term is an error whatever the stage does. */
    void checkIndexRefs() {
        for (InternalRef r : st.index.refs(st.stageIndex)) {
            if (r.field().startsWith("pattern/") && st.value(r.buffer()) instanceof Val.Partial p) {
                st.report(Code.PARTIAL_AS_INDEX, "/kind/" + r.field(), r.buffer(),
                        "Buffer '" + r.buffer() + "' holds a " + p.describe() + " and is used as an index or offset before it is reduced.",
                        p.origin(), "uses the " + p.describe() + " in buffer " + r.buffer() + " as an index or offset");
            }
        }
    }

    // ------------------------------------------------------------------ positions

    /**
     * An offset as a position: its constant, and its other terms named by what they read, in one
     * canonical affine form (a parameter fixed by its range is its value; a one-element buffer a
     * {@code Scalar} stage filled with an affine function of parameters is that function).
     */
    Sym position(Offset o) {
        if (o.isConstant()) {
            return Sym.of(o.constant());
        }
        try {
            Affine a = affine(o, null);
            Sym s = a.sym();
            st.positions.remember(s, a);
            return s;
        } catch (ArithmeticException overflow) {
            return new Sym(0, "overflow#" + st.here()); // a position nothing else shares
        }
    }

    /**
     * The offset's affine form. A one-element buffer that a guarded {@code Scalar} result fills
     * ({@link GuardedAffine}) is taken by its form inside the guard, and the stage reads under
     * that guard, when {@code branch} is null; by its form inside ({@code TRUE}) or outside
     * ({@code FALSE}) the guard, recording nothing, otherwise (the bounds check). May throw
     * {@link ArithmeticException} on overflow.
     */
    Affine affine(Offset o, Boolean branch) {
        Affine at = Affine.of(o.constant());
        for (Offset.Term t : o.terms()) {
            Affine source = switch (t) {
                case Offset.Term.OfParam p -> st.fixedParams.containsKey(p.param())
                        ? Affine.of(st.fixedParams.get(p.param())) : Affine.source("p:" + p.param(), 1);
                case Offset.Term.OfBuffer b -> switch (st.value(b.buffer())) {
                    case Val.Exact e -> offsetOf(e, branch);
                    case null -> Affine.source("unwritten#" + st.here() + ":" + b.buffer(), 1);
                    case Val.Partial p -> Affine.source("partial#" + st.here() + ":" + b.buffer(), 1);
                    case Val.Tainted x -> Affine.source("tainted#" + st.here() + ":" + b.buffer(), 1);
                };
            };
            at = at.plus(source.times(t.coefficient()));
        }
        return at;
    }

    /** The guard the value of one-element buffer {@code buffer} holds its offset form under, or null. */
    GuardedAffine guardedOffset(String buffer) {
        return st.value(buffer) instanceof Val.Exact e && e.hidden() == null && !st.affine.containsKey(e.term().id())
                ? st.guarded.get(e.term().id()) : null;
    }

    /**
     * The affine form of a one-element buffer used as an offset: a {@code Scalar} result's own
     * form; where that holds only under a range test ({@link GuardedAffine}), the form inside it
     * (and the stage reads under that guard) or, asked, outside it; else the element it holds, named.
     */
    private Affine offsetOf(Val.Exact e, Boolean branch) {
        if (e.hidden() == null && st.affine.containsKey(e.term().id())) {
            return st.affine.get(e.term().id());
        }
        GuardedAffine g = e.hidden() == null ? st.guarded.get(e.term().id()) : null;
        if (g != null) {
            if (branch == null) {
                st.guards.made(g.guard(), "#" + st.stageIndex + " " + st.stage.id());
            }
            return branch == null || branch ? g.inside() : g.outside();
        }
        return Affine.source(st.elementKey(e), 1);
    }

    private Sym[] origin(List<Offset> offsets, int rank) {
        Sym[] o = new Sym[rank];
        for (int a = 0; a < rank; a++) {
            o[a] = a < offsets.size() ? position(offsets.get(a)) : Sym.ZERO;
        }
        return o;
    }

    /** The box a Block or contiguous Streamed pattern covers in tensor {@code t}'s logical coordinates; null otherwise. */
    private Region box(TensorDecl t, AccessPattern p, int numBlocks) {
        int rank = t.shape().rank();
        if (p instanceof AccessPattern.Indirect && p.block().rank() == rank - 1) {
            GuardedBounds.check(this, st, t, p, java.util.Arrays.stream(p.block().toArray()).asLongStream().toArray()); // the window over the axes after the indexed one
            return null;
        }
        if (p.block().rank() != rank) {
            return null;
        }
        long[] ext = new long[rank];
        for (int a = 0; a < rank; a++) {
            ext[a] = p.block().dim(a);
        }
        Sym[] o = origin(p.originOffsets(), rank);
        switch (p) {
            case AccessPattern.Block b -> { }
            case AccessPattern.Streamed s -> {
                if (s.axis() < 0 || s.axis() >= rank) {
                    return null;
                }
                if (numBlocks > 1 && s.stride() != ext[s.axis()]) {
                    ext[s.axis()] = (numBlocks - 1) * s.stride() + ext[s.axis()];
                    GuardedBounds.check(this, st, t, p, ext); // from the first block's start to the last one's end
                    return null;
                }
                ext[s.axis()] *= numBlocks;
            }
            case AccessPattern.Indirect i -> {
                return null;
            }
        }
        GuardedBounds.check(this, st, t, p, ext);
        return new Region(o, ext).shifted(st.logicalShift(t), ext);
    }

    /** Text naming what a non-box pattern addresses, with buffers by the values they hold. */
    private String patternKey(AccessPattern p, int numBlocks) {
        StringBuilder sb = new StringBuilder(p.getClass().getSimpleName()).append('(');
        for (Offset o : p.originOffsets()) {
            sb.append(position(o).key()).append(',');
        }
        sb.append(p.block()).append(";n").append(numBlocks);
        switch (p) {
            case AccessPattern.Streamed s -> sb.append(";axis").append(s.axis()).append(";stride").append(s.stride());
            case AccessPattern.Indirect i -> sb.append(";index=").append(switch (st.value(i.indexBuffer())) {
                case Val.Exact e -> e.term().id() + e.region().key() + e.hiddenKey();
                case null -> "unwritten#" + st.here();
                case Val.Partial x -> "partial#" + st.here();
                case Val.Tainted x -> "tainted#" + st.here();
            });
            case AccessPattern.Block b -> { }
        }
        return sb.append(')').toString();
    }

    // ------------------------------------------------------------------ Load

    Val load(StageKind.Load l) {
        TensorDecl t = st.index.tensor(l.tensor());
        long[] out = st.outDims();
        if (t == null || out == null) {
            return st.opaque(out, "load");
        }
        TensorMemory mem = st.memory(t);
        IndexedRows.Domain rows = l.pattern() instanceof AccessPattern.Block b ? st.indexedRows.check(this, st, t, b, b.block().toArray()) : null;
        Region r = box(t, l.pattern(), l.numBlocks());
        if (r != null) {
            Val v = read(mem, r);
            if (v instanceof Val.Exact e && e.region().rank() != out.length) {
                // a load into a buffer of another rank (unit axes): the same elements in the buffer's shape
                return reshapeTo(e, out);
            }
            st.indexedRows.record(v, rows);
            return v;
        }
        // strided or indirect: the elements of the tensor's whole content that the pattern picks
        Region all = mem.holding;
        Val whole = st.bake(read(mem, all));
        if (l.pattern() instanceof AccessPattern.Indirect i && whole instanceof Val.Exact content && gather(t, i, content, all, out) instanceof Val.Exact rowsRead) {
            return rowsRead;
        }
        String key = patternKey(l.pattern(), l.numBlocks());
        return switch (whole) {
            case Val.Exact e -> new Val.Exact(st.terms.of("pick(" + e.term().id() + e.region().key() + ";" + key + ")", () -> "pick(" + e.term().text() + ")", e.term().label(), out, e.term()), Region.at0(out));
            case Val.Partial p -> {
                Val.Exact d = st.demote(p, Code.PARTIAL_RELOAD_MIXED, "/kind/pattern", null,
                        "the load picks elements of the stored " + p.describe() + " through a strided or indirect pattern");
                yield new Val.Exact(st.terms.of("pick(" + d.term().id() + d.region().key() + ";" + key + ")", () -> "pick(" + d.term().text() + ")", d.term().label(), out, d.term()), Region.at0(out));
            }
            case Val.Tainted x -> x;
        };
    }

    /**
     * An indirect load of whole rows of a tensor whose content is one value, at an integer column
     * of ids whose every element has an affine form in the element at the same row of an index
     * column (docs/verifier.md, "Vocabulary-parallel embeddings"): row {@code i} of the result is
     * row {@code form(id[i])} of the tensor plus its window's start, a row of the logical tensor,
     * named as such in the coordinates of the content's term (the same term whichever window of
     * the tensor a chip holds), with the guard the form holds
     * under and the index's domain recorded as for a block load at one id. Null otherwise (the
     * elements picked are then named by the index buffer's value).
     */
    private Val gather(TensorDecl t, AccessPattern.Indirect p, Val.Exact whole, Region holding, long[] out) {
        int rank = t.shape().rank();
        if (!(st.value(p.indexBuffer()) instanceof Val.Exact ids) || ids.hidden() != null || out.length != rank || ids.region().rank() != 1
                || ids.region().extent(0) != out[0] || p.block().rank() != rank - 1 || p.originOffsets().size() != rank - 1) {
            return null;
        }
        org.stagecheck.spec.ir.BufferDecl index = st.index.buffer(p.indexBuffer());
        if (index == null || !index.dtype().isInteger() || whole.hidden() != null) {
            return null;
        }
        String field = "/kind/pattern/indexBuffer";
        String rows = ShardState.rowsKey(ids);
        GuardedAffine g = st.rowGuarded.get(rows);
        Affine form = st.rowAffine.containsKey(rows) ? st.rowAffine.get(rows) : g != null ? g.inside() : Affine.source(st.elementKey(ids), 1);
        if (g != null) {
            st.guards.made(g.guard(), "#" + st.stageIndex + " " + st.stage.id());
            if (!GuardedBounds.checkAxis(st, g.guard(), g.inside(), g.outside(), 1, t, 0, field)) {
                return null;
            }
        }
        // logical element x of the tensor is element x - holding + whole's origin of the content's term
        long[] shift = st.logicalShift(t);
        for (int a = 0; a < rank; a++) {
            Long delta = whole.region().origin(a).minus(holding.origin(a));
            if (delta == null) {
                return null;
            }
            shift[a] += delta;
        }
        StringBuilder key = new StringBuilder("gather(").append(whole.term().id()).append(';');
        try {
            key.append(form.plus(Affine.of(shift[0])).sym().key());
            for (int a = 1; a < rank; a++) {
                key.append(';').append(position(p.originOffsets().get(a - 1)).plus(shift[a]).key()).append('+').append(p.block().dim(a - 1));
            }
        } catch (ArithmeticException overflow) {
            return null;
        }
        IndexedRows.Domain domain = st.indexedRows.rows(st, t, 0, ids, form, g, 1, p.indexBuffer(), field);
        if (domain == null && g == null) {
            return null; // rows at ids the rule does not bound: named by the index buffer's value
        }
        Val.Exact v = new Val.Exact(st.terms.of(key.append(')').toString(), () -> "gather(" + whole.term().text() + ")", whole.term().label(), out, whole.term()),
                Region.at0(out));
        st.indexedRows.record(v, domain);
        return v;
    }

    private Val reshapeTo(Val.Exact e, long[] out) {
        Reshapes.Plan plan = Reshapes.plan(e.region(), out);
        if (plan != null && plan.fits(e.term())) {
            return e.with(plan.apply(e.term(), st.terms), plan.region());
        }
        return e.with(st.terms.of("reshape-window(" + e.term().id() + e.region().key() + ";" + java.util.Arrays.toString(out) + ")", () -> e.term().text(), e.term().label(), out, e.term()), Region.at0(out));
    }

    private Val refuse(Val.Partial p, String what) {
        st.report(Code.PARTIAL_RELOAD_MIXED, "/kind/pattern", null,
                "The load " + what + ", so which slices it holds cannot be told.", p.origin(), what);
        return Val.TAINTED;
    }

    /** What region {@code r} of {@code mem} holds. */
    private Val read(TensorMemory mem, Region r) {
        boolean unknown = false;
        java.util.List<TensorMemory.Write> pieces = new java.util.ArrayList<>();
        long covered = 0;
        for (Iterator<TensorMemory.Write> it = mem.newestFirst(); it.hasNext(); ) {
            TensorMemory.Write w = it.next();
            if (w.region() == null) {
                unknown = true;
                break;
            }
            if (pieces.isEmpty() && w.region().equals(r)) {
                return w.value() == null ? st.opaque(st.outDims(), "load of unwritten") : w.value();
            }
            long[] off = pieces.isEmpty() ? w.region().offsetOf(r) : null;
            if (off != null) {
                return window(w.value(), off, r);
            }
            if (w.region().disjointFrom(r, st.positions)) {
                continue;
            }
            if (r.offsetOf(w.region()) == null || !disjointFromAll(w.region(), pieces, st.positions)) {
                unknown = true;
                break;
            }
            // a store of part of the region: the load may be several stores read back together (tiles)
            pieces.add(w);
            covered += volume(w.region());
            if (covered == volume(r)) {
                Val v = assemble(pieces, r);
                if (v != null) {
                    return v;
                }
                unknown = true;
                break;
            }
        }
        if (!pieces.isEmpty() && !unknown) {
            unknown = true; // part of the region was stored, part not
        }
        if (!unknown && !mem.forgotten) {
            if (mem.bound) {
                return new Val.Exact(mem.initial, r);
            }
            if (mem.lastStore >= 0) {
                st.report(Code.LOAD_UNWRITTEN_REGION, "/kind/pattern", null,
                        "The load reads region " + r + " of tensor '" + mem.tensor.name() + "', which no store wrote (the stores to it wrote other regions).",
                        null, null);
                return Val.TAINTED;
            }
            return new Val.Exact(mem.initial, r); // nothing stored at all: the ordering check reports it
        }
        if (mem.partialEver) {
            st.report(Code.PARTIAL_RELOAD_MIXED, "/kind/pattern", null,
                    "The load reads region " + r + " of tensor '" + mem.tensor.name() + "', which overlaps stored partial values without being a region"
                            + " stored as one, so which slices it holds cannot be told.", null, null);
            return Val.TAINTED;
        }
        return new Val.Exact(mem.content, r);
    }

    private static boolean disjointFromAll(Region w, java.util.List<TensorMemory.Write> pieces, Positions positions) {
        for (TensorMemory.Write p : pieces) {
            if (!p.region().disjointFrom(w, positions)) {
                return false;
            }
        }
        return true;
    }

    private static long volume(Region r) {
        long v = 1;
        for (int a = 0; a < r.rank(); a++) {
            v *= r.extent(a);
        }
        return v;
    }

    /**
     * Stores that together cover {@code r} read back as one value when each stored a window of one
     * term (or one partial's summands) placed at the same distance from where it was stored; else null.
     */
    private static Val assemble(java.util.List<TensorMemory.Write> pieces, Region r) {
        for (TensorMemory.Write w : pieces) {
            if (w.value() instanceof Val.Tainted) {
                return Val.TAINTED; // a tile downstream of a finding: so is the whole read (the analysis stays quiet)
            }
        }
        TensorMemory.Write first = pieces.getFirst();
        Region v0 = ExprRules.regionOf(first.value());
        if (v0 == null || v0.rank() != r.rank()) {
            return null;
        }
        long[] shift = new long[r.rank()];
        for (TensorMemory.Write w : pieces) {
            Region vr = ExprRules.regionOf(w.value());
            if (vr == null || vr.rank() != r.rank()) {
                return null;
            }
            boolean same = switch (w.value()) {
                case Val.Exact e -> first.value() instanceof Val.Exact f && f.term().id() == e.term().id() && java.util.Objects.equals(f.hidden(), e.hidden());
                case Val.Partial p -> first.value() instanceof Val.Partial f && f.familyKey().equals(p.familyKey());
                case Val.Tainted t -> false;
            };
            if (!same) {
                return null;
            }
            for (int a = 0; a < r.rank(); a++) {
                Long d = vr.origin(a).minus(w.region().origin(a));
                Long d0 = v0.origin(a).minus(first.region().origin(a));
                if (d == null || !d.equals(d0)) {
                    return null;
                }
                shift[a] = d;
            }
        }
        Sym[] o = new Sym[r.rank()];
        for (int a = 0; a < o.length; a++) {
            // the value's origin for the region's origin: the same distance from where it was stored
            Long d = v0.origin(a).minus(first.region().origin(a));
            o[a] = d == null ? null : new Sym(r.origin(a).constant() + d, r.origin(a).symbolic());
            if (o[a] == null || !v0.origin(a).symbolic().equals(r.origin(a).symbolic())) {
                return null;
            }
        }
        Region at = new Region(o, r.extents());
        return switch (first.value()) {
            case Val.Exact e -> e.with(e.term(), at);
            case Val.Partial p -> new Val.Partial(p.pool(), p.families(), at, p.origin());
            case Val.Tainted t -> t;
        };
    }

    /** The part of stored value {@code v} at {@code off} inside its store's region, as region {@code r}'s extent. */
    private Val window(Val v, long[] off, Region r) {
        Region vr = ExprRules.regionOf(v);
        if (vr == null || vr.rank() != off.length) {
            return v instanceof Val.Partial p ? refuse(p, "reads part of a stored partial in another layout") : v == null ? st.opaque(st.outDims(), "load") : v;
        }
        Region sub = vr.shifted(off, r.extents());
        return switch (v) {
            case Val.Exact e -> e.with(e.term(), sub);
            case Val.Partial p -> new Val.Partial(p.pool(), p.families(), sub, st.step(() -> "load of part of a stored region keeps the " + p.describe(), p.origin()));
            case Val.Tainted t -> t;
        };
    }

    // ------------------------------------------------------------------ Store

    void store(StageKind.Store s) {
        TensorDecl t = st.index.tensor(s.tensor());
        if (t == null) {
            return;
        }
        String buffer = st.stage.ins().isEmpty() ? null : st.stage.ins().getFirst();
        Val v = st.value(buffer);
        ShardDecl d = st.decls.of(t.name());
        TensorMemory mem = st.memory(t);
        Region w = box(t, s.pattern(), 1);
        GuardedStores.check(this, st, t, s.pattern(), buffer);
        if (v instanceof Val.Partial p) {
            boolean persistent = t.role() == TensorRole.OUTPUT || t.role() == TensorRole.STATE || t.role() == TensorRole.INPUT || t.role() == TensorRole.WEIGHT;
            boolean declaredOther = !persistent && d != null && !fitsDeclaration(p, d);
            if (persistent || w == null) {
                // an output (or a region the checker cannot read back) takes this chip's share as a plain value
                v = st.demote(p, Code.PARTIAL_STORE, "/ins/0", buffer, "stores the " + p.describe() + " to "
                        + (persistent ? t.role().jsonName() + " tensor " : "tensor ") + t.name());
            } else if (declaredOther) {
                String declared = "declared to hold a partial of " + d.logical() + " over [" + d.start() + "," + d.end() + ")";
                st.report(Code.PARTIAL_STORE, "/ins/0", buffer,
                        "Buffer '" + buffer + "' holds a " + p.describe() + " and is stored to tensor '" + t.name() + "', which is " + declared + ".",
                        p.origin(), "stores the " + p.describe() + " to tensor " + t.name());
                v = Val.TAINTED;
            }
        } else if (v instanceof Val.Exact && d != null && !t.role().isBoundBeforeRun() && t.role() == TensorRole.SCRATCH) {
            st.findings.atStage(Code.STORE_FULL_AS_PARTIAL, st.stageIndex, st.stage, "/ins/0", buffer,
                    "Buffer '" + buffer + "' holds a full value but is stored to tensor '" + t.name()
                            + "', declared to hold a partial of " + d.logical() + ", so a later reduce counts it once per shard.");
            v = Val.TAINTED;
        }
        if (v instanceof Val.Exact e && w != null && e.region().rank() != w.rank()) {
            v = reshapeTo(e, w.extents());
        }
        mem.remember(new TensorMemory.Write(w, v, st.stageIndex));
        mem.partialEver |= v instanceof Val.Partial;
        mem.lastStore = st.stageIndex;
        String where = w == null ? patternKey(s.pattern(), 1) : starred(w, mem.holding);
        List<Term> sources = new java.util.ArrayList<>(List.of(mem.content));
        sources.addAll(ShardState.termsOf(v));
        Term before = mem.content;
        Term stored = v instanceof Val.Exact e ? e.term() : before;
        mem.content = st.terms.of("ov(" + before.id() + ";" + where + ";" + valueKey(v, w) + ")", stored::text, before.label(), before.lo(), before.hi(),
                sources.toArray(Term[]::new));
    }

    /** A declared-partial scratch takes the partial of its declared logical tensor over its declared slice. */
    private static boolean fitsDeclaration(Val.Partial p, ShardDecl d) {
        if (p.pool() != ReducePool.SUM) {
            return false;
        }
        for (Family f : p.families().values()) {
            if (!f.whole() && f.term().label().equals(d.logical()) && f.slices().equals(Slices.of(d.start(), d.end()))) {
                return true;
            }
        }
        return false;
    }

    /**
     * The region's key relative to the tensor's holding, with every axis that spans the whole
     * holding written {@code *}: chips that write the same parts of what they hold agree.
     */
    private static String starred(Region w, Region holding) {
        StringBuilder sb = new StringBuilder();
        for (int a = 0; a < w.rank(); a++) {
            boolean all = a < holding.rank() && w.origin(a).equals(holding.origin(a)) && w.extent(a) == holding.extent(a);
            Long rel = a < holding.rank() ? w.origin(a).minus(holding.origin(a)) : null;
            sb.append(all ? "*" : (rel != null ? "+" + rel : w.origin(a).key()) + ":+" + w.extent(a)).append(',');
        }
        return sb.toString();
    }

    /** The stored value relative to where it was stored. */
    private String valueKey(Val v, Region w) {
        return switch (v) {
            case Val.Exact e -> e.term().id() + e.hiddenKey() + ">" + shift(e.region(), w);
            case Val.Partial p -> "P" + p.familyKey() + ">" + shift(p.region(), w);
            case Val.Tainted t -> "tainted";
            case null -> "unwritten#" + st.here();
        };
    }

    private static String shift(Region v, Region w) {
        if (w == null || v.rank() != w.rank()) {
            return v.key() + "|" + (w == null ? "?" : w.key());
        }
        StringBuilder sb = new StringBuilder();
        for (int a = 0; a < v.rank(); a++) {
            Long d = v.origin(a).minus(w.origin(a));
            sb.append(d != null ? Long.toString(d) : v.origin(a).key() + "-" + w.origin(a).key()).append(',');
        }
        return sb.toString();
    }
}
