package org.stagecheck.golden.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.StageFault;
import org.stagecheck.interp.Stepper;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * A fake backend with one planted bug: the reference evaluator run stage by stage, except that the
 * stages chosen by a predicate, among those the bug fits, are evaluated the buggy way, by re-running
 * that stage's math with the bug, as a backend whose code generator has the bug would. Every other
 * stage is the reference's own evaluator, so any divergence starts at a planted stage.
 *
 * <p>Shared by the tests of golden's debugging tools ({@link #at}: one named stage, to be located)
 * and of the minimiser ({@link #everywhere}: every stage the bug fits, as the program shrinks).
 */
public final class PlantedBackend implements Backend {
    /** The bugs a backend can have planted. */
    public enum Bug {
        /** A Slice reads one element further along an axis (or one back, at the end). */
        SLICE_OFF_BY_ONE,
        /** A Generic's first add is a sub (or sub an add). */
        GENERIC_WRONG_SIGN,
        /** An AllReduce folds all but its last input. */
        ALLREDUCE_DROPPED_MEMBER,
        /** A bf16 output rounded by truncating the f32 value instead of to nearest even. */
        BF16_TRUNCATION,
        /** A MatMul accumulates over k descending instead of ascending (rounding, not a bug). */
        MATMUL_K_REVERSED,
        /** An RMS norm's epsilon 100 times too large (1e-5 read as 1e-3): the constant added under an rsqrt. */
        NORM_EPSILON,
        /** A residual add {@code in0 + in1} that adds the residual stream {@code in0} twice. */
        RESIDUAL_TWICE,
        /** A MatMul's result multiplied by 1.25, as a scale folded into the wrong product (the logits scaled). */
        MATMUL_SCALED
    }

    /**
     * The shortest contraction a MatMul needs for {@link Bug#MATMUL_K_REVERSED} to fit it when the
     * bug is planted everywhere: with k = 1 there is no order to reverse.
     */
    private static final int ANY_CONTRACTION = 2;

    /**
     * The shortest contraction of the MatMuls {@link #targets} offers for the reversed loop, as
     * golden's debugging tests have always chosen them (they then plant the bug at the first
     * target where it changes the run's outputs).
     */
    private static final int TARGET_CONTRACTION = 8;

    private final Bug bug;
    private final int minContraction;
    private final Predicate<Stage> chosen;
    private final Rounding elsewhere;

    private PlantedBackend(Bug bug, int minContraction, Predicate<Stage> chosen, Rounding elsewhere) {
        this.bug = bug;
        this.minContraction = minContraction;
        this.chosen = chosen;
        this.elsewhere = elsewhere;
    }

    /** The bug planted only in the stage with id {@code stageId} (one of {@link #targets}). */
    public static PlantedBackend at(Bug bug, String stageId) {
        return new PlantedBackend(bug, TARGET_CONTRACTION, st -> st.id().equals(stageId), Rounding.REFERENCE);
    }

    /** The bug planted in every stage it fits, as a code generator with the bug would plant it. */
    public static PlantedBackend everywhere(Bug bug) {
        return new PlantedBackend(bug, ANY_CONTRACTION, st -> true, Rounding.REFERENCE);
    }

    /** A correct backend: no bug anywhere, every stage evaluated {@code rounding}'s way. */
    public static PlantedBackend correct(Rounding rounding) {
        return new PlantedBackend(Bug.MATMUL_K_REVERSED, TARGET_CONTRACTION, st -> false, rounding);
    }

    /** This backend with the stages where no bug is planted evaluated {@code rounding}'s way instead of the reference's. */
    public PlantedBackend roundedElsewhere(Rounding rounding) {
        return new PlantedBackend(bug, minContraction, chosen, rounding);
    }

    @Override
    public String name() {
        String rounded = elsewhere == Rounding.REFERENCE ? "" : "-" + elsewhere.name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
        return "planted-" + bug.name().toLowerCase(java.util.Locale.ROOT) + rounded;
    }

    /** The ids of the stages of {@code program} that {@link #at} can plant the bug in, in reference order. */
    public static List<String> targets(Program program, Bug bug) {
        PlantedBackend probe = new PlantedBackend(bug, TARGET_CONTRACTION, st -> true, Rounding.REFERENCE);
        return program.stages().stream().filter(st -> probe.plantsIn(program, st)).map(Stage::id).toList();
    }

    /** Whether this backend evaluates stage {@code st} of {@code program} the buggy way. */
    private boolean plantsIn(Program program, Stage st) {
        return chosen.test(st) && fits(program, st);
    }

    /** Whether the bug applies to stage {@code st} of {@code program}. */
    private boolean fits(Program program, Stage st) {
        Map<String, BufferDecl> b = program.buffersByName();
        return switch (bug) {
            case SLICE_OFF_BY_ONE -> st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Slice s
                    && sliceAxis(s, b.get(st.ins().get(0)).shape(), b.get(st.outs().get(0)).shape()) >= 0;
            case GENERIC_WRONG_SIGN -> st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Generic g
                    && b.get(st.outs().get(0)).dtype().isFloating() && flipFirstSign(g.expr(), new boolean[1]) != g.expr();
            case ALLREDUCE_DROPPED_MEMBER -> st.kind() instanceof StageKind.AllReduce && st.ins().size() >= 2;
            case BF16_TRUNCATION -> st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Generic
                    && b.get(st.outs().get(0)).dtype() == DType.BF16;
            case MATMUL_K_REVERSED -> Rounding.reversible(program, st) && st.kind() instanceof StageKind.Compute c
                    && c.op() instanceof ComputeOp.MatMul m && Rounding.kOf(m, b.get(st.ins().get(0)).shape()) >= minContraction;
            case NORM_EPSILON -> st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Generic g
                    && b.get(st.outs().get(0)).dtype().isFloating() && widenEpsilon(g.expr()) != g.expr();
            case RESIDUAL_TWICE -> st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.Generic g
                    && b.get(st.outs().get(0)).dtype().isFloating()
                    && g.expr().equals(new Expr.Apply(Fn.ADD, List.of(new Expr.In(0), new Expr.In(1))));
            case MATMUL_SCALED -> st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.MatMul
                    && b.get(st.outs().get(0)).dtype().isFloating();
        };
    }

    @Override
    public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
        Map<String, List<Tensor>> traced = new LinkedHashMap<>();
        try (Stepper s = new Stepper(program, Precision.F32, params, 1)) {
            program.tensors().forEach(d -> {
                Tensor t = bound.get(d.name());
                if (t == null) {
                    s.putTensor(d.name(), Tensor.zeros(d.dtype(), d.shape()));
                } else {
                    s.putSharedTensor(d.name(), t);
                }
            });
            List<Stage> stages = program.stages();
            for (int i = 0; i < stages.size(); i++) {
                Stage st = stages.get(i);
                try {
                    if (plantsIn(program, st)) {
                        plant(program, st, s, params);
                    } else {
                        elsewhere.run(program, st, s, params);
                    }
                    if (trace) {
                        List<Tensor> outs = new ArrayList<>();
                        for (String o : st.outs()) {
                            outs.add(s.read(o));
                        }
                        traced.put(st.id(), outs);
                    }
                } catch (StageFault f) {
                    return new RunResult(s.tensors(), traced, List.of(Diagnostic.atStage(f.code().spelling(), i, st.id(), "/stages/" + i, f.buffer(),
                            f.getMessage())), st.id());
                }
            }
            return new RunResult(s.tensors(), traced, List.of(), null);
        }
    }

    private void plant(Program program, Stage st, Stepper s, Map<String, Long> params) throws StageFault {
        switch (bug) {
            case SLICE_OFF_BY_ONE -> {
                ComputeOp.Slice sl = (ComputeOp.Slice) ((StageKind.Compute) st.kind()).op();
                Shape in = s.read(st.ins().get(0)).shape();
                Shape out = s.bufferDecl(st.outs().get(0)).shape();
                int ax = sliceAxis(sl, in, out);
                List<Integer> starts = new ArrayList<>(sl.starts());
                starts.set(ax, starts.get(ax) + (starts.get(ax) + out.dim(ax) < in.dim(ax) ? 1 : -1));
                s.run(withKind(st, new StageKind.Compute(new ComputeOp.Slice(starts))));
            }
            case GENERIC_WRONG_SIGN -> {
                ComputeOp.Generic g = (ComputeOp.Generic) ((StageKind.Compute) st.kind()).op();
                s.run(withKind(st, new StageKind.Compute(new ComputeOp.Generic(flipFirstSign(g.expr(), new boolean[1])))));
            }
            case ALLREDUCE_DROPPED_MEMBER -> {
                StageKind.AllReduce a = (StageKind.AllReduce) st.kind();
                s.run(withKind(st, new StageKind.AllReduce(a.pool(), a.tensor(),
                        new ComputeOp.Generic(a.pool().fold(st.ins().size() - 1)))));
            }
            case BF16_TRUNCATION -> {
                List<BufferDecl> decls = new ArrayList<>();
                for (BufferDecl d : program.buffers()) {
                    decls.add(st.outs().contains(d.name()) ? new BufferDecl(d.name(), DType.F32, d.shape(), d.site()) : d);
                }
                try (Stepper wide = new Stepper(program.withBuffers(decls), Precision.F32, params, 1)) {
                    for (String b : st.buffersRead()) {
                        Tensor v = s.readOrNull(b);
                        if (v != null) {
                            wide.write(b, v);
                        }
                    }
                    wide.run(st);
                    for (String o : st.outs()) {
                        float[] f = wide.read(o).toFloats();
                        short[] bits = new short[f.length];
                        for (int i = 0; i < f.length; i++) {
                            bits[i] = (short) (Float.floatToRawIntBits(f[i]) >>> 16);
                        }
                        s.write(o, Tensor.wrapBits16(DType.BF16, s.bufferDecl(o).shape(), bits));
                    }
                }
            }
            case MATMUL_K_REVERSED -> Rounding.reversedMatMul(program, st, s, params);
            case NORM_EPSILON -> {
                ComputeOp.Generic g = (ComputeOp.Generic) ((StageKind.Compute) st.kind()).op();
                s.run(withKind(st, new StageKind.Compute(new ComputeOp.Generic(widenEpsilon(g.expr())))));
            }
            case RESIDUAL_TWICE -> {
                Expr twice = new Expr.Apply(Fn.ADD, List.of(new Expr.Apply(Fn.ADD, List.of(new Expr.In(0), new Expr.In(1))), new Expr.In(0)));
                s.run(withKind(st, new StageKind.Compute(new ComputeOp.Generic(twice))));
            }
            case MATMUL_SCALED -> {
                s.run(st);
                String o = st.outs().get(0);
                Tensor v = s.read(o);
                float[] f = v.toFloats();
                for (int i = 0; i < f.length; i++) {
                    f[i] *= 1.25f;
                }
                s.write(o, Tensor.fromFloats(v.dtype(), v.shape(), f));
            }
        }
    }

    private static Stage withKind(Stage st, StageKind kind) {
        return new Stage(st.id(), st.site(), st.ins(), st.outs(), kind);
    }

    private static int sliceAxis(ComputeOp.Slice s, Shape in, Shape out) {
        for (int ax = in.rank() - 1; ax >= 0; ax--) {
            if (in.dim(ax) > out.dim(ax) && out.dim(ax) > 0) {
                return ax;
            }
        }
        return -1;
    }

    /**
     * {@code e} with the constant an rsqrt adds to its argument ({@code rsqrt(ms + eps)}, an RMS
     * norm's epsilon) 100 times larger: 1e-5 read as 1e-3; {@code e} itself when it has none.
     */
    private static Expr widenEpsilon(Expr e) {
        return switch (e) {
            case Expr.Apply a when a.fn() == Fn.RSQRT && a.args().getFirst() instanceof Expr.Apply add && add.fn() == Fn.ADD
                    && add.args().stream().anyMatch(x -> x instanceof Expr.FloatConst) -> new Expr.Apply(Fn.RSQRT, List.of(
                    new Expr.Apply(Fn.ADD, add.args().stream().map(x -> x instanceof Expr.FloatConst f ? new Expr.FloatConst(f.value() * 100) : x).toList())));
            case Expr.Apply a -> {
                List<Expr> args = a.args().stream().map(PlantedBackend::widenEpsilon).toList();
                yield args.equals(a.args()) ? a : new Expr.Apply(a.fn(), args);
            }
            case Expr.Cast c -> {
                Expr y = widenEpsilon(c.arg());
                yield y == c.arg() ? c : new Expr.Cast(c.dtype(), y);
            }
            case Expr.In i -> i;
            case Expr.FloatConst f -> f;
            case Expr.IntConst i -> i;
            case Expr.ParamRef p -> p;
            case Expr.Index x -> x;
        };
    }

    /** {@code e} with its first add turned into a sub (or sub into add), preorder; {@code e} itself when it has neither. */
    private static Expr flipFirstSign(Expr e, boolean[] done) {
        return switch (e) {
            case Expr.Apply a -> {
                if (!done[0] && (a.fn() == Fn.ADD || a.fn() == Fn.SUB)) {
                    done[0] = true;
                    yield new Expr.Apply(a.fn() == Fn.ADD ? Fn.SUB : Fn.ADD, a.args());
                }
                List<Expr> args = new ArrayList<>();
                boolean changed = false;
                for (Expr x : a.args()) {
                    Expr y = flipFirstSign(x, done);
                    changed |= y != x;
                    args.add(y);
                }
                yield changed ? new Expr.Apply(a.fn(), args) : a;
            }
            case Expr.Cast c -> {
                Expr y = flipFirstSign(c.arg(), done);
                yield y == c.arg() ? c : new Expr.Cast(c.dtype(), y);
            }
            case Expr.In i -> i;
            case Expr.FloatConst f -> f;
            case Expr.IntConst i -> i;
            case Expr.ParamRef p -> p;
            case Expr.Index x -> x;
        };
    }
}
