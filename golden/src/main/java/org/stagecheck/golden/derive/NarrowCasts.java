package org.stagecheck.golden.derive;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * The program the {@link Ensemble} evaluates: each cast to a dtype narrower than f32 inside a
 * Generic expression becomes a stage of its own, which computes the cast's argument into a new
 * buffer of that dtype (at the stage's output shape and site) that the original expression reads
 * instead of the cast. This is the same value (docs/semantics.md: the argument is computed in f32
 * and rounded once to the dtype; a stored narrow value widens exactly when read), but the
 * rounding now happens where the ensemble rounds narrow outputs: the nominal and every sample
 * round it to nearest even, and elements near a rounding boundary are explored both ways, so a
 * backend that truncates at an inner cast is compared exactly there, not within a band of the
 * dtype's unit roundoff.
 *
 * <p>A cast whose argument is the same for every element (no input, no index) is left in place.
 * Only Generic stages are split (an all-reduce's combine and a Scalar's body are left as they are).
 */
final class NarrowCasts {
    private NarrowCasts() {
    }

    static Program split(Program program) {
        Set<String> names = new HashSet<>();
        program.buffers().forEach(b -> names.add(b.name()));
        program.stages().forEach(s -> names.add(s.id()));
        List<Stage> stages = new ArrayList<>();
        List<BufferDecl> buffers = new ArrayList<>(program.buffers());
        boolean changed = false;
        for (Stage st : program.stages()) {
            if (st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Generic g && hasNarrowCast(g.expr())) {
                BufferDecl out = program.buffersByName().get(st.outs().getFirst());
                Splitter s = new Splitter(st, out, names, stages, buffers);
                Expr rewritten = s.rewrite(g.expr());
                if (s.added > 0) {
                    changed = true;
                    stages.add(new Stage(st.id(), st.site(), s.ins, st.outs(), new StageKind.Compute(new ComputeOp.Generic(rewritten))));
                    continue;
                }
            }
            stages.add(st);
        }
        return changed ? program.withBuffers(buffers).withStages(stages) : program;
    }

    private static boolean narrow(DType d) {
        return d.isFloating() && d != DType.F32;
    }

    private static boolean hasNarrowCast(Expr e) {
        return switch (e) {
            case Expr.Cast c -> narrow(c.dtype()) || hasNarrowCast(c.arg());
            case Expr.Apply a -> a.args().stream().anyMatch(NarrowCasts::hasNarrowCast);
            case Expr.In i -> false;
            case Expr.FloatConst f -> false;
            case Expr.IntConst i -> false;
            case Expr.ParamRef p -> false;
            case Expr.Index x -> false;
        };
    }

    /** Whether {@code e} may differ from element to element (reads an input or an index). */
    private static boolean varies(Expr e) {
        return switch (e) {
            case Expr.Cast c -> varies(c.arg());
            case Expr.Apply a -> a.args().stream().anyMatch(NarrowCasts::varies);
            case Expr.In i -> true;
            case Expr.Index x -> true;
            case Expr.FloatConst f -> false;
            case Expr.IntConst i -> false;
            case Expr.ParamRef p -> false;
        };
    }

    /** Rewrites one stage's expression, innermost casts first, adding a stage and a buffer per narrow cast. */
    private static final class Splitter {
        private final Stage stage;
        private final BufferDecl out;
        private final Set<String> names;
        private final List<Stage> stages;
        private final List<BufferDecl> buffers;
        final List<String> ins;
        int added;

        Splitter(Stage stage, BufferDecl out, Set<String> names, List<Stage> stages, List<BufferDecl> buffers) {
            this.stage = stage;
            this.out = out;
            this.names = names;
            this.stages = stages;
            this.buffers = buffers;
            this.ins = new ArrayList<>(stage.ins());
        }

        Expr rewrite(Expr e) {
            return switch (e) {
                case Expr.Cast c -> {
                    Expr arg = rewrite(c.arg());
                    if (!narrow(c.dtype()) || !varies(arg)) {
                        yield new Expr.Cast(c.dtype(), arg);
                    }
                    String buffer = fresh(out.name() + "~" + c.dtype().jsonName());
                    buffers.add(new BufferDecl(buffer, c.dtype(), out.shape(), out.site()));
                    // the argument over the stage's inputs so far, as f32 (an INT argument widens as Cast does)
                    stages.add(new Stage(fresh(stage.id() + "~" + c.dtype().jsonName()), stage.site(), List.copyOf(ins), List.of(buffer),
                            new StageKind.Compute(new ComputeOp.Generic(new Expr.Cast(DType.F32, arg)))));
                    ins.add(buffer);
                    added++;
                    yield new Expr.Cast(DType.F32, new Expr.In(ins.size() - 1));
                }
                case Expr.Apply a -> {
                    List<Expr> args = new ArrayList<>();
                    for (Expr x : a.args()) {
                        args.add(rewrite(x));
                    }
                    yield new Expr.Apply(a.fn(), args);
                }
                case Expr.In i -> i;
                case Expr.FloatConst f -> f;
                case Expr.IntConst i -> i;
                case Expr.ParamRef p -> p;
                case Expr.Index x -> x;
            };
        }

        private String fresh(String base) {
            String n = base;
            for (int k = 2; !names.add(n); k++) {
                n = base + k;
            }
            return n;
        }
    }
}
