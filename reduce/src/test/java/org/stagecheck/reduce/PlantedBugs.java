package org.stagecheck.reduce;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * Fake backends with one planted bug each: the reference interpreter run on the program as a
 * buggy code generator would have compiled it (stage ids unchanged, so traces line up).
 */
enum PlantedBugs {
    /** Every Slice reads its window one element further along its first axis that has room (else one before). */
    SLICE_OFF_BY_ONE(PlantedBugs::sliceOffByOne),
    /** Every Generic whose root is a product computes its negation. */
    WRONG_SIGN_IN_GENERIC(PlantedBugs::negateProducts),
    /** Every AllReduce folds all its inputs but the last. */
    DROPPED_ALLREDUCE_MEMBER(PlantedBugs::dropLastMember);

    private final UnaryOperator<Program> compile;

    PlantedBugs(UnaryOperator<Program> compile) {
        this.compile = compile;
    }

    Backend backend() {
        Interpreter interp = new Interpreter(RunOptions.defaults());
        String name = "buggy-" + name().toLowerCase(java.util.Locale.ROOT);
        return new Backend() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
                return interp.run(compile.apply(program), bound, params, trace);
            }
        };
    }

    private static Program eachStage(Program p, UnaryOperator<Stage> f) {
        List<Stage> out = new ArrayList<>();
        p.stages().forEach(s -> out.add(f.apply(s)));
        return p.withStages(out);
    }

    private static Program sliceOffByOne(Program p) {
        Map<String, BufferDecl> buffers = p.buffersByName();
        return eachStage(p, s -> {
            if (!(s.kind() instanceof StageKind.Compute(ComputeOp.Slice sl))) {
                return s;
            }
            BufferDecl in = buffers.get(s.ins().getFirst());
            BufferDecl out = buffers.get(s.outs().getFirst());
            List<Integer> starts = new ArrayList<>(sl.starts());
            for (int a = 0; a < starts.size(); a++) {
                int room = in.shape().dim(a) - out.shape().dim(a);
                if (room > 0) {
                    starts.set(a, starts.get(a) < room ? starts.get(a) + 1 : starts.get(a) - 1);
                    break;
                }
            }
            return new Stage(s.id(), s.site(), s.ins(), s.outs(), new StageKind.Compute(new ComputeOp.Slice(starts)));
        });
    }

    private static Program negateProducts(Program p) {
        return eachStage(p, s -> {
            if (s.kind() instanceof StageKind.Compute(ComputeOp.Generic g) && g.expr() instanceof Expr.Apply a && a.fn() == Fn.MUL) {
                return new Stage(s.id(), s.site(), s.ins(), s.outs(),
                        new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.NEG, a))));
            }
            return s;
        });
    }

    private static Program dropLastMember(Program p) {
        return eachStage(p, s -> {
            if (s.kind() instanceof StageKind.AllReduce ar && s.ins().size() >= 2) {
                return new Stage(s.id(), s.site(), s.ins(), s.outs(),
                        new StageKind.AllReduce(ar.pool(), ar.tensor(), new ComputeOp.Generic(ar.pool().fold(s.ins().size() - 1))));
            }
            return s;
        });
    }
}
