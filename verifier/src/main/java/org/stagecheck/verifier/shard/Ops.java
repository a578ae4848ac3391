package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;

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
                Term t = plainOp(name, args);
                if (args.size() == 1) {
                    terms.negation(t, args.getFirst());
                }
                yield t;
            }
            case "mul" -> {
                Term rescaled = args.size() == 2 ? rescales.product(args.get(0), args.get(1)) : null;
                yield rescaled != null ? rescaled : args.size() == 2 ? plainMul(args.get(0), args.get(1)) : plainOp(name, args);
            }
            // an operator name is an open string (every Fn, cast and layout op): the rest are plain terms
            default -> plainOp(name, args);
        };
    }

    /** {@code -c} for an integer constant {@code c} (exact: integers negate without rounding); else null. */
    private Term negatedConstant(Term t) {
        Long c = integerConstant(t);
        return c == null || c == Integer.MIN_VALUE ? null : terms.unbounded("ci:" + (-c), Long.toString(-c), t.rank());
    }

    private static Long integerConstant(Term t) {
        if (!t.key().startsWith("ci:")) {
            return null;
        }
        try {
            return Long.parseLong(t.key().substring(3));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {@code op} (sum, max or min) over its operands flattened, zeros dropped from a sum, sorted by id. */
    private Term flat(String op, List<Term> args) {
        List<Term> parts = new ArrayList<>();
        int rank = 0;
        for (Term t : args) {
            rank = Math.max(rank, t.rank());
            Terms.Flat f = terms.flat(t);
            if (f != null && f.op().equals(op)) {
                parts.addAll(f.parts());
            } else if (!(op.equals("sum") && isZero(t))) {
                parts.add(t);
            }
        }
        if (op.equals("sum")) {
            parts = foldedIntegers(parts, rank);
        }
        if (parts.isEmpty()) {
            return terms.unbounded("cf:0.0", "0.0", rank);
        }
        if (parts.size() == 1 && parts.getFirst().rank() == rank) {
            return parts.getFirst();
        }
        parts.sort(java.util.Comparator.comparingInt(Term::id));
        Term t = plainOp(op, parts);
        terms.flat(t, new Terms.Flat(op, List.copyOf(parts)));
        return t;
    }

    /** {@code a * b} in one order of its factors, without the identities of {@link RescaleFactors#product}. */
    Term plainMul(Term a, Term b) {
        return b.id() < a.id() ? plainOp("mul", List.of(b, a)) : plainOp("mul", List.of(a, b));
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
        return t.key().equals("cf:0.0") || t.key().equals("cf:-0.0");
    }

    private Term plainOp(String name, List<Term> args) {
        int rank = 0;
        for (Term t : args) {
            rank = Math.max(rank, t.rank());
        }
        long[] lo = Terms.unboundedLo(rank);
        long[] hi = Terms.unboundedHi(rank);
        StringBuilder key = new StringBuilder("f:").append(name).append('(');
        String label = "";
        Term[] sources = args.toArray(Term[]::new);
        for (int i = 0; i < sources.length; i++) {
            Term t = sources[i];
            key.append(i == 0 ? "" : ",").append(t.id());
            if (label.isEmpty()) {
                label = t.label();
            }
            int lead = rank - t.rank();
            for (int a = 0; a < t.rank(); a++) {
                lo[a + lead] = Math.max(lo[a + lead], t.lo()[a]);
                hi[a + lead] = Math.min(hi[a + lead], t.hi()[a]);
            }
        }
        Term t = terms.of(key.append(')').toString(), () -> text(name, sources), label, lo, hi, sources);
        identities.record(t, name, args);
        return t;
    }

    /** {@code name(a, b, ...)}, the arguments' texts while the text is short. */
    private static String text(String name, Term[] args) {
        StringBuilder text = new StringBuilder(name).append('(');
        for (int i = 0; i < args.length && text.length() < Terms.TEXT_LIMIT; i++) {
            text.append(i == 0 ? "" : ", ").append(args[i].text());
        }
        return text.append(')').toString();
    }
}
