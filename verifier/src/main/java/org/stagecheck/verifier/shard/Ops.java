package org.stagecheck.verifier.shard;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.Expr;

/**
 * Builds the terms of operations (docs/verifier.md, "Canonical sums"), in the canonical form of
 * the algebra that holds exactly or up to rounding, so two programs (or chips) that compute one
 * expression in another order or grouping build one term.
 */
final class Ops {
    private final Terms terms;
    private final Identities identities;
    private final RescaleFactors rescales;

    Ops(Terms terms) {
        this.terms = terms;
        this.rescales = new RescaleFactors(terms, this);
        this.identities = new Identities(terms, this, rescales);
    }

    /** The rescale factors of this analysis' products (docs/verifier.md, "Monotone functions and rescaled maxima"). */
    RescaleFactors rescales() {
        return rescales;
    }

    /** The identities beyond canonical sums (reductions and products taking out what does not vary, rescale factors). */
    Identities identities() {
        return identities;
    }

    /**
     * The term {@code name(args)}, defined where every argument is, in a canonical form for the
     * algebra that holds exactly or up to rounding (docs/verifier.md, "Canonical sums"): a sum
     * ({@code add}, {@code sum}, {@code sub} as adding the negation) is the multiset of its
     * summands, nested sums flattened and zeros dropped, so a re-associated or commuted sum is the
     * same term; {@code max} and {@code min} likewise (exact); {@code mul} of two factors is
     * commuted into one order (exact); {@code neg(neg(x))} is {@code x}.
     */
    Term op(String name, List<Term> args) {
        return switch (name) {
            case "add", "sum" -> flat("sum", args);
            case "max", "min" -> flat(name, args);
            case "sub" -> args.size() == 2 ? flat("sum", List.of(args.get(0), op("neg", List.of(args.get(1))))) : plainOp(name, args);
            case "neg" -> {
                Term constant = args.size() == 1 ? negatedConstant(args.getFirst()) : null;
                if (constant != null) {
                    yield constant;
                }
                Term inner = args.size() == 1 ? terms.negationOf(args.getFirst()) : null;
                if (inner != null) {
                    yield inner;
                }
                Term t = plainOp(name, args); // Terms#negationOf finds x again from neg(x)
                if (args.size() == 1) {
                    terms.negation(t, args.getFirst());
                }
                yield t;
            }
            case "mul" -> {
                Term negated = args.size() == 2 ? timesMinusOne(args.get(0), args.get(1)) : null;
                if (negated != null) {
                    yield negated;
                }
                Term rescaled = args.size() == 2 ? rescales.product(args.get(0), args.get(1)) : null;
                yield rescaled != null ? rescaled : args.size() == 2 ? plainMul(args.get(0), args.get(1)) : plainOp(name, args);
            }
            case "div" -> args.size() == 2 && isMinusOne(args.get(1)) && args.get(0).rank() >= args.get(1).rank()
                    ? op("neg", List.of(args.get(0))) : plainOp(name, args);
            // an operator name is an open string (every Fn, cast and layout op): the rest are plain terms
            default -> plainOp(name, args);
        };
    }

    /**
     * {@code x * -1} (either order) as {@code neg(x)}, so a negation written as a scale by -1
     * (or a division by -1, {@link #op}) is the same term as {@code neg} and {@code sub} make:
     * exact, since multiplying by -1 only flips the sign (and wraps like {@code neg} for the
     * smallest integer). Null when neither factor is -1, or -1 is the wider one (a broadcast).
     */
    private Term timesMinusOne(Term a, Term b) {
        if (isMinusOne(b) && a.rank() >= b.rank()) {
            return op("neg", List.of(a));
        }
        if (isMinusOne(a) && b.rank() >= a.rank()) {
            return op("neg", List.of(b));
        }
        return null;
    }

    private static boolean isMinusOne(Term t) {
        return t.leafKey().equals("cf:-1.0") || t.leafKey().equals("ci:-1");
    }

    /**
     * {@code -c} for a constant {@code c} (exact: a float or an integer negates without rounding;
     * not the smallest 32-bit integer, whose negation wraps); else null.
     */
    private Term negatedConstant(Term t) {
        if (!t.isFloatConstant() && !t.isIntegerConstant()) {
            return null;
        }
        // a constant's negation is looked up once: the same term every time (its key names its value)
        return negatedConstants.computeIfAbsent(t, negate);
    }

    /** The constants' negations met so far (none for a constant whose negation wraps: computeIfAbsent keeps no null). */
    private final Map<Term, Term> negatedConstants = new IdentityHashMap<>();
    /** {@link #negatedConstantTerm} as one object, not one made per look-up. */
    private final java.util.function.Function<Term, Term> negate = this::negatedConstantTerm;

    private Term negatedConstantTerm(Term t) {
        if (t.isFloatConstant()) {
            double d = -(Double) t.constantValue();
            return terms.unbounded("cf:" + d, Expr.print(new Expr.FloatConst(d)), t.rank());
        }
        Long c = integerConstant(t);
        return c == null || c == Integer.MIN_VALUE ? null : terms.unbounded("ci:" + (-c), Long.toString(-c), t.rank());
    }

    private static Long integerConstant(Term t) {
        return t.isIntegerConstant() ? (Long) t.constantValue() : null;
    }

    /**
     * {@code op} (sum, max or min) over its operands flattened into one counted multiset
     * ({@link Summands}), zeros dropped from a sum and its constants folded into one where the
     * folded value is exact. The operands of the largest flattened argument are shared, not
     * copied, so a chain that adds one operand per stage costs O(1) per stage. An operand count
     * that would overflow keeps the operation as a plain term of its arguments (no canonical form,
     * so it equals only itself).
     */
    private Term flat(String op, List<Term> args) {
        int rank = 0;
        for (Term t : args) {
            rank = Math.max(rank, t.rank());
        }
        boolean sum = op.equals("sum");
        if (args.size() == 2 && args.get(1).flatOp() == null && op.equals(args.get(0).flatOp()) || args.size() == 2 && args.get(0).flatOp() == null
                && op.equals(args.get(1).flatOp())) {
            Term of = op.equals(args.get(0).flatOp()) ? args.get(0) : args.get(1);
            Term plus = of == args.get(0) ? args.get(1) : args.get(0);
            Term known = of.step(op, plus);
            if (known != null && known.rank() == rank) {
                return known.madePhase() == terms.phase() ? known : foundAgain(op, known, args, sum);
            }
            Term t = flatOf(op, args, rank, sum);
            of.step(op, plus, t);
            return t;
        }
        return flatOf(op, args, rank, sum);
    }

    /**
     * {@code known}, the other analysis' result of the step {@code op(args)}, found as building it
     * again ({@link #flatOf}) would find it: a canonical {@code op} is found in the table
     * ({@link Terms#flat}: marked rebuilt, taking this analysis' demotion from the step's sources);
     * a plain {@code op} over these arguments (an overflow) likewise by {@link Terms#op}, from its
     * arguments; an operand left after cancelling, or the constant the operands folded to, is
     * returned as it is, since it is not built from the step's arguments.
     */
    private Term foundAgain(String op, Term known, List<Term> args, boolean sum) {
        if (op.equals(known.flatOp())) {
            return terms.foundAgain(known, sources(args, sum));
        }
        if (known instanceof Term.Op o && op.equals(o.opName()) && o.sameArgs(args.toArray(Term[]::new))) {
            return terms.foundAgain(known);
        }
        return known;
    }

    private Term flatOf(String op, List<Term> args, int rank, boolean sum) {
        // the largest flattened argument (by its operands, not its nodes: a sum just folded into one
        // snapshot is one node) is the base; the others' operands are added to it, so a sum of a large
        // sum and a small one costs the small one's operands, not the large one's
        Term base = null;
        int baseAt = -1;
        for (int i = 0; i < args.size(); i++) {
            Term t = args.get(i);
            if (op.equals(t.flatOp()) && (base == null || t.operands().distinctBound() > base.operands().distinctBound())) {
                base = t;
                baseAt = i;
            }
        }
        Summands parts = base == null ? Summands.empty() : base.operands();
        // the constants among the operands: the one met while it is the only one, their exact sum once there are more
        Term onlyConstant = base == null ? null : base.constant();
        BigDecimal constant = null;
        // integer constants (an index's offsets) fold into an integer, float ones into a float
        boolean integers = onlyConstant == null || onlyConstant.isIntegerConstant();
        try {
            for (int i = 0; i < args.size(); i++) {
                Term t = args.get(i);
                if (i == baseAt) {
                    continue;
                }
                Term c = op.equals(t.flatOp()) ? t.constant() : sum && !isZero(t) && finiteConstant(t) ? t : null;
                if (c != null) {
                    integers &= c.isIntegerConstant();
                }
                if (c != null && onlyConstant == null && constant == null) {
                    onlyConstant = c;
                } else if (c != null) {
                    constant = plus(plus(constant, onlyConstant == null ? null : exact(onlyConstant)), exact(c));
                    onlyConstant = null;
                }
                if (op.equals(t.flatOp())) {
                    parts = sum ? plusCancelling(parts, t.operands()) : parts.plusAll(t.operands(), 1);
                } else if (sum && isZero(t) || c != null) {
                    continue;
                } else {
                    parts = sum ? plusCancelling(parts, t, 1) : parts.plus(t, 1);
                }
            }
        } catch (ArithmeticException overflow) {
            return plainOp(op, args);
        }
        Term folded = onlyConstant;
        if (constant != null) {
            if (integers) {
                if (constant.compareTo(BigDecimal.valueOf(Integer.MIN_VALUE)) < 0 || constant.compareTo(BigDecimal.valueOf(Integer.MAX_VALUE)) > 0) {
                    // the integers' sum wraps in 32 bits: no canonical form (the sum equals only itself)
                    return plainOp(op, args);
                }
                long v = constant.longValueExact();
                folded = v == 0 ? null : terms.unbounded("ci:" + v, Long.toString(v), rank);
            } else {
                double d = constant.doubleValue();
                if (new BigDecimal(d).compareTo(constant) != 0) {
                    // the constants' sum is no double: no canonical form (the sum equals only itself)
                    return plainOp(op, args);
                }
                folded = d == 0.0 ? null : terms.unbounded("cf:" + d, Expr.print(new Expr.FloatConst(d)), rank);
            }
        }
        if (parts.total == 0 && folded == null) {
            return terms.unbounded("cf:0.0", "0.0", rank);
        }
        Term single = folded == null ? parts.single() : parts.total == 0 ? folded : null;
        if (single != null && single.rank() == rank) {
            return single;
        }
        Term.Bounds bounds = bounds(args.toArray(Term[]::new), rank);
        return terms.flat(op, parts, folded, bounds, sources(args, sum));
    }

    /** What a canonical sum, max or min is built from: the arguments but a sum's zeros, sorted by id (an insertion sort: there are two or three). */
    private static Term[] sources(List<Term> args, boolean sum) {
        Term[] sources = new Term[args.size()];
        int n = 0;
        for (int i = 0; i < args.size(); i++) {
            Term t = args.get(i);
            if (!(sum && isZero(t))) {
                int at = n++;
                for (; at > 0 && sources[at - 1].id() > t.id(); at--) {
                    sources[at] = sources[at - 1];
                }
                sources[at] = t;
            }
        }
        return n == sources.length ? sources : java.util.Arrays.copyOf(sources, n);
    }

    /**
     * Where every one of {@code args} is defined, of rank {@code rank}: an argument's own bounds
     * when they are the intersection (the usual case: terms are never changed, so they are shared
     * instead of copied per term).
     */
    private static Term.Bounds bounds(Term[] args, int rank) {
        for (Term candidate : args) {
            if (candidate.rank() == rank && contains(args, candidate)) {
                return candidate.bounds();
            }
        }
        long[] lo = Terms.unboundedLo(rank);
        long[] hi = Terms.unboundedHi(rank);
        for (Term t : args) {
            intersect(lo, hi, rank, t);
        }
        return new Term.Bounds(lo, hi);
    }

    /** Whether {@code inner}'s domain lies within every one of {@code args}' (trailing axes aligned). */
    private static boolean contains(Term[] args, Term inner) {
        int rank = inner.rank();
        for (Term t : args) {
            int lead = rank - t.rank();
            for (int a = 0; a < t.rank(); a++) {
                if (inner.lo()[a + lead] < t.lo()[a] || inner.hi()[a + lead] > t.hi()[a]) {
                    return false;
                }
            }
        }
        return true;
    }

    /**
     * {@code parts} plus {@code count} of summand {@code t}, less what cancels against t's negation
     * among them: {@code x + neg(x)} is 0 (docs/verifier.md, "Canonical sums"), so a sum never
     * holds both an operand and its negation, and {@code (a + b) - b} is {@code a}.
     */
    private Summands plusCancelling(Summands parts, Term t, long count) {
        Term partner = terms.negationOf(t);
        if (partner == null) {
            partner = terms.negationIfBuilt(t);
        }
        if (partner != null) {
            long gone = Math.min(count, parts.count(partner));
            if (gone > 0) {
                parts = parts.plus(partner, -gone);
                count -= gone;
            }
        }
        Selects.Half half = count > 0 ? terms.selects().half(t) : null;
        if (half != null) {
            // select(c, a, 0) + select(c, 0, b) is select(c, a, b): where c holds a + 0, elsewhere 0 + b
            for (Selects.Half other : terms.selects().complements(half)) {
                long gone = Math.min(count, parts.count(other.select()));
                if (gone == 0) {
                    continue;
                }
                Term a = half.whereTrue() ? half.value() : other.value();
                Term b = half.whereTrue() ? other.value() : half.value();
                parts = plusCancelling(parts.plus(other.select(), -gone), op("select", List.of(half.cond(), a, b)), gone);
                count -= gone;
                if (count == 0) {
                    break;
                }
            }
        }
        return count == 0 ? parts : parts.plus(t, count);
    }

    private Summands plusCancelling(Summands parts, Summands more) {
        List<Term> ts = more.distinct();
        long[] cs = more.counts();
        for (int i = 0; i < ts.size(); i++) {
            parts = plusCancelling(parts, ts.get(i), cs[i]);
        }
        return parts;
    }

    /** A finite float constant, or a 32-bit integer constant (an index's offset). */
    private static boolean finiteConstant(Term t) {
        if (t.isFloatConstant()) {
            return Double.isFinite((Double) t.constantValue());
        }
        Long c = integerConstant(t);
        return c != null && c >= Integer.MIN_VALUE && c <= Integer.MAX_VALUE;
    }

    /** The exact value of a finite float or integer constant term. */
    private static BigDecimal exact(Term t) {
        return t.isIntegerConstant() ? BigDecimal.valueOf(integerConstant(t)) : new BigDecimal((Double) t.constantValue());
    }

    private static BigDecimal plus(BigDecimal a, BigDecimal b) {
        return a == null ? b : a.add(b);
    }

    private static void intersect(long[] lo, long[] hi, int rank, Term t) {
        int lead = rank - t.rank();
        for (int a = 0; a < t.rank(); a++) {
            lo[a + lead] = Math.max(lo[a + lead], t.lo()[a]);
            hi[a + lead] = Math.min(hi[a + lead], t.hi()[a]);
        }
    }

    /** {@code a * b} in one order of its factors, without the identities of {@link RescaleFactors#product}. */
    Term plainMul(Term a, Term b) {
        return b.id() < a.id() ? plainOp("mul", new Term[] {b, a}) : plainOp("mul", new Term[] {a, b});
    }

    /**
     * The integer constants of a sum added into one, dropped when it is 0 (exact, also in 32-bit
     * integers while the constants and their sum fit: {@code index(1) - 4 + 4} is {@code index(1)}).
     */
    private List<Term> foldedIntegers(List<Term> parts, int rank) {
        long sum = 0;
        int constants = 0;
        List<Term> rest = new ArrayList<>();
        for (Term t : parts) {
            Long c = integerConstant(t);
            if (c != null && c >= Integer.MIN_VALUE && c <= Integer.MAX_VALUE) {
                sum += c;
                constants++;
            } else {
                rest.add(t);
            }
        }
        if (constants < 2 && !(constants == 1 && sum == 0) || sum < Integer.MIN_VALUE || sum > Integer.MAX_VALUE) {
            return parts;
        }
        if (sum != 0) {
            rest.add(terms.unbounded("ci:" + sum, Long.toString(sum), rank));
        }
        return rest;
    }

    private static boolean isZero(Term t) {
        String k = t.leafKey();
        return k.equals("cf:0.0") || k.equals("cf:-0.0") || k.equals("ci:0");
    }

    private Term plainOp(String name, List<Term> args) {
        Term[] sources = new Term[args.size()];
        for (int i = 0; i < sources.length; i++) {
            sources[i] = args.get(i);
        }
        return plainOp(name, sources);
    }

    /** The same over {@code sources}, which the term keeps (not copied). */
    private Term plainOp(String name, Term[] sources) {
        int rank = 0;
        String label = "";
        for (Term t : sources) {
            rank = Math.max(rank, t.rank());
            if (label.isEmpty()) {
                label = t.label();
            }
        }
        Term t = terms.op(name, sources, label, bounds(sources, rank));
        if (name.equals("select")) {
            terms.selects().record(t, java.util.Arrays.asList(sources));
        }
        return t;
    }
}
