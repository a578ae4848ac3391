package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.ValueType;
import org.stagecheck.verifier.Code;

/**
 * The transfer rules of {@code Generic} and {@code Scalar} stages (docs/verifier.md, "Transfer
 * rules"). Over 300 lines because the rules of the expression algebra's functions on partials
 * are one table that reads best in one place. An expression is evaluated over the abstract values {@link Ex} (a term: the same
 * function of the logical tensors on every chip) and {@link Lin} (a partial: a sum of families'
 * held slices). Partials pass only through operations linear in them, which commute with the
 * all-reduce: {@code sum_c f(p_c) = f(sum_c p_c)}; everything else is a finding.
 */
final class ExprRules {
    private final ShardState st;
    private final Align align;

    /** An abstract value of a subexpression. */
    sealed interface AV {}

    /** A term; {@code zero} when it is the constant 0 (adding it changes nothing). */
    record Ex(Term term, boolean zero) implements AV {}

    /**
     * A partial: {@code pool} over the families' held slices. {@code rescale} (nullable) says, for a
     * max or min partial of one family, how the value depends on the chip's local extreme
     * ({@link MonotonePartials.Rescale}).
     */
    record Lin(ReducePool pool, SortedMap<Integer, Family> families, Origin origin, MonotonePartials.Rescale rescale) implements AV {
        Lin(ReducePool pool, SortedMap<Integer, Family> families, Origin origin) {
            this(pool, families, origin, null);
        }
    }

    private final MonotonePartials monotone;
    private final VocabArgmax vocab;

    ExprRules(ShardState st) {
        this.st = st;
        this.align = new Align(st.terms, st.ops);
        this.monotone = new MonotonePartials(st, this);
        this.vocab = new VocabArgmax(st);
    }

    /** The rules of max and min partials through monotone functions (docs/verifier.md, "Monotone functions and rescaled maxima"). */
    MonotonePartials monotone() {
        return monotone;
    }

    /** The local arg-maxes and their combines (docs/verifier.md, "Vocabulary-parallel arg-max"). */
    VocabArgmax vocab() {
        return vocab;
    }

    // ------------------------------------------------------------------ Generic

    Val generic(ComputeOp.Generic g, List<Val> ins) {
        Val out = combine(g.expr(), ins, st.stage.ins(), "/kind/op/expr");
        if (!(out instanceof Val.Tainted)) {
            dischargeGuards(g.expr(), ins);
        }
        if (out instanceof Val.Exact e && e.hidden() == null) {
            rowForms(g.expr(), ins, e);
        }
        return out;
    }

    /**
     * An integer vector computed row by row from integer columns ({@code local = select(s <= id < s + n,
     * id - s, 0)} over a column of token ids): its elements' affine form in the element at the same
     * row of the inputs, plain or guarded, recorded for an indirect load at it
     * (docs/verifier.md, "Vocabulary-parallel embeddings").
     */
    private void rowForms(Expr expr, List<Val> ins, Val.Exact out) {
        org.stagecheck.spec.ir.BufferDecl decl = st.index.buffer(st.stage.outs().getFirst());
        if (decl == null || !decl.dtype().isInteger() || !ShardState.isColumn(out.region(), out.region().rank() == 0 ? 0 : out.region().extent(0))) {
            return;
        }
        java.util.function.IntFunction<String> element = p -> st.elementSource(ins, p);
        Affine position = Affine.of(expr, ins, java.util.Map.of(), st.fixedParams, 0, element);
        if (position != null) {
            st.rowAffine.put(ShardState.rowsKey(out), position);
            return;
        }
        GuardedAffine g = GuardedAffine.of(expr, x -> Affine.of(x, ins, java.util.Map.of(), st.fixedParams, 0, element), st::sourceRange);
        if (g != null) {
            st.rowGuarded.put(ShardState.rowsKey(out), g);
        }
    }

    /**
     * {@code mul(in_i, in_j)} where buffer {@code i} holds its value only under a guard and
     * {@code j} holds a mask by the guard's index that is 0 wherever the guard fails (every family
     * a sum over that index, its values within the guard's range): the product is exact everywhere
     * (docs/verifier.md, "Sums over an index").
     */
    private void dischargeGuards(Expr expr, List<Val> ins) {
        if (expr instanceof Expr.Apply s && s.fn() == Fn.SELECT && s.args().size() == 3 && s.args().get(1) instanceof Expr.In kept
                && isZero(s.args().get(2)) && kept.index() < st.stage.ins().size()) {
            // select(range test on e, in_i, 0): 0 wherever the test fails, in_i where it holds
            Guard test = Guard.of(s.args().getFirst(), x -> Affine.of(x, ins, st.affine, st.fixedParams, 0, p -> st.elementSource(ins, p)));
            for (Guard g : st.guards.of(st.stage.ins().get(kept.index()))) {
                if (test != null && test.exactOver(st::sourceRange) && g.var().equals(test.var()) && g.admits(Slices.of(test.lo(), test.hi()))) {
                    st.guards.discharged(g);
                }
            }
            return;
        }
        if (!(expr instanceof Expr.Apply a) || a.fn() != Fn.MUL || a.args().size() != 2
                || !(a.args().get(0) instanceof Expr.In x) || !(a.args().get(1) instanceof Expr.In y)) {
            return;
        }
        for (int[] pair : new int[][] {{x.index(), y.index()}, {y.index(), x.index()}}) {
            if (pair[0] >= ins.size() || pair[1] >= ins.size() || !(ins.get(pair[1]) instanceof Val.Partial mask)) {
                continue;
            }
            for (Guard g : st.guards.of(st.stage.ins().get(pair[0]))) {
                boolean zeroOutside = !mask.families().isEmpty();
                for (Family f : mask.families().values()) {
                    zeroOutside &= g.var().equals(f.by()) && g.admits(f.slices());
                }
                if (zeroOutside) {
                    st.guards.discharged(g);
                }
            }
        }
    }

    /**
     * {@code expr} over {@code ins}, written in the shape of the stage's first output. When the
     * expression uses a partial in a way that does not commute with the reduce, every partial input
     * is taken as a plain value (demoted, docs/verifier.md "Demotion") and the expression is
     * evaluated again over those.
     */
    Val combine(Expr expr, List<Val> ins, List<String> names, String field) {
        long[] out = st.outDims();
        if (out == null) {
            return Val.TAINTED;
        }
        for (Val v : ins) {
            if (v instanceof Val.Tainted) {
                return Val.TAINTED;
            }
        }
        try {
            return evaluate(expr, harmonized(ins), names, out);
        } catch (Refuted x) {
            String buffer = firstPartialPort(ins, names);
            List<Val> plain = new ArrayList<>();
            for (Val v : ins) {
                plain.add(v instanceof Val.Partial p ? st.demote(p, x.code, field, buffer, x.what) : v);
            }
            return evaluate(expr, harmonized(plain), names, out);
        }
    }

    /** The inputs with hidden positions kept only when every input that has one has the same, and no partial is among them. */
    private List<Val> harmonized(List<Val> ins) {
        Val.Hidden common = null;
        boolean conflict = false;
        boolean partial = false;
        for (Val v : ins) {
            partial |= v instanceof Val.Partial;
            if (v instanceof Val.Exact e && e.hidden() != null) {
                conflict |= common != null && !common.equals(e.hidden());
                common = e.hidden();
            }
        }
        if (common == null || (!conflict && !partial)) {
            return ins;
        }
        if (partial && !conflict) {
            // a partial meeting one window's value: the partial is taken as a plain value too
            throw new Refuted(Code.PARTIAL_NONLINEAR, "the elementwise op combines the partial with a value computed from one window of a contraction", null);
        }
        List<Val> out = new ArrayList<>();
        for (Val v : ins) {
            out.add(st.bake(v));
        }
        return out;
    }

    /** The inputs of the expression being evaluated (an index mask names the element its test reads). */
    private List<Val> evalIns = List.of();

    /**
     * The type of every node of the expression being evaluated when a partial is among its inputs
     * (null otherwise): which arithmetic on a partial is linear or monotone depends on it.
     */
    private java.util.Map<Expr, ValueType> evalTypes;

    private Val evaluate(Expr expr, List<Val> ins, List<String> names, long[] out) {
        evalIns = ins;
        boolean anyPartial = false;
        for (Val v : ins) {
            anyPartial |= v instanceof Val.Partial;
        }
        evalTypes = anyPartial ? IntegerPartials.types(st.index, expr, names, out.length) : null;
        List<Region> regions = new ArrayList<>(ins.size());
        Val.Hidden hidden = null;
        for (Val v : ins) {
            regions.add(regionOf(v));
            if (v instanceof Val.Exact e && e.hidden() != null) {
                hidden = e.hidden();
            }
        }
        Sym[] frame = Align.frame(regions, out);
        long oneWide = oneWide(ins, out);
        List<AV> args = new ArrayList<>(ins.size());
        for (int p = 0; p < ins.size(); p++) {
            Val v = ins.get(p);
            args.add(switch (v) {
                case Val.Exact e -> new Ex(align.term(e.term(), e.region(), frame, out, oneWide), false);
                case Val.Partial pa -> new Lin(pa.pool(), align.families(pa.families(), pa.region(), frame, out, oneWide), pa.origin(),
                        MonotonePartials.Rescale.of(pa, frame, out.length, st.stage.ins().size() > p ? st.stage.ins().get(p) : null));
                case Val.Tainted t -> throw new IllegalStateException("tainted inputs are filtered out");
                case null -> new Ex(st.terms.unbounded("unwritten-read:" + st.here() + ":" + p, "unwritten", out.length), false);
            });
        }
        AV r = eval(expr, args, frame, out.length);
        Region region = new Region(frame, out);
        return switch (r) {
            case Ex e -> new Val.Exact(e.term(), region, hidden);
            case Lin l -> new Val.Partial(l.pool(), l.families(), region, st.step(() -> "elementwise op keeps the partial", l.origin()));
        };
    }

    /** The axes one element wide in the output and in every input's term ({@link Align#oneWide}): each family of a partial counts as an input. */
    private long oneWide(List<Val> ins, long[] out) {
        long mask = Align.oneWideAxes(out);
        for (int i = 0; i < ins.size() && mask != 0; i++) {
            switch (ins.get(i)) {
                case Val.Exact e -> mask = align.oneWide(mask, e.term(), e.region(), out);
                case Val.Partial pa -> {
                    for (Family f : pa.families().values()) {
                        mask = align.oneWide(mask, f.term(), pa.region(), out);
                    }
                }
                case Val.Tainted t -> { }
                case null -> { }
            }
        }
        return mask;
    }

    /**
     * {@code index(axis)} in a frame whose origin on the axis is the constant {@code origin}: the
     * position in the values' coordinates (the logical index, the same term on every chip) less
     * the origin, so a chip that adds its window's start back gets the logical index
     * (docs/verifier.md, "Vocabulary-parallel arg-max").
     */
    private Term position(int axis, long origin, int rank) {
        Term logical = st.terms.unbounded("pos:" + axis, "position(" + axis + ")", rank);
        return origin == 0 ? logical : op("add", List.of(logical, st.terms.unbounded("ci:" + (-origin), Long.toString(-origin), rank)));
    }

    private static String firstPartialPort(List<Val> ins, List<String> names) {
        for (int p = 0; p < ins.size() && p < names.size(); p++) {
            if (ins.get(p) instanceof Val.Partial) {
                return names.get(p);
            }
        }
        return names.isEmpty() ? null : names.getFirst();
    }

    static Region regionOf(Val v) {
        return switch (v) {
            case Val.Exact e -> e.region();
            case Val.Partial p -> p.region();
            case Val.Tainted t -> null;
            case null -> null;
        };
    }

    private AV eval(Expr e, List<AV> args, Sym[] frame, int rank) {
        return switch (e) {
            case Expr.In in -> in.index() < args.size() ? args.get(in.index())
                    : new Ex(st.terms.unbounded("missing-port:" + in.index(), "in" + in.index(), rank), false);
            case Expr.FloatConst c -> new Ex(leaf(c, rank), c.value() == 0.0);
            case Expr.IntConst c -> new Ex(leaf(c, rank), c.value() == 0);
            case Expr.ParamRef p -> new Ex(leaf(p, rank), false);
            case Expr.Index ix -> ix.axis() < frame.length && frame[ix.axis()].isConstant()
                    ? new Ex(position(ix.axis(), frame[ix.axis()].constant(), rank), false)
                    : new Ex(st.terms.unbounded("ix:" + ix.axis() + "@" + (ix.axis() < frame.length ? frame[ix.axis()].key() : "?"),
                            "index(" + ix.axis() + ")", rank), false);
            case Expr.Cast c -> cast(c, eval(c.arg(), args, frame, rank));
            case Expr.Apply a -> {
                AV mask = a.fn() == Fn.SELECT ? indexMask(a, args, frame, rank) : null;
                if (mask != null) {
                    yield mask;
                }
                AV argmax = a.fn() == Fn.SELECT ? vocab.candidate(a, x -> eval(x, args, frame, rank)) : null;
                if (argmax != null) {
                    yield argmax;
                }
                List<AV> vs = evalAll(a.args(), args, frame, rank);
                if (evalTypes != null && evalTypes.get(a) == ValueType.INT) {
                    IntegerPartials.check(a.fn(), vs);
                }
                yield apply(a.fn(), vs);
            }
        };
    }

    /** The terms of constants and parameters met so far, by expression (the same term for equal ones, at any rank). */
    private final java.util.Map<Expr, Term> leaves = new java.util.HashMap<>();

    /** The term of a constant or parameter: its key names its value, so it is one term wherever it appears. */
    private Term leaf(Expr e, int rank) {
        Term t = leaves.get(e);
        if (t == null) {
            t = switch (e) {
                case Expr.FloatConst c -> st.terms.unbounded("cf:" + c.value(), Expr.print(c), rank);
                case Expr.IntConst c -> st.terms.unbounded("ci:" + c.value(), Expr.print(c), rank);
                case Expr.ParamRef p -> st.terms.unbounded("p:" + p.name(), p.name(), rank);
                case Expr.In in -> throw new IllegalArgumentException("an input is no leaf");
                case Expr.Index ix -> throw new IllegalArgumentException("an index is no leaf");
                case Expr.Cast c -> throw new IllegalArgumentException("a cast is no leaf");
                case Expr.Apply a -> throw new IllegalArgumentException("an application is no leaf");
            };
            leaves.put(e, t);
        }
        return t;
    }

    /**
     * {@code select(test, v, 0)} (or {@code select(test, 0, v)}) where the test is a range test on
     * an index whose values are known to lie in {@code [0, n)} (an arg-max) and {@code v} is a
     * value: this chip's share of a sum over the index values, {@code v} for the values the test
     * admits and 0 for the others (docs/verifier.md, "Sums over an index"). Chips whose tests
     * together admit every value once complete {@code v} with a sum all-reduce. Null when the
     * select is no such mask.
     */
    private AV indexMask(Expr.Apply a, List<AV> args, Sym[] frame, int rank) {
        if (a.args().size() != 3) {
            return null;
        }
        boolean zeroElse = isZero(a.args().get(2));
        boolean zeroThen = isZero(a.args().get(1));
        if (zeroElse == zeroThen) {
            return null;
        }
        List<Val> ins = evalIns;
        Guard g = Guard.of(a.args().get(0), x -> Affine.of(x, ins, st.affine, st.fixedParams, 0, p -> st.elementSource(ins, p), st::sourceRange));
        long[] values = g == null ? null : st.keyRanges.get(g.var());
        if (values == null && g != null) {
            values = rowDomain(a.args().get(zeroElse ? 1 : 2), g.var());
        }
        if (values == null || values[0] != 0 || !g.exactOn(0, values[1] - 1)) {
            return null; // no known domain, or the test wraps around i32 on it
        }
        if (!(eval(a.args().get(zeroElse ? 1 : 2), args, frame, rank) instanceof Ex v) || v.zero()) {
            return null;
        }
        Slices admitted = g.within(0, values[1]);
        Slices held = zeroElse ? admitted : admitted.gapsIn(values[1]);
        Term t = v.term();
        Term tag = st.terms.of("by(" + t.id() + ";" + g.var() + ")", t::text, t.label(), t.lo(), t.hi(), t);
        Family f = new Family(t, held, 0, values[1], false, null, 0, g.var(), tag, false);
        SortedMap<Integer, Family> m = new TreeMap<>();
        m.put(f.key(), f);
        return new Lin(ReducePool.SUM, m, st.step(() -> "select keeps " + f.describe() + " (a mask by " + g.var() + ")", null));
    }

    /**
     * The index values for which input {@code kept} (a port) is, as a load read it, a row of a
     * logical tensor at index {@code var} (docs/verifier.md, "Vocabulary-parallel embeddings");
     * else null.
     */
    private long[] rowDomain(Expr kept, String var) {
        if (!(kept instanceof Expr.In in) || in.index() >= evalIns.size() || !(evalIns.get(in.index()) instanceof Val.Exact e)) {
            return null;
        }
        long[] domain = st.indexedRows.domainOf(e, var);
        return domain == null || domain[0] >= domain[1] ? null : domain;
    }

    private static boolean isZero(Expr e) {
        return e instanceof Expr.FloatConst c && c.value() == 0.0 || e instanceof Expr.IntConst i && i.value() == 0;
    }

    private AV cast(Expr.Cast c, AV v) {
        return switch (v) {
            case Ex x -> new Ex(op("cast-" + c.dtype().jsonName(), List.of(x.term())), false);
            // an integer sum partial wraps in 32 bits where its float casts do not: the sum of the casts is not the cast of the sum
            case Lin l when c.dtype().isFloating() && l.pool() == ReducePool.SUM && evalTypes != null && evalTypes.get(c.arg()) == ValueType.INT ->
                    throw new Refuted(Code.PARTIAL_NONLINEAR, "a cast to " + c.dtype().jsonName() + " meets the integer partial (its sum wraps in 32 bits, the casts' sum does not)",
                            l.origin());
            // rounding only: the sum of rounded float partials is within rounding of the rounded sum; max/min commute with a monotone rounding
            case Lin l when c.dtype().isFloating() -> l;
            case Lin l -> throw new Refuted(Code.PARTIAL_NONLINEAR, "a cast to " + c.dtype().jsonName() + " meets the partial", l.origin());
        };
    }

    /** The values of {@code xs}, in order (one or two in a list of its own: an expression node has most often that many). */
    private List<AV> evalAll(List<Expr> xs, List<AV> args, Sym[] frame, int rank) {
        if (xs.size() == 1) {
            return List.of(eval(xs.get(0), args, frame, rank));
        }
        if (xs.size() == 2) {
            AV first = eval(xs.get(0), args, frame, rank);
            return List.of(first, eval(xs.get(1), args, frame, rank));
        }
        List<AV> vs = new ArrayList<>(xs.size());
        for (Expr x : xs) {
            vs.add(eval(x, args, frame, rank));
        }
        return vs;
    }

    /** The terms of {@code vs} when every one is exact, else null (one or two in a list of its own). */
    private static List<Term> exactTerms(List<AV> vs) {
        for (AV v : vs) {
            if (!(v instanceof Ex)) {
                return null;
            }
        }
        return switch (vs.size()) {
            case 1 -> List.of(((Ex) vs.get(0)).term());
            case 2 -> List.of(((Ex) vs.get(0)).term(), ((Ex) vs.get(1)).term());
            default -> {
                List<Term> ts = new ArrayList<>(vs.size());
                for (AV v : vs) {
                    ts.add(((Ex) v).term());
                }
                yield ts;
            }
        };
    }

    private AV apply(Fn fn, List<AV> vs) {
        List<Term> ts = exactTerms(vs);
        if (ts != null) {
            Term t = op(fn.spelling(), ts);
            vocab.derived(t, fn, ts);
            // a computed 0 (x - x) is the constant 0, as a written one is
            return new Ex(t, t.leafKey().equals("cf:0.0") || t.leafKey().equals("cf:-0.0") || t.leafKey().equals("ci:0"));
        }
        Lin first = firstLin(vs);
        return switch (fn) {
            case ADD -> add(vs.get(0), vs.get(1));
            case SUB -> add(vs.get(0), negate(vs.get(1)));
            case NEG -> negate(vs.get(0));
            case MUL -> scale(fn, vs.get(0), vs.get(1));
            case DIV -> vs.get(1) instanceof Lin l
                    ? fail(Code.PARTIAL_NONLINEAR, "div divides by the " + describe(l), l)
                    : scale(fn, vs.get(0), vs.get(1));
            case MAX, MIN -> extreme(fn, vs.get(0), vs.get(1));
            case SELECT -> select(vs.get(0), vs.get(1), vs.get(2));
            case EXP, TANH, SIGMOID -> first.pool() == ReducePool.SUM
                    ? fail(Code.PARTIAL_NONLINEAR, fn.spelling() + " meets the " + describe(first), first)
                    : monotone.increasing(fn, first);
            case REM, ABS, LOG, SQRT, RSQRT, RECIP, SIN, COS, EQ, NE, LT, LE, GT, GE, AND, OR, NOT ->
                    fail(Code.PARTIAL_NONLINEAR, fn.spelling() + " meets the " + describe(first), first);
        };
    }

    private static Lin firstLin(List<AV> vs) {
        for (AV v : vs) {
            if (v instanceof Lin l) {
                return l;
            }
        }
        throw new IllegalStateException("no partial among the arguments");
    }

    static AV fail(Code code, String what, Lin l) {
        throw new Refuted(code, what, l.origin());
    }

    static String describe(Lin l) {
        return new Val.Partial(l.pool(), l.families(), Region.at0(new long[0]), null).describe();
    }

    private AV add(AV a, AV b) {
        if (a instanceof Ex x && x.zero()) {
            return b;
        }
        if (b instanceof Ex x && x.zero()) {
            return a;
        }
        Lin la = a instanceof Lin l ? l : null;
        Lin lb = b instanceof Lin l ? l : null;
        Lin any = la != null ? la : lb;
        if (any.pool() != ReducePool.SUM) {
            if (la != null && lb != null) {
                return fail(Code.PARTIAL_NONLINEAR, "add meets the " + describe(la) + " and the " + describe(lb), any);
            }
            return monotone.plus(any, la != null ? (Ex) b : (Ex) a, la != null);
        }
        Lin l1 = la != null ? la : wholeOf((Ex) a, ReducePool.SUM, lb.origin());
        Lin l2 = lb != null ? lb : wholeOf((Ex) b, ReducePool.SUM, la.origin());
        if (l2.pool() != ReducePool.SUM) {
            return fail(Code.PARTIAL_PARTITION_MISMATCH, "add meets the " + describe(l1) + " and the " + describe(l2), l2);
        }
        return new Lin(ReducePool.SUM, merge(l1, l2, true), Origin.owing(l1.origin(), l2.origin()));
    }

    private static Lin wholeOf(Ex x, ReducePool pool, Origin origin) {
        Family f = Family.whole(x.term());
        SortedMap<Integer, Family> m = new TreeMap<>();
        m.put(f.key(), f);
        return new Lin(pool, m, origin);
    }

    /** The summands of both; a slice held twice is counted twice under a sum (a finding), harmless under max/min. */
    private SortedMap<Integer, Family> merge(Lin a, Lin b, boolean disjoint) {
        SortedMap<Integer, Family> m = new TreeMap<>(a.families());
        for (Family f : b.families().values()) {
            if (disjoint && cancelled(m, f)) {
                continue;
            }
            Family had = m.get(f.key());
            if (had == null) {
                m.put(f.key(), f);
            } else if (disjoint && had.slices().equals(f.slices())) {
                // the same slices twice: twice the summand, still linear
                m.remove(f.key());
                Family twice = had.by() == null ? had.withTerm(op("add", List.of(had.term(), f.term())))
                        : new Family(op("add", List.of(had.term(), f.term())), had.slices(), had.lo(), had.hi(), false, null, 0, had.by(),
                                op("add", List.of(had.tag(), f.tag())), false);
                m.put(twice.key(), twice);
            } else if (disjoint && had.slices().overlaps(f.slices())) {
                throw new Refuted(Code.PARTIAL_OVERLAP, "add adds " + f.describe() + " to a partial that already holds " + had.describe(), b.origin());
            } else {
                m.put(f.key(), had.withSlices(had.slices().union(f.slices())));
            }
        }
        return m;
    }

    /**
     * Whether whole family {@code f} (a value added on this chip) meets its negation in {@code m},
     * which is then removed: {@code p + b - b} holds no summand of b (docs/verifier.md, "Canonical sums").
     */
    private boolean cancelled(SortedMap<Integer, Family> m, Family f) {
        if (!f.whole()) {
            return false;
        }
        Term partner = st.terms.negationOf(f.term());
        if (partner == null) {
            partner = st.terms.negationIfBuilt(f.term());
        }
        if (partner == null) {
            return false;
        }
        Family other = m.get(Family.whole(partner).key());
        if (other == null || !other.whole()) {
            return false;
        }
        m.remove(other.key());
        return true;
    }

    private AV negate(AV v) {
        return switch (v) {
            case Ex x -> x.zero() ? x : new Ex(op("neg", List.of(x.term())), false);
            case Lin l when l.pool() == ReducePool.SUM -> new Lin(l.pool(), mapTerms(l, t -> op("neg", List.of(t))), l.origin());
            case Lin l -> monotone.negated(l);
        };
    }

    private AV scale(Fn fn, AV a, AV b) {
        if (a instanceof Lin la && b instanceof Lin lb) {
            return fail(Code.PARTIAL_NONLINEAR, fn.spelling() + " multiplies the " + describe(la) + " by the " + describe(lb), la);
        }
        if (a instanceof Ex x && x.zero() || b instanceof Ex y && y.zero()) {
            Term any = a instanceof Ex x ? x.term() : ((Ex) b).term();
            return new Ex(st.terms.unbounded("cf:0.0", "0.0", any.rank()), true);
        }
        Lin l = a instanceof Lin la ? la : (Lin) b;
        Term other = a instanceof Ex x ? x.term() : ((Ex) b).term();
        if (l.pool() != ReducePool.SUM) {
            return monotone.scaled(fn, l, other, a instanceof Lin);
        }
        if (other.leafKey().equals("cf:1.0") && (fn == Fn.MUL || a instanceof Lin)) {
            return l; // times or over one: the same partial
        }
        boolean partialFirst = a instanceof Lin;
        return new Lin(l.pool(), mapTerms(l, t -> op(fn.spelling(), partialFirst ? List.of(t, other) : List.of(other, t))), l.origin());
    }

    private AV extreme(Fn fn, AV a, AV b) {
        ReducePool pool = fn == Fn.MAX ? ReducePool.MAX : ReducePool.MIN;
        Lin any = a instanceof Lin l ? l : (Lin) b;
        if (any.pool() != pool && any.pool() != ReducePool.SUM && (a instanceof Ex || b instanceof Ex)) {
            // a min of a max-partial (or a max of a min-partial) and a value: a clamp, nondecreasing in the partial
            return monotone.clamped(fn, any, a instanceof Ex x ? x : (Ex) b, a instanceof Lin);
        }
        if (any.pool() != pool) {
            return fail(Code.PARTIAL_NONLINEAR, fn.spelling() + " meets the " + describe(any), any);
        }
        Lin l1 = a instanceof Lin l ? l : wholeOf((Ex) a, pool, any.origin());
        Lin l2 = b instanceof Lin l ? l : wholeOf((Ex) b, pool, any.origin());
        if (l1.pool() != l2.pool()) {
            return fail(Code.PARTIAL_PARTITION_MISMATCH, fn.spelling() + " meets the " + describe(l1) + " and the " + describe(l2), l2);
        }
        return new Lin(pool, merge(l1, l2, false), Origin.owing(l1.origin(), l2.origin()));
    }

    private AV select(AV c, AV a, AV b) {
        if (c instanceof Lin l) {
            return fail(Code.PARTIAL_NONLINEAR, "select takes the " + describe(l) + " as its condition", l);
        }
        Term cond = ((Ex) c).term();
        Term zero = st.terms.unbounded("cf:0.0", "0.0", cond.rank());
        Lin any = a instanceof Lin la ? la : (Lin) b;
        if (any.pool() != ReducePool.SUM) {
            return fail(Code.PARTIAL_NONLINEAR, "select meets the " + describe(any), any);
        }
        // select(c, a, b) = select(c, a, 0) + select(c, 0, b): each side is linear in its partial
        AV left = masked(cond, zero, a, true);
        AV right = masked(cond, zero, b, false);
        return add(left, right);
    }

    private AV masked(Term cond, Term zero, AV v, boolean whereTrue) {
        return switch (v) {
            case Ex x when x.zero() -> x;
            case Ex x -> wholeOf(new Ex(op("select", whereTrue ? List.of(cond, x.term(), zero) : List.of(cond, zero, x.term())), false),
                    ReducePool.SUM, null);
            case Lin l when l.pool() == ReducePool.SUM -> new Lin(l.pool(),
                    mapTerms(l, t -> op("select", whereTrue ? List.of(cond, t, zero) : List.of(cond, zero, t))), l.origin());
            case Lin l -> fail(Code.PARTIAL_PARTITION_MISMATCH, "select meets the " + describe(l), l);
        };
    }

    static SortedMap<Integer, Family> mapTerms(Lin l, java.util.function.UnaryOperator<Term> f) {
        SortedMap<Integer, Family> m = new TreeMap<>();
        for (Family fam : l.families().values()) {
            Family g = fam.map(f);
            m.put(g.key(), g);
        }
        return m;
    }

    /** The term {@code name(args)} in canonical form ({@link Ops#op}). */
    Term op(String name, List<Term> args) {
        return st.ops.op(name, args);
    }

    // ------------------------------------------------------------------ Scalar

    /**
     * A scalar program's result {@code k} is the term {@code expr_k(inputs)}, where each input is the
     * one element its buffer holds: term and position. A partial input is a finding (index
     * arithmetic on an unreduced value).
     */
    List<Val> scalar(org.stagecheck.spec.ir.ScalarBody body, List<Val> ins) {
        StringBuilder inputs = new StringBuilder();
        List<Term> sources = new ArrayList<>();
        for (int p = 0; p < ins.size(); p++) {
            String b = st.stage.ins().get(p);
            switch (ins.get(p)) {
                case Val.Partial partial -> {
                    st.report(Code.PARTIAL_AS_INDEX, "/ins/" + p, b,
                            "Buffer '" + b + "' holds a " + partial.describe() + " and is read by a scalar program (index arithmetic) before it is reduced.",
                            partial.origin(), "reads the " + partial.describe() + " in scalar arithmetic");
                    return taintAll();
                }
                case Val.Tainted t -> {
                    return taintAll();
                }
                case Val.Exact e -> {
                    inputs.append(e.term().id()).append('@').append(e.region().key()).append(e.hiddenKey()).append(';');
                    sources.add(e.term());
                }
                case null -> inputs.append("unwritten#").append(st.here()).append(':').append(p).append(';');
            }
        }
        List<Val> out = new ArrayList<>();
        for (int k = 0; k < st.stage.outs().size(); k++) {
            long[] dims = st.dims(st.stage.outs().get(k));
            if (dims == null) {
                out.add(Val.TAINTED);
                continue;
            }
            Expr e = k < body.results().size() ? body.results().get(k) : new Expr.IntConst(0);
            String text = Expr.print(e);
            Term t = st.terms.of("sc:" + text + "(" + inputs + ")", text, "", dims, sources.toArray(Term[]::new));
            org.stagecheck.spec.ir.BufferDecl decl = st.index.buffer(st.stage.outs().get(k));
            boolean integer = decl != null && decl.dtype().isInteger();
            java.util.function.IntFunction<String> element = p -> st.elementSource(ins, p);
            Affine position = integer ? Affine.of(e, ins, st.affine, st.fixedParams, 0, element, st::sourceRange) : null;
            if (position != null) {
                st.affine.put(t.id(), position);
            } else if (integer) {
                java.util.function.Function<Expr, Affine> affineOf = x -> Affine.of(x, ins, st.affine, st.fixedParams, 0, element, st::sourceRange);
                Piecewise w = Piecewise.of(e, affineOf, st::sourceRange);
                GuardedAffine g = w == null ? GuardedAffine.of(e, affineOf, st::sourceRange) : null;
                if (w != null) {
                    st.affine.put(t.id(), w.affine());
                    if (w.pieces().size() > 1) {
                        st.keyRanges.putIfAbsent(w.name(), w.values()); // the source's values, for bounds and distances
                    }
                } else if (g != null) {
                    st.guarded.put(t.id(), g);
                }
            }
            out.add(new Val.Exact(t, Region.at0(dims)));
        }
        return out;
    }

    private List<Val> taintAll() {
        List<Val> out = new ArrayList<>();
        for (int k = 0; k < st.stage.outs().size(); k++) {
            out.add(Val.TAINTED);
        }
        return out;
    }
}
