package org.stagecheck.spec.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.spec.ir.ProgramBuilder.program;

import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.ValueType;

/** The validator types each expression object once per input types and rank, with the answers typing it each time gives. */
class ExprTypesTest {
    private static final Set<String> PARAMS = Set.of("pos");

    @Test
    void oneExpressionObjectAtStagesOfOtherInputTypesAndRanksIsTypedForEach() {
        Expr sum = Expr.apply(Fn.ADD, Expr.in(0), Expr.apply(Fn.ADD, Expr.in(1), Expr.apply(Fn.MUL, Expr.in(0), new Expr.Cast(DType.F32, new Expr.Index(1)))));
        Program p = program()
                .buffer("f", DType.F32, 4, 4).buffer("g", DType.F32, 4, 4).buffer("i", DType.I32, 4, 4).buffer("o", DType.F32, 4, 4)
                .buffer("f1", DType.F32, 4).buffer("o1", DType.F32, 4).buffer("oi", DType.I32, 4, 4)
                .stage("ok", List.of("f", "g"), List.of("o"), generic(sum))
                .stage("mixed", List.of("f", "i"), List.of("o"), generic(sum))
                .stage("ok-again", List.of("g", "f"), List.of("o"), generic(sum))
                .stage("rank1", List.of("f1", "f1"), List.of("o1"), generic(sum))
                .stage("mixed-again", List.of("f", "i"), List.of("o"), generic(sum))
                .stage("wrong-out", List.of("f", "g"), List.of("oi"), generic(sum))
                .build();
        String out = new Validator().validate(p).stream().map(org.stagecheck.spec.diag.Diagnostic::render).collect(Collectors.joining("\n"));
        assertThat(out).isEqualTo("""
                EXPR_TYPE stage #1 'mixed' at /stages/1/kind/op/expr: operands of different types INT and FLOAT in add(in1, mul(in0, f32(index(1)))) (write an explicit cast)
                EXPR_TYPE stage #3 'rank1' at /stages/3/kind/op/expr: index(1) is past the output's rank 1
                EXPR_TYPE stage #4 'mixed-again' at /stages/4/kind/op/expr: operands of different types INT and FLOAT in add(in1, mul(in0, f32(index(1)))) (write an explicit cast)
                EXPR_TYPE stage #5 'wrong-out' at /stages/5/kind/op/expr buffer 'oi': the expression yields FLOAT but output 'oi' is i32 (write an explicit cast)""");
    }

    @Test
    void oneScalarBodyExpressionAtStagesOfOtherInputTypesIsTypedForEach() {
        Expr plusOne = Expr.apply(Fn.ADD, Expr.in(0), Expr.i(1));
        Program p = program()
                .buffer("i", DType.I32, 1).buffer("f", DType.F32, 1).buffer("o", DType.I32, 1)
                .stage("ints", List.of("i"), List.of("o"), new StageKind.Scalar(new ScalarBody(List.of(plusOne))))
                .stage("floats", List.of("f"), List.of("o"), new StageKind.Scalar(new ScalarBody(List.of(plusOne))))
                .stage("ints-again", List.of("i"), List.of("o"), new StageKind.Scalar(new ScalarBody(List.of(plusOne))))
                .build();
        String out = new Validator().validate(p).stream().map(org.stagecheck.spec.diag.Diagnostic::render).collect(Collectors.joining("\n"));
        assertThat(out).isEqualTo(
                "EXPR_TYPE stage #1 'floats' at /stages/1/kind/body/0: operands of different types FLOAT and INT in add(in0, 1) (write an explicit cast)");
    }

    @Test
    void answersAreTheTypersOnRandomExpressionsInputsAndRanksAskedAgain() throws Exception {
        Random random = new Random(26);
        ExprTypes types = new ExprTypes(PARAMS);
        List<Expr> exprs = java.util.stream.IntStream.range(0, 40).mapToObj(k -> randomExpr(random, 4)).toList();
        for (int round = 0; round < 2000; round++) {
            Expr e = exprs.get(random.nextInt(exprs.size()));
            ValueType[] inputs = new ValueType[random.nextInt(3)];
            for (int k = 0; k < inputs.length; k++) {
                inputs[k] = ValueType.values()[random.nextInt(2)];
            }
            int rank = random.nextInt(3) - 1;
            assertThat(answer(() -> types.type(e, inputs, rank)))
                    .as("%s over %s at rank %d", e, List.of(inputs), rank)
                    .isEqualTo(answer(() -> new ExprTyper(List.of(inputs), PARAMS, rank).type(e)));
        }
    }

    @Test
    void pastTheRememberedExpressionsTheAnswersAreStillTheTypers() throws Exception {
        ExprTypes types = new ExprTypes(PARAMS);
        ValueType[] floats = {ValueType.FLOAT};
        for (int k = 0; k < ExprTypes.MAX_EXPRESSIONS + 10; k++) {
            Expr e = k % 2 == 0 ? Expr.apply(Fn.ADD, Expr.in(0), Expr.f(k)) : Expr.apply(Fn.ADD, Expr.in(0), Expr.i(k));
            String expected = k % 2 == 0 ? "FLOAT" : "error: operands of different types FLOAT and INT in add(in0, " + k + ") (write an explicit cast)";
            assertThat(answer(() -> types.type(e, floats, 1))).isEqualTo(expected);
            assertThat(answer(() -> types.type(e, floats, 1))).isEqualTo(expected);
        }
    }

    private interface Typing {
        ValueType type() throws ExprTyper.TypeError;
    }

    private static String answer(Typing typing) {
        try {
            return typing.type().name();
        } catch (ExprTyper.TypeError e) {
            return "error: " + e.getMessage();
        }
    }

    private static StageKind generic(Expr e) {
        return new StageKind.Compute(new ComputeOp.Generic(e));
    }

    private static Expr randomExpr(Random random, int depth) {
        if (depth == 0 || random.nextInt(3) == 0) {
            return switch (random.nextInt(6)) {
                case 0 -> Expr.in(random.nextInt(3));
                case 1 -> Expr.f(random.nextInt(3));
                case 2 -> Expr.i(random.nextInt(3));
                case 3 -> new Expr.ParamRef(random.nextBoolean() ? "pos" : "len");
                case 4 -> new Expr.Index(random.nextInt(2));
                default -> new Expr.Cast(random.nextBoolean() ? DType.F32 : DType.I32, Expr.in(random.nextInt(2)));
            };
        }
        Fn fn = List.of(Fn.ADD, Fn.MUL, Fn.EXP, Fn.MAX, Fn.SELECT, Fn.LT).get(random.nextInt(6));
        Expr[] args = new Expr[fn == Fn.SELECT ? 3 : fn == Fn.EXP ? 1 : 2];
        for (int k = 0; k < args.length; k++) {
            args[k] = randomExpr(random, depth - 1);
        }
        return Expr.apply(fn, args);
    }
}
