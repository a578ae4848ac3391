package org.stagecheck.interp.eval;

import java.util.List;

import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.tensor.Tensor;

/**
 * Evaluates a {@code Generic} expression over every element of an output shape (brief, "Stages";
 * docs/semantics.md, "Generic"): compiled once per stage and input shapes ({@link ExprCompiler}),
 * kept by the prepared program and run on reused working columns. Each node is evaluated for all
 * elements before its parent, so the values are those of a per-element evaluation (every function
 * is elementwise and pure).
 *
 * <p>FLOAT arithmetic is IEEE f32 (float64 mode: double); transcendental functions are computed
 * with {@link StrictMath} in double and rounded once to f32, identical on every JVM. INT is i32
 * with wrap-around, division truncating toward zero, division by zero a fault.
 */
final class ExprEval {
    private ExprEval() {
    }

    /**
     * The value of expression {@code part} of {@code stage} over {@code out}, stored once per
     * entry of {@code dtypes} as a fresh tensor of the matching entry of {@code shapes}.
     *
     * @param scalar the Scalar-stage form: inputs are one-element buffers and {@code index(axis)}
     *               is meaningless
     */
    static Tensor[] evaluate(RunState s, Stage stage, int part, Expr e, Shape out, List<Tensor> ins, boolean scalar,
                             List<DType> dtypes, List<Shape> shapes) throws Fault {
        ShapeCache cache = s.shapes();
        CompiledExpr c = cache.compiled(stage, part);
        if (c == null || !c.fits(ins, out, s.f64())) {
            c = ExprCompiler.compile(e, out, ins, cache, s.f64(), scalar);
            cache.remember(stage, part, c);
        }
        return c.evaluate(s, ins, s.scratch(), dtypes, shapes);
    }
}
