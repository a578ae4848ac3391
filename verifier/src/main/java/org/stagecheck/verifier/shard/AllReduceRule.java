package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.verifier.Code;

/**
 * The transfer rule of {@code AllReduce} (docs/verifier.md, "All-reduce"). Every input holds the
 * same region (the op combines element i of each). Each input is a set of summands: a partial's
 * families, or a full value as one whole family. Under a sum, every slice of every family must be
 * held by exactly one input (a slice held twice is counted twice, a whole value on two chips is
 * added twice); under max or min a slice may be held several times (idempotent). When every
 * family is complete the output is the full value on every chip; when some are not and the
 * members are not the whole machine, it is the partial over the union (a level of a hierarchical
 * all-reduce); across the whole machine an incomplete family is a gap. At least one input must be
 * a partial: an all-reduce of full values only completes nothing.
 */
final class AllReduceRule {
    private final ShardState st;
    private final ExprRules exprs;
    private ReducePool foldPool;
    private int foldN;
    private Expr fold;

    AllReduceRule(ShardState st, ExprRules exprs) {
        this.st = st;
        this.exprs = exprs;
    }

    Val apply(StageKind.AllReduce op) {
        List<String> ins = st.stage.ins();
        if (ins.isEmpty()) {
            return Val.TAINTED;
        }
        checkCombine(op, ins.size());
        Map<Integer, Integer> portByChip = new LinkedHashMap<>();
        List<Val> vals = new ArrayList<>();
        boolean tainted = false;
        for (int p = 0; p < ins.size(); p++) {
            Val v = st.bake(st.value(ins.get(p)));
            vals.add(v);
            tainted |= v == null || v instanceof Val.Tainted;
            int chip = st.chipOf(ins.get(p));
            if (chip >= 0 && portByChip.putIfAbsent(chip, p) != null) {
                tainted = true; // the validator reports two inputs on one chip (ALLREDUCE_MEMBERS)
            }
        }
        if (tainted) {
            return Val.TAINTED;
        }
        if (op.pool() != ReducePool.SUM) {
            for (int p = 0; p < vals.size(); p++) {
                // exp(A(m_c)) factored with a rescale factor is also the max (min) partial of exp(A(M)) that it is
                ExprRules.Lin view = vals.get(p) instanceof Val.Exact e ? exprs.monotone().extremeView(e.term(), op.pool()) : null;
                if (view != null) {
                    vals.set(p, new Val.Partial(view.pool(), view.families(), ((Val.Exact) vals.get(p)).region(), view.origin()));
                }
            }
        }
        Region region = ExprRules.regionOf(vals.getFirst());
        boolean anyPartial = false;
        for (int p = 0; p < vals.size(); p++) {
            Val v = vals.get(p);
            if (!ExprRules.regionOf(v).equals(region)) {
                return fail(Code.ALLREDUCE_VIEW_MISMATCH, p, "Input " + p + " ('" + ins.get(p) + "') holds elements " + ExprRules.regionOf(v)
                        + " of its value while input 0 holds " + region + ", so the all-reduce would combine unrelated elements.", vals);
            }
            if (v instanceof Val.Partial sum && Gathers.zeroPaddedUnder(sum, op.pool()) instanceof Val.Partial gathered) {
                vals.set(p, gathered);
                v = gathered;
            }
            if (v instanceof Val.Partial pa) {
                anyPartial = true;
                if (pa.pool() != op.pool()) {
                    return fail(Code.ALLREDUCE_POOL, p, "Input " + p + " ('" + ins.get(p) + "') holds a " + pa.describe() + ", made with "
                            + pa.pool().jsonName() + ", but this all-reduce combines with " + op.pool().jsonName() + ".", vals);
                }
            }
        }
        if (!anyPartial) {
            boolean same = true;
            for (Val v : vals) {
                same &= ((Val.Exact) v).term().id() == ((Val.Exact) vals.getFirst()).term().id();
            }
            if (same && op.pool() != ReducePool.SUM) {
                return vals.getFirst(); // max/min of one value on every chip is that value
            }
            // the same value on every chip: no chip's earlier demotion made it (the chips agree), the reduce itself is the finding
            return fail(Code.REDUCE_OF_FULL, 0, "Every input of this " + op.pool().jsonName() + " all-reduce is a full value, not a partial: "
                    + (same ? "the same value is counted once per chip." : "the chips hold different values and no contraction is completed."), vals, !same);
        }
        // every summand: which inputs hold which slices
        Map<Integer, Family> union = new TreeMap<>();
        Map<Integer, List<Integer>> holders = new LinkedHashMap<>();
        for (int p = 0; p < vals.size(); p++) {
            for (Family f : summands(vals.get(p))) {
                Family had = union.get(f.key());
                holders.computeIfAbsent(f.key(), k -> new ArrayList<>()).add(p);
                if (had == null) {
                    union.put(f.key(), f);
                    continue;
                }
                if (op.pool() == ReducePool.SUM && had.slices().overlaps(f.slices())) {
                    if (f.whole()) {
                        return fail(Code.PARTIAL_PLUS_FULL, p, "The full value " + f.term() + " is added to the partial on "
                                + holders.get(f.key()).size() + " chips before the reduce, so it is counted once per chip that added it.", vals);
                    }
                    return fail(Code.ALLREDUCE_OVERLAP, p, "Inputs " + holders.get(f.key()) + " all hold slices of " + f.term().label() + " that overlap ("
                            + had.slices() + " and " + f.slices() + "), so a slice is counted twice.", vals);
                }
                union.put(f.key(), had.withSlices(had.slices().union(f.slices())));
            }
        }
        boolean complete = true;
        for (Family f : union.values()) {
            complete &= f.complete();
        }
        if (complete) {
            List<Term> parts = new ArrayList<>();
            for (Family f : union.values()) {
                parts.add(f.term());
            }
            Term full = parts.size() == 1 ? parts.getFirst() : exprs.op(op.pool().jsonName(), parts);
            return new Val.Exact(full, region);
        }
        if (portByChip.size() >= st.index.program().machine().chips()) {
            for (Family f : union.values()) {
                if (!f.complete()) {
                    boolean sameSets = true;
                    for (Val v : vals) {
                        sameSets &= v instanceof Val.Partial pa && pa.families().keySet().equals(union.keySet());
                    }
                    Code code = sameSets ? Code.ALLREDUCE_GAP : Code.ALLREDUCE_VIEW_MISMATCH;
                    String why = sameSets
                            ? "the inputs hold " + f.slices() + " of " + f.term().label() + " but the contraction runs over [" + f.lo() + "," + f.hi()
                                    + "), so " + f.slices().gapsIn(f.hi()) + " is missing."
                            : "the chips hold slices of different values (" + describeAll(vals) + "), so no contraction is completed.";
                    return fail(code, 0, "This all-reduce spans every chip, but " + why, vals);
                }
            }
        }
        SortedMap<Integer, Family> fams = new TreeMap<>(union);
        Val.Partial first = firstPartial(vals);
        // a level of a hierarchical all-reduce: fine if a later all-reduce completes it, a gap if the partial is used as it is
        StringBuilder gaps = new StringBuilder();
        for (Family f : union.values()) {
            if (!f.complete()) {
                gaps.append(gaps.isEmpty() ? "" : "; ").append(f.slices().gapsIn(f.hi())).append(" of ").append(f.term().label());
            }
        }
        List<String> trail = new ArrayList<>();
        for (int p = 0; p < vals.size(); p++) {
            trail.add("input " + p + " '" + ins.get(p) + "' holds " + (vals.get(p) instanceof Val.Partial pa ? "a " + pa.describe() : "a full value"));
        }
        Demotion gap = new Demotion(Code.ALLREDUCE_GAP, st.stageIndex, st.stage, "/ins", ins.getFirst(),
                "This all-reduce over " + portByChip.size() + " of " + st.index.program().machine().chips() + " chips leaves " + gaps
                        + " uncovered, and no later all-reduce completes the partial before it is used.", trail);
        Origin made = new Origin(st.stageIndex, st.stage.id(), "all-reduce over " + portByChip.size() + " chips keeps a partial", first.origin(), gap);
        return new Val.Partial(op.pool(), fams, region, made);
    }

    private static List<Family> summands(Val v) {
        return switch (v) {
            case Val.Partial p -> new ArrayList<>(p.families().values());
            case Val.Exact e -> List.of(Family.whole(e.term()));
            case Val.Tainted t -> List.of();
        };
    }

    private static Val.Partial firstPartial(List<Val> vals) {
        for (Val v : vals) {
            if (v instanceof Val.Partial p) {
                return p;
            }
        }
        throw new IllegalStateException("no partial input");
    }

    private static String describeAll(List<Val> vals) {
        List<String> out = new ArrayList<>();
        for (Val v : vals) {
            out.add(switch (v) {
                case Val.Partial p -> p.describe();
                case Val.Exact e -> "full " + e.term();
                case Val.Tainted t -> "?";
            });
        }
        return String.join("; ", out);
    }

    private Val fail(Code code, int port, String message, List<Val> vals) {
        return fail(code, port, message, vals, true);
    }

    private Val fail(Code code, int port, String message, List<Val> vals, boolean blameDemotions) {
        List<Term> involved = new ArrayList<>();
        for (Val v : vals) {
            if (v instanceof Val.Exact e) {
                involved.add(e.term()); // an input that is no partial: why not is the finding (a partial's own terms are not)
            } else if (v instanceof Val.Partial p) {
                // a summand added whole on this chip only, such as a partial used as a value (a chip's routed experts
                // through tanh, then the shared expert added): chip-specific, so its demotion may be the finding
                p.families().values().stream().filter(f -> f.whole() && !onEveryInput(f, vals)).forEach(f -> involved.add(f.term()));
            }
        }
        List<Term> rescaled = new ArrayList<>();
        for (Val v : vals) {
            if (v instanceof Val.Partial p) {
                // a partial still carrying a chip's rescale factor (exp(x - m_c) never multiplied by exp(m_c - M)):
                // the exp that took the local maximum is the finding (docs/verifier.md, "Monotone functions and rescaled maxima")
                p.families().values().stream().map(f -> st.ops.rescales().rescaleFactorOf(f.term())).filter(java.util.Objects::nonNull).forEach(rescaled::add);
            }
        }
        if (code != Code.ALLREDUCE_POOL && st.reportDemotions(rescaled, null)) {
            return Val.TAINTED;
        }
        if (blameDemotions && code != Code.ALLREDUCE_POOL && st.reportDemotions(involved, null)) {
            return Val.TAINTED; // a chip used its partial as a plain value earlier: that is the finding
        }
        List<String> trail = new ArrayList<>();
        if (vals.get(port) instanceof Val.Partial named && named.origin() != null) {
            // how the input the finding names came to be, then what every input holds
            trail.addAll(named.origin().trail());
            trail.add("#" + st.stageIndex + " " + st.stage.id() + ": all-reduce takes input " + port + " '" + st.stage.ins().get(port) + "'");
        }
        for (int p = 0; p < vals.size(); p++) {
            Val v = vals.get(p);
            String what = switch (v) {
                case Val.Partial pa -> "a " + pa.describe();
                case Val.Exact e -> "the full value " + e.term();
                case Val.Tainted t -> "a value downstream of an earlier finding";
            };
            Origin o = v instanceof Val.Partial pa ? pa.origin() : null;
            trail.add("input " + p + " '" + st.stage.ins().get(p) + "' holds " + what + (o == null ? "" : " (from " + o.describe() + ")"));
        }
        st.findings.atStage(code, st.stageIndex, st.stage, "/ins/" + port, st.stage.ins().get(port), message, trail);
        return Val.TAINTED;
    }

    private static boolean onEveryInput(Family f, List<Val> vals) {
        for (Val v : vals) {
            if (!(v instanceof Val.Partial p) || !p.families().containsKey(f.key())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The combine must be the pool's fold: every input exactly once under the pool's function, in
     * any order or grouping (a sum in another order is still the sum; it only changes the rounding
     * order, which the checker notes and does not refuse).
     */
    private void checkCombine(StageKind.AllReduce op, int n) {
        Expr e = op.combine().expr();
        if (op.pool() != foldPool || n != foldN) {
            foldPool = op.pool();
            foldN = n;
            fold = op.pool().fold(n); // the same for every all-reduce of a layer stack: built once
        }
        if (e.equals(fold)) {
            return;
        }
        boolean[] seen = new boolean[n];
        if (!foldOf(e, op.pool(), seen) || !all(seen)) {
            st.findings.atStage(Code.ALLREDUCE_COMBINE, st.stageIndex, st.stage, "/kind/combine", null,
                    "The combine " + Expr.print(e) + " is not a " + op.pool().jsonName() + " of its " + n + " operands, each once (e.g. "
                            + Expr.print(op.pool().fold(n)) + ").");
        } else {
            st.notes.add("#" + st.stageIndex + " " + st.stage.id() + ": the combine " + Expr.print(e)
                    + " folds the operands in another order than the reference's " + Expr.print(op.pool().fold(n)) + "; the result may differ by rounding.");
        }
    }

    private static boolean foldOf(Expr e, ReducePool pool, boolean[] seen) {
        return switch (e) {
            case Expr.In in -> in.index() < seen.length && !seen[in.index()] && (seen[in.index()] = true);
            case Expr.Apply a -> a.fn() == pool.fn() && foldOf(a.args().get(0), pool, seen) && foldOf(a.args().get(1), pool, seen);
            case Expr.FloatConst c -> false;
            case Expr.IntConst c -> false;
            case Expr.ParamRef p -> false;
            case Expr.Index ix -> false;
            case Expr.Cast c -> false;
        };
    }

    private static boolean all(boolean[] seen) {
        for (boolean b : seen) {
            if (!b) {
                return false;
            }
        }
        return true;
    }
}
