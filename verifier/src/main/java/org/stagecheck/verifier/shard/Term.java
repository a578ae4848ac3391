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
abstract sealed class Term permits Term.Leaf, Term.Op, Term.Flat {
    /*
     * A term is one of three kinds, each with only the fields it needs: at 10^6 stages a program
     * keeps several million terms alive to the end, so every field and every array per term is
     * memory the garbage collector copies (docs/verifier.md, "Scale").
     */
    private final int id;
    private final String label;
    /** Where it is defined; one object that the terms with the same domain share (most of a program's terms). */
    private final Bounds bounds;
    /** Where it was first built, packed ({@link Made#pack}): one int per term, no object per stage. */
    private final int made;
    /**
     * The newest plain operation or canonical sum anchored at this term (its operand with the
     * largest id), the head of a chain through their {@code nextUse}: {@link Terms#op} and
     * {@link Terms#flat} find a term among the few built over its newest operand, which is in
     * cache, instead of in a table of millions; {@link Terms}' marker of a full chain once the
     * terms built over it moved to that table.
     */
    private Term uses;

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
     * The domain of a term: per axis, the first index where it is defined ({@code lo}) and one past
     * the last ({@code hi}; Long.MIN_VALUE/MAX_VALUE: unbounded). Neither array is ever changed
     * once a term has it, so terms with the same domain share one object: an operation takes its
     * argument's when that lies within every other argument's, and a leaf the last leaf's when
     * they are equal ({@link Terms#of}).
     */
    static final class Bounds {
        final long[] lo;
        final long[] hi;

        Bounds(long[] lo, long[] hi) {
            this.lo = lo;
            this.hi = hi;
        }
    }

    /**
     * @param id     equal exactly when the keys are equal
     * @param label  the logical tensor the expression is mainly about (for messages)
     * @param bounds where the term is defined
     * @param made   where the term was first built ({@link Made#pack}): the analysis ({@link Terms#PARENT} or
     *               {@link Terms#CHILD}) and the stage index, so a finding can name the stage where
     *               a program first computed something the other one never did
     */
    private Term(int id, String label, Bounds bounds, int made) {
        this.id = id;
        this.label = label;
        this.bounds = bounds;
        this.made = made;
    }

    /** The table that made it (its readable text is rendered to a bounded depth there). */
    private Terms owner() {
        return switch (this) {
            case Leaf l -> l.owner;
            case Op o -> o.op.owner();
            case Flat f -> f.owner;
        };
    }

    /**
     * Arguments in two fields: {@code first} and {@code rest}, where {@code rest} is null (at most
     * one argument), the second argument, or, with more than two, every argument in an array and
     * {@code first} null. Almost every operation has one or two, and an array per term would be
     * an object per term more for the collector.
     */
    private static Object rest(Term[] args) {
        return args.length > 2 ? args : args.length == 2 ? args[1] : null;
    }

    private static Term first(Term[] args) {
        return args.length > 0 && args.length <= 2 ? args[0] : null;
    }

    // (instanceof tests, not a switch over the field's type: these run for every operation built)
    private static int arity(Term first, Object rest) {
        if (rest instanceof Term) {
            return 2;
        }
        if (rest instanceof Term[] all) {
            return all.length;
        }
        return first != null ? 1 : 0;
    }

    private static Term[] args(Term first, Object rest) {
        if (rest instanceof Term second) {
            return new Term[] {first, second};
        }
        if (rest instanceof Term[] all) {
            return all.clone();
        }
        return first != null ? new Term[] {first} : new Term[0];
    }

    /** A term made by its key: a constant, a parameter, a leaf read, an opaque value; {@code sources} are the terms it was built from. */
    static final class Leaf extends Term {
        /** A constant's value once parsed from its key: null before, {@link #NO_VALUE} when the key names no long. */
        private static final Object NO_VALUE = new Object();
        private final String key;
        private final Term[] sources;
        private final Terms owner;
        private Object value;
        /** The readable text once made whole (a String), else what makes it (a {@code Supplier<String>}). */
        private Object text;

        Leaf(int id, String key, Supplier<String> text, String label, Bounds bounds, int made, Term[] sources, Terms owner) {
            super(id, label, bounds, made);
            this.text = text;
            this.key = key;
            this.sources = sources;
            this.owner = owner;
        }
    }

    /** A plain operation {@code op(args)} (its table is its operation's, {@link Terms.OpKey#owner}). */
    static final class Op extends Term {
        private final Terms.OpKey op;
        private final Term first;
        private final Object rest;
        /** The next older term with the same anchor ({@link Term#uses}). */
        private Term nextUse;

        Op(int id, String label, Bounds bounds, int made, Term[] args, Terms.OpKey op) {
            super(id, label, bounds, made);
            this.op = op;
            this.first = first(args);
            this.rest = rest(args); // an array of more than two is kept, not copied, as the table keeps it
        }

        int arity() {
            return Term.arity(first, rest);
        }

        Term arg(int i) {
            if (rest instanceof Term[] all) {
                return all[i];
            }
            if (i == 0 && first != null) {
                return first;
            }
            if (i == 1 && rest instanceof Term second) {
                return second;
            }
            throw new IndexOutOfBoundsException("argument " + i + " of a " + arity() + "-argument " + op.op());
        }

        /** The arguments, in a new array. */
        Term[] args() {
            return Term.args(first, rest);
        }

        /** Whether {@code args} are this operation's arguments, the same terms in the same order. */
        boolean sameArgs(Term[] args) {
            if (rest instanceof Term second) {
                return args.length == 2 && first == args[0] && second == args[1];
            }
            if (rest instanceof Term[] all) {
                return Terms.OpKey.sameArgs(all, args);
            }
            return first == null ? args.length == 0 : args.length == 1 && first == args[0];
        }

        /** {@link Terms.OpKey#hash} of this operation over its arguments, without an array. */
        int hash() {
            if (rest instanceof Term[] all) {
                return Terms.OpKey.hash(op.op(), all);
            }
            int h = op.op().hashCode();
            if (first != null) {
                h = h * 31 + first.id();
            }
            if (rest instanceof Term second) {
                h = h * 31 + second.id();
            }
            return h;
        }
    }

    /**
     * A canonical sum, max or min, with the terms it was built from; it remembers the last
     * canonical op built from it and one more operand, and its result: a chain
     * ({@code acc = acc + x_i} on every chip, in the parent and the split) builds each step once
     * and finds it again here, without comparing operands.
     */
    static final class Flat extends Term {
        /** Its operation ({@code sum}, {@code max}, {@code min}), its operands but a folded constant, and that constant (a sum's, or null). */
        private final String op;
        /**
         * A {@link Summands}, or, for a multiset that holds exactly one operand once (x + c, a
         * nest's sub of a constant), that operand: the multiset object is then made only when
         * asked for ({@link #operands()}), and no term keeps one (a nest's sums kept one each).
         */
        private final Object operands;
        private final Term constant;
        private final Terms owner;
        private final Term first;
        private final Object rest;
        private String stepOp;
        private Term stepPlus;
        private Term stepResult;
        /** The next older term with the same anchor ({@link Term#uses}). */
        private Term nextUse;

        Flat(int id, String label, Bounds bounds, int made, Term[] sources, Terms owner, String op, Summands operands, Term constant) {
            super(id, label, bounds, made);
            this.op = op;
            this.operands = operands.total == 1 ? operands.newest() : operands;
            this.constant = constant;
            this.owner = owner;
            this.first = first(sources);
            this.rest = rest(sources);
        }

        /** Whether it is the canonical {@code op} over {@code operands} and {@code constant}: the same operation over the same multiset. */
        boolean isFlat(String op, Summands operands, Term constant) {
            return this.constant == constant && this.op.equals(op)
                    && (this.operands instanceof Summands own ? own.sameAs(operands) : operands.total == 1 && operands.newest() == this.operands);
        }

        /** Its operands' multiset (made anew for a multiset of one operand once). */
        private Summands multiset() {
            return operands instanceof Summands own ? own : Summands.empty().plus((Term) operands, 1);
        }

        /** {@link Summands#hash} of its operands, without the multiset object. */
        private long operandsHash() {
            return operands instanceof Summands own ? own.hash : Summands.mix(((Term) operands).id());
        }
    }

    /** The newest term anchored here, null for none, or the marker of a full chain that was set. */
    Term uses() {
        return uses;
    }

    /** Puts {@code t} (a plain operation or canonical sum), just made with this term as its anchor, at the head of the chain. */
    void use(Term t) {
        setNextUse(t, uses);
        uses = t;
    }

    /** Ends the chain: {@code marker} stands for it from now on, and each term of it is unlinked. */
    void closeUses(Term marker) {
        for (Term u = uses; u != null; ) {
            Term next = nextUse(u);
            setNextUse(u, null);
            u = next;
        }
        uses = marker;
    }

    /** The next older term of the chain {@code t} is in, or null. */
    static Term nextUse(Term t) {
        return t instanceof Op o ? o.nextUse : t instanceof Flat f ? f.nextUse : null;
    }

    private static void setNextUse(Term t, Term next) {
        if (t instanceof Op o) {
            o.nextUse = next;
        } else if (t instanceof Flat f) {
            f.nextUse = next;
        } else {
            throw new IllegalArgumentException("a leaf is anchored at none");
        }
    }

    int id() {
        return id;
    }

    /** The canonical definition, over the ids of the terms it is built from (made on each call for an operation or a canonical sum). */
    String key() {
        return switch (this) {
            case Leaf l -> l.key;
            case Op o -> o.op.key(o.args());
            case Flat f -> "flat:" + f.op + "#" + id;
        };
    }

    /**
     * The key of a term made by its key (a constant {@code cf:}/{@code ci:}, a parameter {@code p:},
     * a leaf, ...); the empty text for a plain operation or a canonical sum, whose key starts with
     * none of those prefixes. Tests of a key's prefix use it, so no operation's key text is made.
     */
    String leafKey() {
        return this instanceof Leaf l ? l.key : "";
    }

    /** Whether this is a float constant ({@code cf:} key). */
    boolean isFloatConstant() {
        return this instanceof Leaf l && l.key.startsWith("cf:");
    }

    /** Whether this is an integer constant ({@code ci:} key). */
    boolean isIntegerConstant() {
        return this instanceof Leaf l && l.key.startsWith("ci:");
    }

    /**
     * The value of a float constant (a Double) or of an integer constant (a Long; null when its key
     * is no long), parsed from the key once; null for any other term.
     */
    Number constantValue() {
        if (!(this instanceof Leaf l) || !(isFloatConstant() || isIntegerConstant())) {
            return null;
        }
        if (l.value == null) {
            Number v = Terms.parseConstant(l.key);
            l.value = v == null ? Leaf.NO_VALUE : v;
        }
        return l.value instanceof Number n ? n : null;
    }

    /** The hash code a {@link TermTable} finds this term by (of its operation over its arguments or operands; a leaf's, of its key). */
    int formHash() {
        return switch (this) {
            case Leaf l -> l.key.hashCode();
            case Op o -> o.hash();
            case Flat f -> Terms.flatHash(f.op, f.operandsHash(), f.constant);
        };
    }

    /** The operation of a plain operation term ({@code op(args)}), or null. */
    String opName() {
        return this instanceof Op o ? o.op.op() : null;
    }

    /** The arguments of a plain operation term (a new array), or null. */
    Term[] opArgs() {
        return this instanceof Op o ? o.args() : null;
    }

    /**
     * The readable form, at most {@value Terms#TEXT_LIMIT} characters and an ellipsis. A term
     * nested deeper than {@value Terms#TEXT_DEPTH} levels below the one being rendered is
     * {@code ...}: a term built by a chain of 10^6 stages is rendered without recursing 10^6 deep.
     */
    String text() {
        Object kept = this instanceof Leaf l ? l.text : owner().keptText(this);
        if (kept instanceof String done) {
            return done;
        }
        Terms.TextDepth depth = owner().textDepth();
        long cutsBefore = depth.cuts();
        if (!depth.enter()) {
            return "...";
        }
        String t;
        try {
            t = kept instanceof Supplier<?> of ? (String) of.get() : formText();
        } finally {
            depth.leave();
        }
        boolean cut = depth.cuts() != cutsBefore;
        t = t.length() > Terms.TEXT_LIMIT ? t.substring(0, Terms.TEXT_LIMIT) + "..." : t;
        if (!cut) {
            // rendered whole: the same text whatever asks for it, so it is kept
            if (this instanceof Leaf l) {
                l.text = t;
            } else {
                owner().keepText(this, t);
            }
        }
        return t;
    }

    /** The text of a plain operation or canonical sum, from its operation and operands. */
    private String formText() {
        return switch (this) {
            case Leaf _ -> "";
            case Op o -> opText(o.op.op(), o.args());
            case Flat f -> flatText(f.op, f.multiset(), f.constant);
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
        return this instanceof Flat f && f.stepPlus == plus && op.equals(f.stepOp) ? f.stepResult : null;
    }

    /** Records {@code op(this, plus) = result} as this term's last step (a canonical sum, max or min keeps one; any other term none). */
    void step(String op, Term plus, Term result) {
        if (this instanceof Flat f) {
            f.stepOp = op;
            f.stepPlus = plus;
            f.stepResult = result;
        }
    }

    /** The operation of a canonical sum, max or min ({@code "sum"}, {@code "max"}, {@code "min"}), or null. */
    String flatOp() {
        return this instanceof Flat f ? f.op : null;
    }

    /** The operands of a canonical sum, max or min other than its folded constant, or null. */
    Summands operands() {
        return this instanceof Flat f ? f.multiset() : null;
    }

    /** The folded constant operand of a canonical sum (null when it has none, or for any other term). */
    Term constant() {
        return this instanceof Flat f ? f.constant : null;
    }

    String label() {
        return label;
    }

    long[] lo() {
        return bounds.lo;
    }

    long[] hi() {
        return bounds.hi;
    }

    /** Its domain, the object it shares with terms of the same domain. */
    Bounds bounds() {
        return bounds;
    }

    Made made() {
        return Made.of(made);
    }

    /** The analysis that first built it ({@code made().phase()}, without making the record). */
    int madePhase() {
        return Made.phaseOf(made);
    }

    /** The terms it was built from (in a new array for an operation or a canonical sum). */
    Term[] sources() {
        return switch (this) {
            case Leaf l -> l.sources;
            case Op o -> o.args();
            case Flat f -> Term.args(f.first, f.rest);
        };
    }

    int rank() {
        return bounds.lo.length;
    }

    /** Whether {@code [from, from + extent)} on {@code axis} is the whole domain. */
    boolean spans(int axis, Sym from, long extent) {
        return axis < rank() && from.isConstant() && from.constant() == bounds.lo[axis] && from.constant() + extent == bounds.hi[axis];
    }

    boolean bounded(int axis) {
        return axis < rank() && bounds.lo[axis] != Long.MIN_VALUE && bounds.hi[axis] != Long.MAX_VALUE;
    }

    @Override
    public String toString() {
        return text();
    }
}
