package org.stagecheck.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;

/** The one check of a run's inputs: each problem named with what was expected and what was found. */
class BindingsTest {
    /** x: f32[2, 3] input, w: i32[4] weight, s: f32[2] state, y: f32[2] output; pos in [0, 7]. */
    static final Program PROGRAM = new Program("p", new Machine(1, 1, 1), List.of(new Param("pos", 0, 7)),
            List.of(new TensorDecl("x", DType.F32, Shape.of(2, 3), 0, TensorRole.INPUT),
                    new TensorDecl("w", DType.I32, Shape.of(4), 0, TensorRole.WEIGHT),
                    new TensorDecl("s", DType.F32, Shape.of(2), 0, TensorRole.STATE),
                    new TensorDecl("y", DType.F32, Shape.of(2), 0, TensorRole.OUTPUT)),
            List.of(), List.of(), List.of());

    private static Map<String, Tensor> good() {
        Map<String, Tensor> bound = new LinkedHashMap<>();
        bound.put("x", Tensor.zeros(DType.F32, Shape.of(2, 3)));
        bound.put("w", Tensor.zeros(DType.I32, Shape.of(4)));
        bound.put("s", Tensor.zeros(DType.F32, Shape.of(2)));
        return bound;
    }

    @Test
    void goodInputsHaveNoProblemAndAnOutputNeedsNoValue() {
        assertThat(Bindings.check(PROGRAM, good(), Map.of("pos", 7L))).isEmpty();
    }

    @Test
    void everyProblemNamesItsSubjectAndWhatWasExpectedAndFound() {
        Map<String, Tensor> bound = good();
        bound.remove("s");
        bound.put("x", Tensor.zeros(DType.F32, Shape.of(3, 2)));
        bound.put("w", Tensor.zeros(DType.F32, Shape.of(4)));
        bound.put("z", Tensor.zeros(DType.F32, Shape.of(1)));
        Map<String, Long> params = new LinkedHashMap<>();
        params.put("pos", 8L);
        params.put("len", 1L);
        List<BindingProblem> problems = Bindings.check(PROGRAM, bound, params);
        assertThat(problems).extracting(p -> p.code() + " " + p.subject() + " expected " + p.expected() + " found " + p.found() + ": " + p.message())
                .containsExactly(
                        "PARAM_OUT_OF_RANGE pos expected [0, 7] found 8: Parameter 'pos' is 8, outside its declared range [0, 7].",
                        "PARAM_UNKNOWN len expected null found 1: A value was given for 'len', which is not a parameter of the program.",
                        "BINDING_UNKNOWN z expected null found f32[1]: A value was bound to 'z', which is not a tensor of the program.",
                        "BINDING_SHAPE x expected [2, 3] found [3, 2]: Tensor 'x' is declared [2, 3] but the bound value is [3, 2].",
                        "BINDING_DTYPE w expected i32 found f32: Tensor 'w' is declared i32 but the bound value is f32.",
                        "MISSING_INPUT s expected f32[2] found null: Tensor 's' (state) has no bound value.");
        assertThat(problems.getFirst().toDiagnostic().render())
                .isEqualTo("PARAM_OUT_OF_RANGE at /params/pos: Parameter 'pos' is 8, outside its declared range [0, 7].");
    }

    @Test
    void anUnboundParameterIsAProblem() {
        assertThat(Bindings.check(PROGRAM, good(), Map.of())).extracting(BindingProblem::code).containsExactly(BindingProblem.Code.PARAM_UNBOUND);
    }

    @Test
    void float64ValuesAreADtypeProblemUnlessAccepted() {
        Map<String, Tensor> bound = good();
        bound.put("x", Tensor.zerosFloat64(DType.F32, Shape.of(2, 3)));
        assertThat(Bindings.check(PROGRAM, bound, Map.of("pos", 0L))).extracting(BindingProblem::message)
                .containsExactly("Tensor 'x' is declared f32 but the bound value is f32 (float64 mode).");
        assertThat(Bindings.check(PROGRAM, bound, Map.of("pos", 0L), Bindings.Float64.ACCEPTED)).isEmpty();
    }
}
