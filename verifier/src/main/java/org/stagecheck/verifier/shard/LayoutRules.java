package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import org.stagecheck.spec.ir.ComputeOp;

/**
 * The transfer rules of the layout ops (docs/verifier.md, "Transfer rules"; over 300 lines:
 * concat alone has four cases). A slice keeps the term and moves the window; a transpose permutes term and window; a reshape that splits or merges
 * axes maps the window when it lines up with the new axes (the common head split), and otherwise
 * names the window it reshaped in the new term, so chips that reshaped different windows hold
 * different terms. A concat of adjacent windows of one term is the wider window; any other concat
 * names its parts and where each went. Partials keep their slices: every layout op is linear.
 */
final class LayoutRules {
    private final ShardState st;

    LayoutRules(ShardState st) {
        this.st = st;
    }

    // ------------------------------------------------------------------ slice

    Val slice(ComputeOp.Slice s, Val in) {
        long[] out = st.outDims();
        Region r = ExprRules.regionOf(in);
        if (in instanceof Val.Tainted || out == null) {
            return Val.TAINTED;
        }
        if (r == null || s.starts().size() != r.rank() || out.length != r.rank()) {
            return fallbackUnary(in, out, "slice");
        }
        long[] by = new long[r.rank()];
        for (int a = 0; a < by.length; a++) {
            by[a] = s.starts().get(a);
        }
        Region moved = r.shifted(by, out);
        return switch (in) {
            case Val.Exact e -> e.with(e.term(), moved);
            case Val.Partial p -> new Val.Partial(p.pool(), p.families(), moved, st.step(() -> "slice keeps the " + p.describe(), p.origin()));
            case Val.Tainted t -> t;
        };
    }

    // ------------------------------------------------------------------ transpose

    Val transpose(ComputeOp.Transpose t, Val in) {
        long[] out = st.outDims();
        Region r = ExprRules.regionOf(in);
        if (in instanceof Val.Tainted || out == null) {
            return Val.TAINTED;
        }
        List<Integer> perm = t.perm();
        if (r == null || perm.size() != r.rank()) {
            return fallbackUnary(in, out, "transpose");
        }
        Sym[] o = new Sym[perm.size()];
        long[] e = new long[perm.size()];
        boolean identity = true;
        for (int i = 0; i < o.length; i++) {
            o[i] = r.origin(perm.get(i));
            e[i] = r.extent(perm.get(i));
            identity &= perm.get(i) == i;
        }
        Region moved = new Region(o, e);
        if (identity) {
            return in;
        }
        return switch (in) {
            case Val.Exact x -> x.with(permuted(x.term(), perm), moved);
            case Val.Partial p -> new Val.Partial(p.pool(), mapFamilies(p, f -> permuted(f, perm)), moved,
                    st.step(() -> "transpose keeps the " + p.describe(), p.origin()));
            case Val.Tainted x -> x;
        };
    }

    private Term permuted(Term t, List<Integer> perm) {
        if (t.rank() != perm.size()) {
            return st.terms.of("tr-opaque(" + t.id() + ";" + perm + ")", () -> t.text(), t.label(), Terms.unboundedLo(perm.size()), Terms.unboundedHi(perm.size()), t);
        }
        return st.terms.transposes().permuted(t, perm);
    }

    // ------------------------------------------------------------------ reshape

    Val reshape(Val in) {
        long[] out = st.outDims();
        Region r = ExprRules.regionOf(in);
        if (in instanceof Val.Tainted || out == null) {
            return Val.TAINTED;
        }
        if (r == null) {
            return fallbackUnary(in, out, "reshape");
        }
        Reshapes.Plan plan = Reshapes.plan(r, out);
        return switch (in) {
            case Val.Exact e -> {
                Val.Exact moved = plan != null && plan.fits(e.term())
                        ? e.with(plan.apply(e.term(), st.terms), plan.region())
                        : e.with(windowed("reshape", e.term(), r, out), Region.at0(out));
                st.sameElement(moved, e); // one element reshaped is the same element (an index read by a Scalar stage)
                yield moved;
            }
            case Val.Partial p -> {
                boolean fits = plan != null;
                for (Family f : p.families().values()) {
                    fits &= plan != null && plan.fits(f.term());
                }
                if (fits) {
                    yield new Val.Partial(p.pool(), mapFamilies(p, f -> plan.apply(f, st.terms)), plan.region(),
                            st.step(() -> "reshape keeps the " + p.describe(), p.origin()));
                }
                yield new Val.Partial(p.pool(), mapFamilies(p, f -> windowed("reshape", f, r, out)), Region.at0(out),
                        st.step(() -> "reshape keeps the " + p.describe(), p.origin()));
            }
            case Val.Tainted t -> t;
        };
    }

    /** The op applied to exactly window {@code r} of {@code t}: the window is part of the term. */
    private Term windowed(String op, Term t, Region r, long[] out) {
        return st.terms.of(op + "-window(" + t.id() + r.key() + ";" + java.util.Arrays.toString(out) + ")", () -> op + "(" + t.text() + ")", t.label(), out, t);
    }

    private Val fallbackUnary(Val in, long[] out, String op) {
        return switch (in) {
            case null -> st.opaque(out, op);
            case Val.Tainted t -> t;
            case Val.Exact e -> st.opaque(out, op);
            case Val.Partial p -> {
                Val.Exact d = st.demote(p, org.stagecheck.verifier.Code.PARTIAL_NONLINEAR, "/kind/op", st.stage.ins().getFirst(),
                        op + " takes the " + p.describe() + " in a layout the checker cannot follow");
                yield new Val.Exact(st.terms.of(op + "-opaque(" + d.term().id() + d.region().key() + ")", () -> op + "(" + d.term().text() + ")",
                        d.term().label(), out, d.term()), Region.at0(out));
            }
        };
    }

    // ------------------------------------------------------------------ concat

    Val concat(ComputeOp.Concat c, List<Val> ins) {
        long[] out = st.outDims();
        if (out == null) {
            return Val.TAINTED;
        }
        boolean anyPartial = false;
        for (Val v : ins) {
            if (v instanceof Val.Tainted) {
                return Val.TAINTED;
            }
            anyPartial |= v instanceof Val.Partial;
            Region r = ExprRules.regionOf(v);
            if (r == null || r.rank() != out.length || c.axis() >= out.length) {
                if (anyPartial || v instanceof Val.Partial) {
                    return fallbackUnary(firstPartial(ins), out, "concat");
                }
                return st.opaque(out, "concat");
            }
        }
        Val heads = Heads.concat(st, c.axis(), ins, out);
        if (heads != null) {
            return heads;
        }
        List<Val> normal = new ArrayList<>();
        for (Val v : ins) {
            normal.add(st.normalize(v));
        }
        ins = normal;
        Val merged = adjacent(c.axis(), ins);
        if (merged != null) {
            return merged;
        }
        List<Val> baked = new ArrayList<>();
        for (Val v : ins) {
            baked.add(st.bake(v));
        }
        ins = baked;
        if (!anyPartial) {
            Val gathered = Gathers.padded(st, c.axis(), ins, out);
            if (gathered != null) {
                return gathered;
            }
            Val placed = placedSideBySide(c.axis(), ins, out);
            if (placed != null) {
                return placed;
            }
            Val summed = placedSummands(c.axis(), ins, out);
            if (summed != null) {
                return summed;
            }
            StringBuilder key = new StringBuilder("cat(" + c.axis());
            StringBuilder text = new StringBuilder("concat(");
            String label = "";
            List<Term> parts = new ArrayList<>();
            for (Val v : ins) {
                Val.Exact e = (Val.Exact) v;
                key.append(';').append(e.term().id()).append(e.region().key());
                text.append(text.length() > 7 ? ", " : "").append(e.term().text());
                label = label.isEmpty() ? e.term().label() : label;
                parts.add(e.term());
            }
            return new Val.Exact(st.terms.of(key.append(')').toString(), text.append(')').toString(), label, out, parts.toArray(Term[]::new)), Region.at0(out));
        }
        // each part's summands, placed where the part went: sum_c concat(p_c, q_c) = concat(sum p_c, sum q_c)
        ReducePoolCheck pools = new ReducePoolCheck();
        SortedMap<Integer, Family> fams = new TreeMap<>();
        long at = 0;
        Origin origin = null;
        for (Val v : ins) {
            Region r = ExprRules.regionOf(v);
            List<Family> parts = new ArrayList<>();
            if (v instanceof Val.Partial p) {
                if (!pools.accept(p)) {
                    return fallbackUnary(p, out, "concat of partials of different pools");
                }
                parts.addAll(p.families().values());
                origin = origin == null ? p.origin() : origin;
            } else {
                parts.add(Family.whole(((Val.Exact) v).term()));
            }
            for (Family f : parts) {
                long placedAt = at;
                java.util.function.UnaryOperator<Term> place = t -> placedAt(t, r, c.axis(), placedAt, out);
                // a sum over an index keeps its index: its tag is placed with it
                Family g = f.by() == null ? f.withTerm(place.apply(f.term())) : f.map(place);
                fams.put(g.key(), g);
            }
            at += r.extent(c.axis());
        }
        return new Val.Partial(pools.pool, fams, Region.at0(out), st.step(() -> "concat keeps the partial", origin));
    }

    /**
     * Different terms side by side (the two rotated halves of a rotary embedding): a term that
     * places each part at its offset from the first part's window. Only the first part's position
     * on the concat axis enters the key (the parts' boundaries are there); on the other axes the
     * parts are named by their distance from the first, so chips holding other heads agree.
     */
    private Val placedSideBySide(int axis, List<Val> ins, long[] out) {
        Region r0 = ExprRules.regionOf(ins.getFirst());
        StringBuilder key = new StringBuilder("catl(" + axis + "@" + r0.origin(axis).key());
        StringBuilder text = new StringBuilder("concat(");
        long[] lo = Terms.unboundedLo(out.length);
        long[] hi = Terms.unboundedHi(out.length);
        List<Term> parts = new ArrayList<>();
        long at = 0;
        for (Val v : ins) {
            Val.Exact e = (Val.Exact) v;
            Region r = e.region();
            Term t = e.term();
            if (t.rank() != r.rank()) {
                return null;
            }
            key.append(';').append(t.id()).append(":at").append(at).append(":from").append(r.origin(axis).key());
            for (int a = 0; a < r.rank(); a++) {
                if (a == axis) {
                    continue;
                }
                Long d = r.origin(a).minus(r0.origin(a));
                if (d == null) {
                    return null;
                }
                key.append(",s").append(d);
                lo[a] = Math.max(lo[a], Terms.shiftBound(t.lo()[a], d));
                hi[a] = Math.min(hi[a], Terms.shiftBound(t.hi()[a], d));
            }
            text.append(text.length() > 7 ? ", " : "").append(t.text());
            parts.add(t);
            at += r.extent(axis);
        }
        if (r0.origin(axis).isConstant()) {
            lo[axis] = r0.origin(axis).constant();
            hi[axis] = r0.origin(axis).constant() + at;
        }
        Term placed = st.terms.of(key.append(')').toString(), text.append(')').toString(), parts.getFirst().label(), lo, hi,
                parts.toArray(Term[]::new));
        return new Val.Exact(placed, new Region(r0.origins(), out));
    }

    /**
     * Parts at windows the other axes cannot relate (rows whose routed experts sit at
     * data-dependent columns), one of them a sum: the sum over every part's summands, each placed
     * where its part went, in the form a concat of partials takes (each family placed alone), so
     * a concat of sums and a concat of partials completed afterwards are one term (placing is
     * linear: concat(a + b, c) = place(a) + place(b) + place(c)). Null when no part is a sum.
     */
    private Val placedSummands(int axis, List<Val> ins, long[] out) {
        List<Term> placed = new ArrayList<>();
        boolean anySum = false;
        long at = 0;
        for (Val v : ins) {
            Val.Exact e = (Val.Exact) v;
            Region r = e.region();
            Terms.Flat flat = st.terms.flat(e.term());
            List<Term> summands = flat != null && flat.op().equals("sum") ? flat.parts() : List.of(e.term());
            anySum |= summands.size() > 1;
            for (Term t : summands) {
                placed.add(placedAt(t, r, axis, at, out));
            }
            at += r.extent(axis);
        }
        return anySum ? new Val.Exact(st.ops.op("sum", placed), Region.at0(out)) : null;
    }

    /** {@code t}, held over {@code r}, placed at {@code at} on {@code axis} of a zero tensor of shape {@code out}. */
    private Term placedAt(Term t, Region r, int axis, long at, long[] out) {
        return st.terms.of("place(" + t.id() + r.key() + ";" + axis + "@" + at + ";" + java.util.Arrays.toString(out) + ")", () -> t.text(), t.label(), out, t);
    }

    private static Val firstPartial(List<Val> ins) {
        for (Val v : ins) {
            if (v instanceof Val.Partial) {
                return v;
            }
        }
        return null;
    }

    /** Adjacent windows of one term (or of one partial's summands) along {@code axis}: the wider window; else null. */
    private Val adjacent(int axis, List<Val> ins) {
        if (ins.isEmpty()) {
            return null;
        }
        Val first = ins.getFirst();
        Region r0 = ExprRules.regionOf(first);
        long ext = 0;
        for (Val v : ins) {
            Region r = ExprRules.regionOf(v);
            boolean same = switch (v) {
                case Val.Exact e -> first instanceof Val.Exact f && f.term().id() == e.term().id() && java.util.Objects.equals(f.hidden(), e.hidden());
                case Val.Partial p -> first instanceof Val.Partial f && f.familyKey().equals(p.familyKey());
                case Val.Tainted t -> false;
            };
            if (!same) {
                return null;
            }
            for (int a = 0; a < r.rank(); a++) {
                if (a == axis) {
                    Long d = r.origin(a).minus(r0.origin(a));
                    if (d == null || d != ext) {
                        return null;
                    }
                } else if (!r.origin(a).equals(r0.origin(a)) || r.extent(a) != r0.extent(a)) {
                    return null;
                }
            }
            ext += r.extent(axis);
        }
        Region wide = r0.with(axis, r0.origin(axis), ext);
        return switch (first) {
            case Val.Exact e -> e.with(e.term(), wide);
            case Val.Partial p -> new Val.Partial(p.pool(), p.families(), wide, st.step(() -> "concat of adjacent windows keeps the " + p.describe(), p.origin()));
            case Val.Tainted t -> t;
        };
    }

    /** The pool shared by the partials of a concat. */
    private static final class ReducePoolCheck {
        org.stagecheck.spec.ir.ReducePool pool;

        boolean accept(Val.Partial p) {
            if (pool == null) {
                pool = p.pool();
            }
            return pool == p.pool();
        }
    }

    private SortedMap<Integer, Family> mapFamilies(Val.Partial p, java.util.function.UnaryOperator<Term> f) {
        SortedMap<Integer, Family> m = new TreeMap<>();
        for (Family fam : p.families().values()) {
            Family g = fam.map(f);
            m.put(g.key(), g);
        }
        return m;
    }
}
