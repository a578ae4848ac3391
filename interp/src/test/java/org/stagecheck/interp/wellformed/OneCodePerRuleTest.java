package org.stagecheck.interp.wellformed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.CORE;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;
import static org.stagecheck.interp.Fixtures.i32;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.stagecheck.interp.Fixtures;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.rules.Rule;
import org.stagecheck.spec.validate.Validator;

/**
 * One language, one code per rule: a program that breaks exactly one shape or dtype rule of a
 * Compute op is refused by the validator under that rule's code alone, and the evaluator refuses
 * it with exactly the validator's findings, never running it. Among them the two features the
 * evaluator once ran leniently (batched and i32 MatMuls). And no main source still spells a code
 * that was retired in favour of the validator's.
 */
class OneCodePerRuleTest {

    /** A program with input x = f32[2,2] loaded into X, then what {@code broken} adds. */
    private static Fixtures withX(UnaryOperator<Fixtures> broken) {
        return broken.apply(Fixtures.program()
                .input("x", f32(dims(2, 2), 1, 2, 3, 4)).buffer("X", DType.F32, 2, 2).loadAll("lx", "x", "X", CORE));
    }

    private record Breach(String name, Rule rule, Fixtures program) {}

    private static List<Breach> breaches() {
        List<Breach> out = new ArrayList<>();
        out.add(new Breach("generic input that does not broadcast", Rule.BROADCAST, withX(p -> p.buffer("Y", DType.F32, 3, 3)
                .generic("g", List.of("X"), "Y", Expr.in(0)))));
        out.add(new Breach("batched MatMul", Rule.MATMUL_SHAPE, withX(p -> p.input("a", f32(dims(2, 2, 2), 1, 2, 3, 4, 5, 6, 7, 8))
                .buffer("A", DType.F32, 2, 2, 2).loadAll("la", "a", "A", CORE).buffer("Y", DType.F32, 2, 2, 2)
                .compute("mm", List.of("A", "X"), "Y", ComputeOp.MatMul.plain()))));
        out.add(new Breach("i32 MatMul", Rule.DTYPE_MISMATCH, withX(p -> p.input("n", i32(dims(2, 2), 1, 2, 3, 4))
                .buffer("N", DType.I32, 2, 2).loadAll("ln", "n", "N", CORE).buffer("Y", DType.I32, 2, 2)
                .compute("mm", List.of("N", "N"), "Y", ComputeOp.MatMul.plain()))));
        out.add(new Breach("spill that is not f32", Rule.MATMUL_SPILL, withX(p -> p.buffer("S", DType.BF16, 2, 2).buffer("Y", DType.F32, 2, 2)
                .compute("mm", List.of("X", "X"), "Y", new ComputeOp.MatMul(false, false, null, "S")))));
        out.add(new Breach("bias that is not floating", Rule.MATMUL_BIAS, withX(p -> p.input("b", i32(dims(2), 1, 2))
                .buffer("B", DType.I32, 2).loadAll("lb", "b", "B", CORE).buffer("Y", DType.F32, 2, 2)
                .compute("mm", List.of("X", "X"), "Y", new ComputeOp.MatMul(false, false, "B", null)))));
        out.add(new Breach("MatMul with one operand", Rule.PORT_COUNT, withX(p -> p.buffer("Y", DType.F32, 2, 2)
                .compute("mm", List.of("X"), "Y", ComputeOp.MatMul.plain()))));
        out.add(new Breach("reduce of an axis the input lacks", Rule.REDUCE_AXIS, withX(p -> p.buffer("Y", DType.F32, 2, 1)
                .compute("r", List.of("X"), "Y", new ComputeOp.Reduce(ReduceFn.SUM, 2)))));
        out.add(new Breach("reduce that drops the axis", Rule.REDUCE_SHAPE, withX(p -> p.buffer("Y", DType.F32, 2)
                .compute("r", List.of("X"), "Y", new ComputeOp.Reduce(ReduceFn.SUM, 1)))));
        out.add(new Breach("argmax into f32", Rule.DTYPE_MISMATCH, withX(p -> p.buffer("Y", DType.F32, 2, 1)
                .compute("r", List.of("X"), "Y", new ComputeOp.Reduce(ReduceFn.ARGMAX, 1)))));
        out.add(new Breach("reshape that changes the element count", Rule.LAYOUT_SHAPE, withX(p -> p.buffer("Y", DType.F32, 3)
                .compute("r", List.of("X"), "Y", new ComputeOp.Reshape()))));
        out.add(new Breach("reshape that changes the dtype", Rule.DTYPE_MISMATCH, withX(p -> p.buffer("Y", DType.BF16, 4)
                .compute("r", List.of("X"), "Y", new ComputeOp.Reshape()))));
        out.add(new Breach("transpose by a non-permutation", Rule.LAYOUT_SHAPE, withX(p -> p.buffer("Y", DType.F32, 2, 2)
                .compute("t", List.of("X"), "Y", new ComputeOp.Transpose(List.of(0, 0))))));
        out.add(new Breach("slice window outside the input", Rule.LAYOUT_SHAPE, withX(p -> p.buffer("Y", DType.F32, 2, 2)
                .compute("s", List.of("X"), "Y", new ComputeOp.Slice(List.of(1, 1))))));
        out.add(new Breach("concat that does not add up", Rule.LAYOUT_SHAPE, withX(p -> p.buffer("Y", DType.F32, 2, 3)
                .compute("c", List.of("X", "X"), "Y", new ComputeOp.Concat(1)))));
        return out;
    }

    @TestFactory
    Stream<DynamicTest> theValidatorAndTheEvaluatorRefuseEachBreachUnderItsOneCode() {
        return breaches().stream().map(b -> DynamicTest.dynamicTest(b.name(), () -> {
            List<Diagnostic> findings = new Validator().validate(b.program().build());
            assertThat(findings).as("validator findings").isNotEmpty()
                    .allSatisfy(d -> assertThat(d.code()).isEqualTo(b.rule().code()));
            String stageId = findings.getFirst().stageId();
            assertThat(findings).as("validator findings").allSatisfy(d -> assertThat(d.stageId()).isEqualTo(stageId));
            RunResult run = b.program().run(RunOptions.defaults());
            assertThat(run.faults()).as("evaluator faults").isEqualTo(findings);
            assertThat(run.stoppedAtStage()).isNull();
            assertThat(run.trace()).isEmpty();
        }));
    }

    /** Codes the evaluator once used for rules the validator names otherwise; none may return. */
    private static final Set<String> RETIRED = Set.of("BROADCAST_SHAPE", "SPILL_DECL", "MATMUL_DTYPE", "BLOCK_COUNT",
            "CONCAT_AXIS", "SLICE_BOUNDS", "TRANSPOSE_PERM", "EXPR_INDEX", "EXPR_INPUT", "INDEX_DTYPE", "OFFSET_BUFFER",
            "OUTPUT_SHAPE", "SCALAR_INPUT", "SCALAR_OUTPUT", "WRONG_CHIP");

    @Test
    void noCodeListHasARetiredCode() {
        assertThat(java.util.stream.Stream.of(Rule.values()).map(Rule::code)).doesNotContainAnyElementsOf(RETIRED);
        assertThat(java.util.stream.Stream.of(org.stagecheck.backend.FaultCode.values()).map(org.stagecheck.backend.FaultCode::spelling))
                .doesNotContainAnyElementsOf(RETIRED);
    }

    @Test
    void noMainSourceSpellsARetiredCode() throws IOException {
        Set<String> found = new TreeSet<>();
        for (String module : List.of("spec", "tensor", "interp", "cuda-backend", "author", "golden", "cli", "verifier", "conformance")) {
            Path root = Path.of("..", module, "src", "main");
            assertThat(root).as("the tests run from a module directory of the repository").isDirectory();
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : files.filter(x -> x.toString().endsWith(".java")).toList()) {
                    String text = Files.readString(f);
                    for (String code : RETIRED) {
                        if (text.contains("\"" + code + "\"") || text.contains("." + code + ")") || text.contains("." + code + ",")) {
                            found.add(code + " in " + f);
                        }
                    }
                }
            }
        }
        assertThat(found).isEmpty();
    }

    /** Every rule's code is its own: no two rules share one, and each is the constant's name. */
    @Test
    void everyRuleHasItsOwnCode() {
        Set<String> codes = new TreeSet<>();
        for (Rule r : Rule.values()) {
            assertThat(codes.add(r.code())).as(r.name()).isTrue();
            assertThat(r.code()).isEqualTo(r.name());
            assertThat(r.summary()).isNotBlank();
        }
    }
}
