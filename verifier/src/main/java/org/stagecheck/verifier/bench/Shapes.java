package org.stagecheck.verifier.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * The program shapes {@code bench verifier} measures (docs/bench.md, "Verifier scaling"), each a
 * valid program of exactly the asked number of stages whose terms would grow with the program if
 * the term domain were not hash-consed with counted sums:
 * <ul>
 *   <li>{@code chain}: one chip, {@code a = add(a, x)} stage after stage (the sum {@code {x:n}});</li>
 *   <li>{@code fan-in}: one chip, a distinct row of {@code x} loaded and added to {@code a} per
 *       two stages (a sum of n/2 distinct summands);</li>
 *   <li>{@code nest}: one chip, {@code a = tanh(sigmoid(a * x - 0.5) * x)} per stage
 *       (an expression nested 6 deep per stage, a term nested 6n deep);</li>
 *   <li>{@code split}: the generated tensor-parallel split ({@link ScaleBench#generate}).</li>
 * </ul>
 */
public enum Shapes {
    CHAIN("chain", Shapes::chain),
    FAN_IN("fan-in", Shapes::fanIn),
    NEST("nest", Shapes::nest),
    SPLIT("split", ScaleBench::generate);

    private static final int WIDTH = 8;
    private static final Site SITE = new Site(0, 0, 0);

    private final String label;
    private final IntFunction<ScaleBench.Generated> generator;

    Shapes(String label, IntFunction<ScaleBench.Generated> generator) {
        this.label = label;
        this.generator = generator;
    }

    /** The shape's name in the bench's table. */
    public String label() {
        return label;
    }

    /** A valid program of this shape with exactly {@code stages} stages (at least 8), and its certificate. */
    public ScaleBench.Generated generate(int stages) {
        return generator.apply(stages);
    }

    /** {@code a = add(a, x)}, {@code stages - 3} times between the load of x and the store of a. */
    static ScaleBench.Generated chain(int stages) {
        StageKind.Compute add = generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)));
        return accumulate("chain", stages, 1, List.of(new Stage("first", SITE, List.of("x", "x"), List.of("a"), add)),
                i -> new Stage("add." + i, SITE, List.of("a", "x"), List.of("a"), add));
    }

    /** Row {@code r} of x loaded and added to a, per two stages: a sum of about stages/2 distinct summands. */
    static ScaleBench.Generated fanIn(int stages) {
        int rows = stages / 2;
        StageKind.Compute add = generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)));
        List<Stage> body = new ArrayList<>();
        body.add(new Stage("first", SITE, List.of("x"), List.of("a"), generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.f(0.0)))));
        return accumulate("fan-in", stages, rows, body, i -> i % 2 == 0
                ? new Stage("ld." + i, SITE, List.of(), List.of("x"), new StageKind.Load("x", block(i / 2 % rows), 1, null))
                : new Stage("add." + i, SITE, List.of("a", "x"), List.of("a"), add));
    }

    /** {@code a = tanh(sigmoid(a * x - 0.5) * x)} per stage (short names: 10^6 stages stay within the JSON file limit). */
    static ScaleBench.Generated nest(int stages) {
        Expr e = Expr.apply(Fn.TANH,
                Expr.apply(Fn.MUL, Expr.apply(Fn.SIGMOID, Expr.apply(Fn.SUB, Expr.apply(Fn.MUL, Expr.in(0), Expr.in(1)), Expr.f(0.5))), Expr.in(1)));
        StageKind.Compute step = generic(e);
        return accumulate("nest", stages, 1, List.of(new Stage("first", SITE, List.of("x", "x"), List.of("a"), step)),
                i -> new Stage("n" + i, SITE, List.of("a", "x"), List.of("a"), step));
    }

    /**
     * One chip: x (rows x WIDTH) loaded at row 0 into buffer x, the {@code first} stages, then
     * {@code step(i)} until one stage is left, then a stored to y.
     */
    private static ScaleBench.Generated accumulate(String name, int stages, int rows, List<Stage> first, IntFunction<Stage> step) {
        Shape row = Shape.of(1, WIDTH);
        List<TensorDecl> tensors = List.of(new TensorDecl("x", DType.F32, Shape.of(rows, WIDTH), 0, TensorRole.INPUT),
                new TensorDecl("y", DType.F32, row, 0, TensorRole.OUTPUT));
        List<BufferDecl> buffers = List.of(new BufferDecl("x", DType.F32, row, SITE), new BufferDecl("a", DType.F32, row, SITE));
        List<Stage> list = new ArrayList<>(stages);
        list.add(new Stage("ld", SITE, List.of(), List.of("x"), new StageKind.Load("x", block(0), 1, null)));
        list.addAll(first);
        for (int i = 0; list.size() < stages - 1; i++) {
            list.add(step.apply(i));
        }
        list.add(new Stage("st", SITE, List.of("a"), List.of(), new StageKind.Store("y", block(0), 1, WIDTH)));
        Program p = new Program(name + "-" + stages, new Machine(1, 1, 1), List.of(), tensors, buffers, List.of(), list);
        return new ScaleBench.Generated(p, Certificate.empty());
    }

    private static AccessPattern.Block block(long row) {
        return new AccessPattern.Block(List.of(Offset.constant(row), Offset.constant(0)), Shape.of(1, WIDTH));
    }

    private static StageKind.Compute generic(Expr e) {
        return new StageKind.Compute(new ComputeOp.Generic(e));
    }
}
