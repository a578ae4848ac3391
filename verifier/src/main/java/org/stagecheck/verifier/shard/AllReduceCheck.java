package org.stagecheck.verifier.shard;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.Findings;
import org.stagecheck.verifier.ProgramIndex;

/**
 * The UnreducedShard rules of one {@code AllReduce} (brief, "Certificates"): its combine is the
 * fold of its pool over its operand count; a sum all-reduce takes no full value (it would be
 * counted once per chip); every input is a partial of the tensor the stage names, made with the
 * stage's pool, on a chip of its own (chip = the input buffer's site; the membership is derived,
 * never read from a field); the inputs' slices are disjoint and cover {@code [0, extent)} of the
 * logical tensor's contraction axis exactly. Every output is then full.
 *
 * <p>A max or min all-reduce of full values is allowed: those pools are idempotent, so a
 * replicated value reduced N times is itself.
 */
final class AllReduceCheck {
    private final ProgramIndex index;
    private final ShardDecls decls;
    private final Findings findings;
    private final Map<String, Fact> facts;
    private final int stageIndex;
    private final Stage stage;
    private final StageKind.AllReduce op;

    AllReduceCheck(ProgramIndex index, ShardDecls decls, Findings findings, Map<String, Fact> facts,
                   int stageIndex, Stage stage, StageKind.AllReduce op) {
        this.index = index;
        this.decls = decls;
        this.findings = findings;
        this.facts = facts;
        this.stageIndex = stageIndex;
        this.stage = stage;
        this.op = op;
    }

    Fact run() {
        List<String> ins = stage.ins();
        if (!ins.isEmpty()) {
            Expr canonical = op.pool().fold(ins.size());
            if (!op.combine().expr().equals(canonical)) {
                report(Code.ALLREDUCE_COMBINE, "/kind/combine", null,
                        "The combine " + Expr.print(op.combine().expr()) + " is not the " + op.pool().jsonName() + " fold of " + ins.size()
                                + " operands, " + Expr.print(canonical) + ".", trailOfInputs());
            }
        }
        boolean tainted = false;
        boolean problem = false;
        Map<Integer, Integer> portByChip = new HashMap<>();
        List<Fact.Partial> partials = new ArrayList<>();
        for (int p = 0; p < ins.size(); p++) {
            String b = ins.get(p);
            Fact f = facts.get(b);
            BufferDecl decl = index.buffer(b);
            if (decl != null) {
                Integer other = portByChip.putIfAbsent(decl.site().chip(), p);
                if (other != null) {
                    report(Code.ALLREDUCE_SAME_CHIP, "/ins/" + p, b,
                            "Inputs " + other + " ('" + ins.get(other) + "') and " + p + " ('" + b + "') both live on chip " + decl.site().chip()
                                    + "; an all-reduce takes one partial per chip.", trailOfInputs());
                    problem = true;
                }
            }
            switch (f) {
                case Fact.Tainted t -> tainted = true;
                case null -> tainted = true; // unwritten: the ordering check reports it
                case Fact.Partial partial -> {
                    if (!partial.logical().equals(op.tensor())) {
                        report(Code.ALLREDUCE_MIXED, "/ins/" + p, b,
                                "Input " + p + " ('" + b + "') holds the " + partial.describe() + ", but this all-reduce combines partials of "
                                        + op.tensor() + ".", partial.origin() == null ? List.of() : partial.origin().trail());
                        problem = true;
                    } else if (partial.pool() != op.pool()) {
                        report(Code.ALLREDUCE_POOL, "/kind/pool", b,
                                "Input " + p + " ('" + b + "') holds a " + partial.describe() + ", which a " + op.pool().jsonName()
                                        + " all-reduce does not complete.", partial.origin() == null ? List.of() : partial.origin().trail());
                        problem = true;
                    } else {
                        partials.add(partial);
                    }
                }
                case Fact.Full full -> {
                    if (op.pool() == ReducePool.SUM) {
                        report(Code.REDUCE_OF_FULL, "/ins/" + p, b,
                                "Input " + p + " ('" + b + "') holds a full value, which a sum all-reduce counts once per chip.", List.of());
                        problem = true;
                    }
                }
                case Fact.Shard s -> {
                    // unlike a full value, a shard is not the same on every chip: max or min of
                    // different slices is as meaningless as their sum
                    report(Code.REDUCE_OF_FULL, "/ins/" + p, b,
                            "Input " + p + " ('" + b + "') holds a complete local value (" + s.slices() + " of " + s.logical()
                                    + " along an axis that was not contracted), not a partial; a " + op.pool().jsonName()
                                    + " all-reduce would combine unrelated values.", List.of());
                    problem = true;
                }
            }
        }
        if (!tainted && !problem && !partials.isEmpty()) {
            sameView(partials);
            coverage(partials);
        }
        return Fact.FULL;
    }

    /**
     * Every input is the same function of its chip's slices ({@link View}): the all-reduce adds
     * element i of each input, which is element i of the unsplit value only when no chip
     * transposed, sliced, reloaded or scaled its partial differently.
     */
    private void sameView(List<Fact.Partial> partials) {
        View first = partials.getFirst().view();
        for (int i = 1; i < partials.size(); i++) {
            View v = partials.get(i).view();
            if (!v.equals(first)) {
                report(Code.ALLREDUCE_VIEW_MISMATCH, "/ins/" + i, stage.ins().get(i),
                        "Input " + i + " ('" + stage.ins().get(i) + "') holds its partial of " + op.tensor() + " as " + v + ", but input 0 ('"
                                + stage.ins().getFirst() + "') as " + first + ", so the all-reduce adds unrelated elements.", trailOfInputs());
                return;
            }
        }
    }

    /** Disjoint and covering: every element of the contraction axis is summed exactly once. */
    private void coverage(List<Fact.Partial> partials) {
        Slices seen = Slices.empty();
        for (int i = 0; i < partials.size(); i++) {
            Fact.Partial p = partials.get(i);
            if (seen.overlaps(p.slices())) {
                report(Code.ALLREDUCE_OVERLAP, "/ins/" + i, stage.ins().get(i),
                        "Input " + i + " ('" + stage.ins().get(i) + "') holds " + p.slices() + " of " + p.logical()
                                + ", which overlaps the slices of the inputs before it (" + seen + "), so the overlap is counted twice.", trailOfInputs());
            }
            seen = seen.union(p.slices());
        }
        long extent = decls.extent(op.tensor());
        if (extent < 0) {
            return; // partials can only exist for declared logical tensors
        }
        Slices gaps = seen.gapsIn(extent);
        if (!gaps.isEmpty()) {
            report(Code.ALLREDUCE_GAP, "/ins", null,
                    "The inputs cover " + seen + " of " + op.tensor() + "'s contraction axis of " + extent + ", leaving " + gaps + " unsummed.",
                    trailOfInputs());
        }
    }

    /** One line per input: what it holds and where it came from (the last step of its trail). */
    private List<String> trailOfInputs() {
        List<String> out = new ArrayList<>();
        for (int p = 0; p < stage.ins().size(); p++) {
            String b = stage.ins().get(p);
            Fact f = facts.get(b);
            BufferDecl decl = index.buffer(b);
            String chip = decl == null ? "?" : Integer.toString(decl.site().chip());
            String what = switch (f) {
                case Fact.Partial partial -> "the " + partial.describe() + (partial.origin() == null ? "" : ", from " + partial.origin().describe());
                case Fact.Shard s -> "a shard holding " + s.slices() + " of " + s.logical();
                case Fact.Full full -> "a full value";
                case Fact.Tainted t -> "a value already reported";
                case null -> "nothing (unwritten)";
            };
            out.add("in" + p + " '" + b + "' on chip " + chip + " holds " + what);
        }
        return out;
    }

    private void report(Code code, String field, String buffer, String message, List<String> trail) {
        findings.atStage(code, stageIndex, stage, field, buffer, message, trail);
    }
}
