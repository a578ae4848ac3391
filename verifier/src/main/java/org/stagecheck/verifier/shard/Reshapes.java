package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.List;

/**
 * How a row-major reshape maps a window (docs/verifier.md, "Layout ops"). The non-unit axes of
 * the input and output are grouped into runs with equal products; a run of one axis to one, one
 * to several (a split, e.g. hidden into heads x head-dim) or several to one (a merge) maps a
 * window to a window when the window lines up with the new axes: a split needs the window to
 * start and end on a multiple of the inner extent; a merge needs the inner axes held whole. Unit
 * axes dropped name their position in the term; unit axes added start at 0.
 */
final class Reshapes {

    /** One run: input axes {@code in} become output axes {@code out}. */
    private record Run(List<Integer> in, List<Integer> out) {}

    /** A window-preserving reshape of window {@code from} into {@code outExt}. */
    static final class Plan {
        private final Region from;
        private final long[] outExt;
        private final List<Run> runs;
        private final String key;
        private final Region region;

        private Plan(Region from, long[] outExt, List<Run> runs) {
            this.from = from;
            this.outExt = outExt;
            this.runs = runs;
            Sym[] o = new Sym[outExt.length];
            java.util.Arrays.fill(o, Sym.ZERO);
            StringBuilder k = new StringBuilder();
            for (Run run : runs) {
                k.append(run.in()).append("->").append(run.out());
                if (run.in().size() == 1) {
                    long inner = 1;
                    for (int j = 1; j < run.out().size(); j++) {
                        inner *= outExt[run.out().get(j)];
                        k.append(':').append(outExt[run.out().get(j)]);
                    }
                    Sym s = from.origin(run.in().getFirst());
                    o[run.out().getFirst()] = run.out().size() == 1 ? s : Sym.of(s.constant() / inner);
                } else {
                    long inner = 1;
                    for (int j = 1; j < run.in().size(); j++) {
                        inner *= from.extent(run.in().get(j));
                        k.append(':').append(from.extent(run.in().get(j)));
                    }
                    o[run.out().getFirst()] = Sym.of(from.origin(run.in().getFirst()).constant() * inner);
                }
                k.append(';');
            }
            k.append("drop");
            for (int a = 0; a < from.rank(); a++) {
                if (from.extent(a) == 1 && !inRuns(a)) {
                    k.append(',').append(a).append('@').append(from.origin(a).key());
                }
            }
            k.append(";rank").append(outExt.length);
            this.key = k.toString();
            this.region = new Region(o, outExt);
        }

        private boolean inRuns(int axis) {
            for (Run r : runs) {
                if (r.in().contains(axis)) {
                    return true;
                }
            }
            return false;
        }

        Region region() {
            return region;
        }

        /** Whether term {@code t}'s domain lines up with the runs (merged inner axes whole from 0). */
        boolean fits(Term t) {
            if (t.rank() != from.rank()) {
                return false;
            }
            for (Run run : runs) {
                for (int j = 1; j < run.in().size(); j++) {
                    int a = run.in().get(j);
                    if (!t.spans(a, Sym.ZERO, from.extent(a)) || !from.origin(a).equals(Sym.ZERO)) {
                        return false;
                    }
                }
            }
            return true;
        }

        Term apply(Term t, Terms terms) {
            long[] lo = new long[outExt.length];
            long[] hi = new long[outExt.length];
            for (int a = 0; a < outExt.length; a++) {
                lo[a] = 0;
                hi[a] = 1;
            }
            for (Run run : runs) {
                int a = run.in().getFirst();
                if (run.in().size() == 1) {
                    long inner = 1;
                    for (int j = 1; j < run.out().size(); j++) {
                        inner *= outExt[run.out().get(j)];
                        lo[run.out().get(j)] = 0;
                        hi[run.out().get(j)] = outExt[run.out().get(j)];
                    }
                    boolean divides = t.bounded(a) && t.lo()[a] % inner == 0 && t.hi()[a] % inner == 0;
                    lo[run.out().getFirst()] = divides ? t.lo()[a] / inner : Long.MIN_VALUE;
                    hi[run.out().getFirst()] = divides ? t.hi()[a] / inner : Long.MAX_VALUE;
                } else {
                    long inner = 1;
                    for (int j = 1; j < run.in().size(); j++) {
                        inner *= from.extent(run.in().get(j));
                    }
                    boolean bounded = t.bounded(a);
                    lo[run.out().getFirst()] = bounded ? t.lo()[a] * inner : Long.MIN_VALUE;
                    hi[run.out().getFirst()] = bounded ? t.hi()[a] * inner : Long.MAX_VALUE;
                }
            }
            return terms.of("rs(" + t.id() + ";" + key + ")", () -> "reshape(" + t.text() + ")", t.label(), lo, hi, t);
        }
    }

    /** The plan for reshaping window {@code r} into {@code outExt}, or null when it does not map a window to a window. */
    static Plan plan(Region r, long[] outExt) {
        List<Integer> ins = new ArrayList<>();
        for (int a = 0; a < r.rank(); a++) {
            if (r.extent(a) != 1) {
                ins.add(a);
            }
        }
        List<Integer> outs = new ArrayList<>();
        for (int a = 0; a < outExt.length; a++) {
            if (outExt[a] != 1) {
                outs.add(a);
            }
        }
        List<Run> runs = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < ins.size() || j < outs.size()) {
            if (i >= ins.size() || j >= outs.size()) {
                return null;
            }
            List<Integer> ri = new ArrayList<>(List.of(ins.get(i)));
            List<Integer> ro = new ArrayList<>(List.of(outs.get(j)));
            long pi = r.extent(ins.get(i++));
            long po = outExt[outs.get(j++)];
            while (pi != po) {
                if (pi < po) {
                    if (i >= ins.size()) {
                        return null;
                    }
                    ri.add(ins.get(i));
                    pi *= r.extent(ins.get(i++));
                } else {
                    if (j >= outs.size()) {
                        return null;
                    }
                    ro.add(outs.get(j));
                    po *= outExt[outs.get(j++)];
                }
            }
            if (ri.size() > 1 && ro.size() > 1) {
                return null;
            }
            if (ro.size() > 1) {
                long inner = 1;
                for (int k = 1; k < ro.size(); k++) {
                    inner *= outExt[ro.get(k)];
                }
                Sym s = r.origin(ri.getFirst());
                if (!s.isConstant() || s.constant() % inner != 0) {
                    return null;
                }
            }
            if (ri.size() > 1 && !r.origin(ri.getFirst()).isConstant()) {
                return null;
            }
            runs.add(new Run(ri, ro));
        }
        for (int k = 0; k < runs.size(); k++) {
            runs.set(k, withUnitAxis(runs.get(k), r, outExt));
        }
        return new Plan(r, outExt, runs);
    }

    /**
     * One axis to one, where the side with more unit axes just before it gains one: a split of the
     * axis into (unit, whole) (one head of [rows, heads*dim] as [rows, 1, dim]), or the merge back.
     * Read that way the unit axis carries the window's position (which head), the same on every
     * chip that holds one head, instead of the position landing in the head's own dimension.
     */
    private static Run withUnitAxis(Run run, Region r, long[] outExt) {
        if (run.in().size() != 1 || run.out().size() != 1) {
            return run;
        }
        int a = run.in().getFirst();
        int b = run.out().getFirst();
        int unitsIn = 0;
        while (a - unitsIn - 1 >= 0 && r.extent(a - unitsIn - 1) == 1) {
            unitsIn++;
        }
        int unitsOut = 0;
        while (b - unitsOut - 1 >= 0 && outExt[b - unitsOut - 1] == 1) {
            unitsOut++;
        }
        Sym o = r.origin(a);
        if (unitsOut > unitsIn && o.isConstant() && o.constant() % r.extent(a) == 0) {
            return new Run(List.of(a), List.of(b - 1, b));
        }
        if (unitsIn > unitsOut && r.origin(a - 1).isConstant() && o.equals(Sym.ZERO)) {
            return new Run(List.of(a - 1, a), List.of(b));
        }
        return run;
    }

    private Reshapes() {}
}
