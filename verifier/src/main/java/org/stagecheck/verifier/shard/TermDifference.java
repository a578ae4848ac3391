package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;

/**
 * Where two terms that print the same text differ (docs/verifier.md, "The unsplit parent"): a
 * term's text leaves out how a value was read (shifted, broadcast) and where it is defined, so
 * {@code LOGICAL_OUTPUT_DIFFERS} between two such terms would name the same expression twice.
 * This walks both from the top while they are the same operation, down to the first pair of
 * subterms that differ, and describes each: its kind (a read in another frame, with its shift
 * or broadcast per axis, or the operation) and where it is defined.
 */
final class TermDifference {
    private TermDifference() {}

    /** A sentence naming the first pair of subterms where {@code mine} and {@code theirs} differ; empty when they are one term. */
    static String of(Term mine, Term theirs) {
        Term a = mine;
        Term b = theirs;
        while (a != b) {
            Term[] next = firstDifferingArguments(a, b);
            if (next == null) {
                break;
            }
            a = next[0];
            b = next[1];
        }
        if (a == b) {
            return "";
        }
        String where = a == mine ? "" : " at its subterm " + a.text();
        return where + ", the split's is " + describe(a) + " and the unsplit program's is " + describe(b);
    }

    /** For two plain terms of one operation whose arguments differ in one place, that pair; else null. */
    private static Term[] firstDifferingArguments(Term a, Term b) {
        Term[] x = a.opArgs();
        Term[] y = b.opArgs();
        if (x == null || y == null || !a.opName().equals(b.opName()) || x.length != y.length) {
            return null;
        }
        Term[] pair = null;
        for (int i = 0; i < x.length; i++) {
            if (x[i] != y[i]) {
                if (pair != null) {
                    return null; // more than one argument differs: the difference is this operation's
                }
                pair = new Term[] {x[i], y[i]};
            }
        }
        return pair;
    }

    /** What {@code t} is: a read in another frame (per axis), an operation, or a leaf, and where it is defined. */
    static String describe(Term t) {
        String key = t.leafKey();
        String kind;
        if (key.startsWith("al(")) {
            kind = "a read of " + t.sources()[0].text() + " " + alignment(key.substring(key.indexOf(';') + 1, key.length() - 1));
        } else if (t.opName() != null) {
            kind = "the operation " + t.opName();
        } else if (t.flatOp() != null) {
            kind = "a " + t.flatOp() + " of " + t.operands().distinct().size() + " distinct operands";
        } else {
            kind = "the value " + t.text();
        }
        return kind + " defined on " + domain(t);
    }

    /** The per-axis alignment of a read ({@link Align}'s key: {@code s} shift, {@code b} broadcast, {@code c} constant, {@code n} new, {@code x} symbolic). */
    private static String alignment(String spec) {
        List<String> axes = new ArrayList<>();
        String[] parts = spec.split(";");
        for (int a = 0; a < parts.length; a++) {
            String p = parts[a];
            if (p.isEmpty()) {
                continue;
            }
            axes.add("axis " + a + " " + switch (p.charAt(0)) {
                case 's' -> p.equals("s0") ? "in place" : "shifted by " + p.substring(1);
                case 'b' -> "broadcast from position " + p.substring(1);
                case 'c' -> "constant";
                case 'n' -> "a new axis";
                default -> "at a symbolic distance " + p.substring(1);
            });
        }
        return "(" + String.join(", ", axes) + ")";
    }

    private static String domain(Term t) {
        StringBuilder sb = new StringBuilder();
        for (int a = 0; a < t.rank(); a++) {
            sb.append(a == 0 ? "" : " x ");
            sb.append(t.bounded(a) ? "[" + t.lo()[a] + ", " + t.hi()[a] + ")" : "every position");
        }
        return sb.isEmpty() ? "a scalar" : sb.toString();
    }
}
