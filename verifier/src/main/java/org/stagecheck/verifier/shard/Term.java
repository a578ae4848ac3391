package org.stagecheck.verifier.shard;

import java.util.function.Supplier;

/**
 * A logical expression: a function of the logical tensors' elements (and of parameters) that
 * means the same on every chip (docs/verifier.md, "Terms"). Terms are hash-consed by
 * {@link Terms}: two equal keys are one term, so comparing values across chips is comparing ids.
 * Anything chip-specific that a value depends on (a window's position, a tensor that is not a
 * declared copy of a logical tensor) is part of its key, so chips holding different values never
 * share a term.
 *
 * <p>Its readable text is made only when a diagnostic asks for it: building it for every term
 * was a large part of the checker's time and memory on big programs (docs/verifier.md, "Scale").
 */
final class Term {
    private final int id;
    /** Made on first use for a plain operation or a canonical sum (from its {@link Terms.Form}). */
    private String key;
    /**
     * The readable text once made whole (a String), else what makes it (a {@code Supplier<String>};
     * null for a plain operation or a canonical sum, whose text is made from its form): one field
     * for both, since every term keeps it.
     */
    private Object text;
    private final String label;
    private final long[] lo;
    private final long[] hi;
    /** Where it was first built, packed ({@link Made#pack}): one int per term, no object per stage. */
    private final int made;
    private final Term[] sources;
    /** The table that made it (its readable text is rendered to a bounded depth there). */
    private final Terms owner;
    /** A canonical sum, max or min: its operation and operands; null for any other term. */
    private final Terms.Form form;
    /**
     * The last canonical op built from this term and one more operand, and its result: a chain
     * ({@code acc = acc + x_i} on every chip, in the parent and the split) builds each step once
     * and finds it again here, without comparing operands.
     */
    private Step step;

    /** The last canonical op built from a term and one more operand: {@code op(term, plus) = result}. */
    private record Step(String op, Term plus, Term result) {}

    /** The analysis ({@code phase}) and stage ({@code stage}, -1 before the first) that first built a term. */
    record Made(int phase, int stage) {
        /** Both in one int: the phase (0 or 1) in the low bit, {@code stage + 1} (at most 2^31 - 1) above it, unsigned. */
        static int pack(int phase, int stage) {
            return (stage + 1) << 1 | phase;
        }

        static int phaseOf(int packed) {
            return packed & 1;
        }

        static Made of(int packed) {
            return new Made(packed & 1, (packed >>> 1) - 1);
        }
    }

    /**
     * @param id      equal exactly when the keys are equal
     * @param key     the canonical definition, over the ids of the terms it is built from
     * @param text    a short readable form for diagnostics, made on demand
     * @param label   the logical tensor the expression is mainly about (for messages)
     * @param lo      per axis, the first index where the term is defined
     * @param hi      per axis, one past the last (Long.MIN_VALUE/MAX_VALUE: unbounded)
     * @param made    where the term was first built ({@link Made#pack}): the analysis ({@link Terms#PARENT} or
     *                {@link Terms#CHILD}) and the stage index, so a finding can name the stage where
     *                a program first computed something the other one never did
     * @param sources the terms it was built from (for that trail)
     */
    Term(int id, String key, Supplier<String> text, String label, long[] lo, long[] hi, int made, Term[] sources, Terms owner) {
        this(id, key, text, label, lo, hi, made, sources, owner, null);
    }

    /** A canonical sum, max or min of the operands {@code form} names. */
    Term(int id, String key, Supplier<String> text, String label, long[] lo, long[] hi, int made, Term[] sources, Terms owner,
         Terms.Form form) {
        this.id = id;
        this.owner = owner;
        this.form = form;
        this.key = key;
        this.text = text;
        this.label = label;
        this.lo = lo;
        this.hi = hi;
        this.made = made;
        this.sources = sources;
    }

    int id() {
        return id;
    }

    String key() {
        if (key == null) {
            key = switch (form) {
                case Terms.OpKey k -> k.key(sources);
                case Terms.FlatKey f -> "flat:" + f.op() + "#" + id;
                case null -> null;
            };
        }
        return key;
    }

    /**
     * The key of a term made by its key (a constant {@code cf:}/{@code ci:}, a parameter {@code p:},
     * a leaf, ...); the empty text for a plain operation or a canonical sum, whose key starts with
     * none of those prefixes. Tests of a key's prefix use it, so no operation's key text is made.
     */
    String leafKey() {
        return form == null ? key : "";
    }

    /** Whether this is a float constant ({@code cf:} key). */
    boolean isFloatConstant() {
        return form == null && key.startsWith("cf:");
    }

    /** Whether this is an integer constant ({@code ci:} key). */
    boolean isIntegerConstant() {
        return form == null && key.startsWith("ci:");
    }

    /**
     * The value of a float constant (a Double) or of an integer constant (a Long; null when its key
     * is no long), parsed from the key once; null for any other term.
     */
    Number constantValue() {
        return isFloatConstant() || isIntegerConstant() ? owner.constantValue(this) : null;
    }

    /** How the term was made when it is a plain operation or a canonical sum, max or min; else null. */
    Terms.Form form() {
        return form;
    }

    /** The hash code a {@link TermTable} finds this term by (its form's, over its arguments for a plain operation). */
    int formHash() {
        return switch (form) {
            case Terms.OpKey k -> Terms.OpKey.hash(k.op(), sources);
            case Terms.FlatKey f -> f.hashCode();
            case null -> 0;
        };
    }

    /** The operation of a plain operation term ({@code op(args)}), or null. */
    String opName() {
        return form instanceof Terms.OpKey k ? k.op() : null;
    }

    /** The arguments of a plain operation term (not to be changed), or null. */
    Term[] opArgs() {
        return form instanceof Terms.OpKey ? sources : null;
    }

    /**
     * The readable form, at most {@value Terms#TEXT_LIMIT} characters and an ellipsis. A term
     * nested deeper than {@value Terms#TEXT_DEPTH} levels below the one being rendered is
     * {@code ...}: a term built by a chain of 10^6 stages is rendered without recursing 10^6 deep.
     */
    String text() {
        if (text instanceof String done) {
            return done;
        }
        Terms.TextDepth depth = owner.textDepth();
        long cutsBefore = depth.cuts();
        if (!depth.enter()) {
            return "...";
        }
        String t;
        try {
            t = text instanceof Supplier<?> of ? (String) of.get() : formText();
        } finally {
            depth.leave();
        }
        boolean cut = depth.cuts() != cutsBefore;
        t = t.length() > Terms.TEXT_LIMIT ? t.substring(0, Terms.TEXT_LIMIT) + "..." : t;
        if (!cut) {
            // rendered whole: the same text whatever asks for it, so it is kept
            text = t;
        }
        return t;
    }

    /** The text of a plain operation or canonical sum, from its operation and operands. */
    private String formText() {
        return switch (form) {
            case Terms.OpKey k -> opText(k.op(), sources);
            case Terms.FlatKey f -> flatText(f.op(), f.operands(), f.constant());
            case null -> "";
        };
    }

    /** {@code name(a, b, ...)}, the arguments' texts while the text is short. */
    private static String opText(String name, Term[] args) {
        StringBuilder text = new StringBuilder(name).append('(');
        for (int i = 0; i < args.length && text.length() < Terms.TEXT_LIMIT; i++) {
            text.append(i == 0 ? "" : ", ").append(args[i].text());
        }
        return text.append(')').toString();
    }

    /**
     * {@code op(a, b, ...)} over the operands (the folded constant among them) sorted by id, each
     * as often as it is counted, while the text is short.
     */
    private static String flatText(String op, Summands operands, Term constant) {
        StringBuilder text = new StringBuilder(op).append('(');
        java.util.List<Term> ts = operands.distinct();
        long[] counts = operands.counts();
        int n = 0;
        boolean constantDone = constant == null;
        for (int i = 0; i <= ts.size() && text.length() < Terms.TEXT_LIMIT; i++) {
            if (!constantDone && (i == ts.size() || constant.id() < ts.get(i).id())) {
                text.append(n++ == 0 ? "" : ", ").append(constant.text());
                constantDone = true;
            }
            for (long k = 0; i < ts.size() && k < counts[i] && text.length() < Terms.TEXT_LIMIT; k++) {
                text.append(n++ == 0 ? "" : ", ").append(ts.get(i).text());
            }
        }
        return text.append(')').toString();
    }

    /** The term {@code stepOp(this, plus)} when it was the last such step built from this term, else null. */
    Term step(String op, Term plus) {
        return step != null && step.plus() == plus && op.equals(step.op()) ? step.result() : null;
    }

    void step(String op, Term plus, Term result) {
        step = new Step(op, plus, result);
    }

    /** The operation of a canonical sum, max or min ({@code "sum"}, {@code "max"}, {@code "min"}), or null. */
    String flatOp() {
        return form instanceof Terms.FlatKey f ? f.op() : null;
    }

    /** The operands of a canonical sum, max or min other than its folded constant, or null. */
    Summands operands() {
        return form instanceof Terms.FlatKey f ? f.operands() : null;
    }

    /** The folded constant operand of a canonical sum (null when it has none, or for any other term). */
    Term constant() {
        return form instanceof Terms.FlatKey f ? f.constant() : null;
    }

    String label() {
        return label;
    }

    long[] lo() {
        return lo;
    }

    long[] hi() {
        return hi;
    }

    Made made() {
        return Made.of(made);
    }

    /** The analysis that first built it ({@code made().phase()}, without making the record). */
    int madePhase() {
        return Made.phaseOf(made);
    }

    Term[] sources() {
        return sources;
    }

    int rank() {
        return lo.length;
    }

    /** Whether {@code [from, from + extent)} on {@code axis} is the whole domain. */
    boolean spans(int axis, Sym from, long extent) {
        return axis < rank() && from.isConstant() && from.constant() == lo[axis] && from.constant() + extent == hi[axis];
    }

    boolean bounded(int axis) {
        return axis < rank() && lo[axis] != Long.MIN_VALUE && hi[axis] != Long.MAX_VALUE;
    }

    @Override
    public String toString() {
        return text();
    }
}
