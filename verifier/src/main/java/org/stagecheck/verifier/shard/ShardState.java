package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.cert.ShardDecl;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;
import org.stagecheck.verifier.ProgramIndex;

/**
 * The state of one UnreducedShard analysis (docs/verifier.md, "The abstract domain"): the value
 * of every written buffer, what every tensor holds, the multicast values in flight, the term
 * table, and the stage being checked, with the helpers every rule shares (reporting with a trail,
 * buffer shapes, logical leaves). One instance per program analysed (the split, and its unsplit
 * parent when one is given, sharing one term table). Just over 300 lines: the demotion of a
 * partial to a value (plain, with a hidden position, or complete) is one piece with its helpers.
 */
final class ShardState {
    final ProgramIndex index;
    final ShardDecls decls;
    final Findings findings;
    final Terms terms;
    /** {@link Terms#PARENT} or {@link Terms#CHILD}: which program this analysis follows. */
    final int phase;
    final Ops ops;
    /** The value of every written buffer; absent means unwritten. */
    final Map<String, Val> values = new HashMap<>();
    /** The value each multicast group's latest load sent, for its receivers. */
    final Map<String, Val> inFlight = new HashMap<>();
    /** What each tensor holds, once a stage touched it. */
    final Map<String, TensorMemory> memories = new HashMap<>();
    /** The affine form (over parameters) of the integer values that {@code Scalar} stages computed, by term id. */
    final Map<Integer, Affine> affine = new HashMap<>();
    /** Parameters whose declared range holds one value: that value. */
    final Map<String, Long> fixedParams = new HashMap<>();
    /** Every parameter's declared range, {@code [min, max]}, by its source name in an affine form ({@code p:NAME}). */
    private final Map<String, long[]> paramRanges = new HashMap<>();
    /** The values every element of a term can take, {@code [lo, hi)} (an arg-max over a whole axis of extent n: [0, n)), by term id. */
    final Map<Integer, long[]> ranges = new HashMap<>();
    /** One-element values that hold the element another value holds (a reshape of one element), by their own key. */
    final Map<String, Val.Exact> elementRoots = new HashMap<>();
    /** {@code Scalar} results that are affine only where a range test on their input holds (a {@code select}), by term id. */
    final Map<Integer, GuardedAffine> guarded = new HashMap<>();
    /**
     * Integer vectors an elementwise {@code Generic} computed, each element an affine function of
     * the element at the same row of its inputs (a local id per token), by term id: the forms name
     * the row's element ({@link #elementSource}). Keyed by {@link #rowsKey}, term and window, so a
     * window of such a vector that starts at another row is none; kept apart from {@link #affine}
     * and {@link #guarded}, whose values are one element (an offset).
     */
    final Map<String, Affine> rowAffine = new HashMap<>();
    /** The same, affine only where a range test on the row's element holds. */
    final Map<String, GuardedAffine> rowGuarded = new HashMap<>();

    /** The key of a vector's rows in {@link #rowAffine} and {@link #rowGuarded}: its term and window. */
    static String rowsKey(Val.Exact e) {
        return e.term().id() + e.region().key();
    }
    /** Which buffers and tensors hold values that are right only under a guard (docs/verifier.md, "Sums over an index"). */
    final Guards guards = new Guards();
    /** The index domains of rows read at an unbounded index (docs/verifier.md, "Vocabulary-parallel embeddings"). */
    final IndexedRows indexedRows = new IndexedRows();
    /** The values symbolic positions take in every run (docs/verifier.md, "Regions"). */
    final Positions positions = new Positions(this::sourceRange);
    /** Remarks that are not findings (a combine folded in another order), for the obligation's note. */
    final List<String> notes = new ArrayList<>();
    /** Which values are a chip's own share of a split contraction taken as a value (docs/verifier.md, "Unreduced outputs"). */
    final ChipShares shares = new ChipShares(this);
    int stageIndex;
    Stage stage;

    ShardState(ProgramIndex index, ShardDecls decls, Findings findings, Terms terms, int phase) {
        this.index = index;
        this.decls = decls;
        this.findings = findings;
        this.terms = terms;
        this.phase = phase;
        this.ops = new Ops(terms);
        index.program().params().forEach(p -> {
            if (p.min() == p.max()) {
                fixedParams.put(p.name(), p.min());
            }
            paramRanges.put("p:" + p.name(), new long[] {p.min(), p.max()});
        });
    }

    /** The current stage in keys of terms that stand for "this stage's own value", distinct between the two programs. */
    String here() {
        return phase == Terms.PARENT ? "u" + stageIndex : Integer.toString(stageIndex);
    }

    Val value(String buffer) {
        return buffer == null ? null : values.get(buffer);
    }

    /** The dims of buffer {@code name}, or null when undeclared. */
    long[] dims(String name) {
        BufferDecl d = index.buffer(name);
        if (d == null) {
            return null;
        }
        long[] out = new long[d.shape().rank()];
        for (int a = 0; a < out.length; a++) {
            out[a] = d.shape().dim(a);
        }
        return out;
    }

    long[] outDims() {
        return stage.outs().isEmpty() ? null : dims(stage.outs().getFirst());
    }

    int chipOf(String buffer) {
        BufferDecl d = index.buffer(buffer);
        return d == null ? -1 : d.site().chip();
    }

    Origin step(java.util.function.Supplier<String> what, Origin previous) {
        return new Origin(stageIndex, stage.id(), what, previous);
    }

    /** A finding at the current stage whose trail is {@code origin}'s, then {@code finalStep} here. */
    void report(Code code, String field, String buffer, String message, Origin origin, String finalStep) {
        List<String> trail = new ArrayList<>();
        if (origin != null) {
            trail.addAll(origin.trail());
        }
        if (finalStep != null) {
            trail.add("#" + stageIndex + " " + stage.id() + ": " + finalStep);
        }
        findings.atStage(code, stageIndex, stage, field, buffer, message, trail);
    }

    /** The memory of tensor {@code t}, made on first touch. */
    TensorMemory memory(TensorDecl t) {
        return memories.computeIfAbsent(t.name(), n -> TensorMemory.initial(t, decls.of(n), this));
    }

    /** Where tensor {@code t}'s index 0 lies in its logical tensor, per axis (the declaration's start on its axis). */
    long[] logicalShift(TensorDecl t) {
        long[] s = new long[t.shape().rank()];
        ShardDecl d = decls.of(t.name());
        if (d != null && d.axis() < s.length) {
            s[d.axis()] = d.start();
        }
        return s;
    }

    /** The logical tensor that bound tensor {@code t} is a window of: its declaration's, else itself. */
    Term leaf(TensorDecl t) {
        ShardDecl d = decls.of(t.name());
        long[] dims = new long[t.shape().rank()];
        for (int a = 0; a < dims.length; a++) {
            dims[a] = t.shape().dim(a);
        }
        String logical = t.name();
        if (d != null && d.axis() < dims.length) {
            dims[d.axis()] = d.extent();
            logical = d.logical();
        }
        StringBuilder key = new StringBuilder("leaf:").append(logical).append(':').append(t.dtype());
        for (long x : dims) {
            key.append(',').append(x);
        }
        return terms.of(key.toString(), logical, logical, dims);
    }

    /**
     * A value the checker cannot relate to any logical expression: a term unique to this stage and
     * output, so it equals nothing another chip holds (and an all-reduce of it is never accepted).
     */
    Val opaque(long[] dims, String what) {
        if (dims == null) {
            return Val.TAINTED;
        }
        Term t = terms.of("opaque:" + here() + ":" + what, what + " at #" + stageIndex, "", dims);
        return new Val.Exact(t, Region.at0(dims));
    }

    // ------------------------------------------------------------------ elements of one-element values

    /**
     * The one-element value whose element {@code e} holds: {@code e} itself unless it was made
     * from another one-element value by a layout op (a reshape of {@code [1,1]} to {@code [1]}).
     */
    Val.Exact elementRoot(Val.Exact e) {
        return elementRoots.getOrDefault(rawElementKey(e), e);
    }

    /** The name of the element a one-element value holds, the same for every layout of it (an offset or index source). */
    String elementKey(Val.Exact e) {
        return rawElementKey(elementRoot(e));
    }

    private static String rawElementKey(Val.Exact e) {
        return "v:" + e.term().id() + e.region().key() + e.hiddenKey();
    }

    /**
     * Records that one-element value {@code out} holds the element {@code in} holds; or, for a
     * column of {@code n} elements reshaped to another column of them ({@code [n, 1]} and
     * {@code [n]}), that each row holds the element the same row of {@code in} holds.
     */
    void sameElement(Val.Exact out, Val.Exact in) {
        if (volume(out.region()) == 1 && volume(in.region()) == 1
                || out.region().rank() > 0 && in.region().rank() > 0 && isColumn(out.region(), out.region().extent(0)) && isColumn(in.region(), out.region().extent(0))) {
            elementRoots.put(rawElementKey(out), elementRoot(in));
        }
    }

    /** The values the element one-element value {@code e} holds can take, {@code [lo, hi)}, or null when unknown. */
    long[] rangeOf(Val.Exact e) {
        return ranges.get(elementRoot(e).term().id());
    }

    /** Whether {@code r} has {@code n} rows (axis 0) and extent 1 on every other axis. */
    static boolean isColumn(Region r, long n) {
        if (r.rank() == 0 || r.extent(0) != n) {
            return false;
        }
        for (int a = 1; a < r.rank(); a++) {
            if (r.extent(a) != 1) {
                return false;
            }
        }
        return true;
    }

    static long volume(Region r) {
        long v = 1;
        for (int a = 0; a < r.rank(); a++) {
            v *= r.extent(a);
        }
        return v;
    }

    /**
     * The source name of input {@code p} of the current stage in an affine form: the element a
     * one-element integer buffer holds (so a {@code Scalar} copy of an index, the index itself and
     * a reshape of it are one source), or null. An integer column of as many rows as the stage's
     * output ({@code [n]} for an output {@code [n]}, {@code [n, 1]} for {@code [n, d]}, broadcast
     * along the other axes) is a source too: the element at the row the output element is in (a
     * token id per row; docs/verifier.md, "Vocabulary-parallel embeddings"), so every fact stated
     * with it holds row by row.
     */
    String elementSource(List<Val> ins, int p) {
        if (p >= ins.size() || p >= stage.ins().size() || !(ins.get(p) instanceof Val.Exact e) || e.hidden() != null) {
            return null;
        }
        long[] out = outDims();
        if (volume(e.region()) != 1 && (out == null || out.length == 0 || e.region().rank() != out.length || !isColumn(e.region(), out[0]))) {
            return null;
        }
        BufferDecl d = index.buffer(stage.ins().get(p));
        if (d == null || !d.dtype().isInteger()) {
            return null;
        }
        String key = elementKey(e);
        indexNames.putIfAbsent(key, stage.ins().get(p));
        long[] r = rangeOf(e);
        if (r != null) {
            keyRanges.putIfAbsent(key, r);
        }
        return key;
    }

    /** A buffer each element named as a source was first read from, for messages. */
    final Map<String, String> indexNames = new HashMap<>();

    /**
     * {@code the index first read from buffer 'b' (values [0,8)) lies in [4,8)}: a guard as a
     * sentence fragment (chips that route alike share the index, so the first buffer read names it).
     */
    String describe(Guard g) {
        String name = indexNames.get(g.var());
        long[] r = keyRanges.get(g.var());
        String d = g.describe();
        return (name == null ? "the index " + g.var() : "the index first read from buffer '" + name + "'")
                + (r == null ? "" : " (values [" + r[0] + "," + r[1] + "))") + " lies" + d.substring(d.lastIndexOf(" in ["));
    }

    /** The values each element named as a source can take, when known (filled as sources are named). */
    final Map<String, long[]> keyRanges = new HashMap<>();

    /**
     * The values a source of an affine form can take, {@code [lo, hi]} inclusive: a parameter its
     * declared range (a run outside it is refused), an element of known range its range; null
     * when unknown.
     */
    long[] sourceRange(String source) {
        long[] p = paramRanges.get(source);
        if (p != null) {
            return p;
        }
        long[] r = keyRanges.get(source);
        return r == null || r[1] <= r[0] ? null : new long[] {r[0], r[1] - 1};
    }

    // ------------------------------------------------------------------ demotion

    private final java.util.Set<Demotion> reportedDemotions = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());

    /**
     * The term of a partial ({@code pool} over {@code families}, all in one frame of rank
     * {@code rank}) used as a plain value at this stage: it names the chip's slices, so it equals
     * another chip's only if they hold the same ones. {@code what} says how it was used.
     */
    Term demote(org.stagecheck.spec.ir.ReducePool pool, java.util.SortedMap<Integer, Family> families, int rank, Origin origin,
                Code code, String field, String buffer, String what) {
        StringBuilder key = new StringBuilder("dm(").append(pool.name());
        long[] lo = Terms.unboundedLo(rank);
        long[] hi = Terms.unboundedHi(rank);
        Term[] sources = new Term[families.size()];
        int n = 0;
        String label = "";
        for (Family f : families.values()) {
            key.append(';').append(f.key()).append(f.slices());
            Term t = f.term();
            sources[n++] = t;
            label = label.isEmpty() ? t.label() : label;
            for (int a = 0; a < Math.min(rank, t.rank()); a++) {
                lo[a] = Math.max(lo[a], t.lo()[a]);
                hi[a] = Math.min(hi[a], t.hi()[a]);
            }
        }
        String described = new Val.Partial(pool, families, Region.at0(new long[0]), null).describe();
        List<String> trail = new ArrayList<>();
        if (origin != null) {
            trail.addAll(origin.trail());
        }
        trail.add("#" + stageIndex + " " + stage.id() + ": " + what);
        String s = Character.toUpperCase(what.charAt(0)) + what.substring(1);
        String message = switch (code) {
            case PARTIAL_NONLINEAR -> s + " before the partial is reduced, which does not commute with the reduce.";
            case PARTIAL_STORE -> s + ", so the tensor holds this chip's share only.";
            // of the many codes only these two add to the sentence; the other demoting codes end it plainly
            default -> s + ".";
        };
        Demotion why = new Demotion(code, stageIndex, stage, field, buffer, message, trail);
        return terms.demoted(key.append(')').toString(), "the " + described, label, lo, hi, why, sources);
    }

    /**
     * The partial as a plain value. A partial of one contraction over one window (plus whole
     * summands) becomes that contraction over "a window of this width" held at the window's start
     * as a hidden position, so the heads of an attention are one term; any other partial becomes a
     * term that names its slices.
     */
    Val.Exact demote(Val.Partial p, Code code, String field, String buffer, String what) {
        if (complete(p)) {
            // every summand over its whole domain: the chip holds the full value (a contraction done on one chip)
            List<Term> parts = new ArrayList<>();
            for (Family f : p.families().values()) {
                parts.add(f.term());
            }
            return new Val.Exact(parts.size() == 1 ? parts.getFirst() : ops.op(p.pool().jsonName(), parts), p.region());
        }
        if (p.origin() != null && p.origin().pending() != null && reportedDemotions.add(p.origin().pending())) {
            Demotion d = p.origin().pending();
            findings.atStage(d.code(), d.stageIndex(), d.stage(), d.field(), d.buffer(), d.message(), d.trail());
        }
        Family windowed = null;
        int contractions = 0;
        for (Family f : p.families().values()) {
            if (!f.whole()) {
                // a sum over an index is no window of a contraction: it never takes a hidden position
                contractions += f.by() == null ? 1 : 2;
                windowed = f;
            }
        }
        Term plain = demote(p.pool(), p.families(), p.region().rank(), p.origin(), code, field, buffer, what);
        if (contractions != 1 || windowed.slices().ranges() != 1) {
            shares.demoted(p, plain);
            return new Val.Exact(plain, p.region());
        }
        long start = windowed.slices().start();
        long width = windowed.slices().length();
        Term core = windowed.generic() != null ? windowed.generic() : windowed.term();
        long shift = windowed.generic() != null ? windowed.shift() : 0;
        StringBuilder key = new StringBuilder("dmh(").append(p.pool().name()).append(';').append(core.id()).append("/w").append(width);
        for (Family f : p.families().values()) {
            if (f.whole()) {
                key.append(";whole").append(f.term().id());
            }
        }
        Term t = terms.demoted(key.append(')').toString(), "the " + p.describe(), plain.label(), plain.lo(), plain.hi(), terms.demotion(plain), plain);
        shares.demoted(p, t);
        return new Val.Exact(t, p.region(), new Val.Hidden(Sym.of(start), width, shift));
    }

    /** Whether every family of {@code p} is complete (a whole summand always is): then it is no partial share but the full value. */
    static boolean complete(Val.Partial p) {
        if (p.families().isEmpty()) {
            return false;
        }
        for (Family f : p.families().values()) {
            if (!f.complete()) {
                return false;
            }
        }
        return true;
    }

    /** The value with its hidden position made part of its term (chip-specific when positions differ). */
    Val.Exact bake(Val.Exact e) {
        if (e.hidden() == null) {
            return e;
        }
        if (normalize(e) instanceof Val.Exact diag && diag.hidden() == null) {
            return diag;
        }
        Term t = e.term();
        return new Val.Exact(terms.of("at(" + t.id() + ";" + e.hiddenKey() + ")", () -> t.text(), t.label(), t.lo(), t.hi(), t), e.region());
    }

    Val bake(Val v) {
        return v instanceof Val.Exact e ? bake(e) : v;
    }

    /**
     * A value whose hidden position is the start of a visible window of the hidden width (one head's
     * output, columns [8h, 8h+8) computed from head h's scores) is a window of the "diagonal" term:
     * at column j, the head whose window holds j. Heads side by side are then adjacent windows of it.
     */
    Val normalize(Val v) {
        if (!(v instanceof Val.Exact e) || e.hidden() == null || !e.hidden().at().isConstant()) {
            return v;
        }
        Region r = e.region();
        long w = e.hidden().width();
        for (int a = 0; a < r.rank(); a++) {
            Long d = e.hidden().at().minus(r.origin(a));
            if (d == null || d != 0 || r.extent(a) != w || !r.origin(a).isConstant()) {
                continue;
            }
            long residue = Math.floorMod(r.origin(a).constant(), w);
            Term t = e.term();
            Term diag = terms.of("diag(" + t.id() + ";" + a + ";" + d + ";" + w + ";" + residue + ";" + e.hidden().shift() + ")", () -> t.text(), t.label(), t.lo(), t.hi(), t);
            return new Val.Exact(diag, r);
        }
        return v;
    }

    /**
     * Reports the demotions that {@code involved} were built from (each once per verification);
     * returns whether there was one: then it, not the place where the chips' values met, is the
     * finding.
     */
    boolean reportDemotions(Iterable<Term> involved, Code only) {
        boolean any = false;
        for (Term t : involved) {
            Demotion d = t == null ? null : terms.demotion(t);
            if (d == null || (only != null && d.code() != only)) {
                continue;
            }
            any = true;
            if (reportedDemotions.add(d)) {
                findings.atStage(d.code(), d.stageIndex(), d.stage(), d.field(), d.buffer(), d.message(), d.trail());
            }
        }
        return any;
    }

    /** The terms a value is built from: its term, or its families' terms. */
    static List<Term> termsOf(Val v) {
        List<Term> out = new ArrayList<>();
        switch (v) {
            case Val.Exact e -> out.add(e.term()); // a hidden position does not change where it came from
            case Val.Partial p -> p.families().values().forEach(f -> out.add(f.term()));
            case Val.Tainted t -> { }
            case null -> { }
        }
        return out;
    }
}
