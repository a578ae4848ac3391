package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.backend.BindingProblem;
import org.stagecheck.backend.Bindings;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * Each kind of bad input to a run is the same problem, with the same words, from
 * {@link Bindings#check} directly, the reference interpreter and the CUDA backend (emulated, and
 * refused before anything native is asked for): one check, not three that could drift apart.
 */
class BindingProblemsAgreeTest {
    private static final LauncherFactory MUST_NOT_RUN = (source, o) -> {
        throw new AssertionError("a launcher was opened for inputs that should have been refused");
    };

    /** Inputs new_row (f32[1, 16]), state cache, weight rope_cos; parameter pos in [0, 31]. */
    private static Program program() throws IOException, JsonFormatException {
        return new ProgramCodec().read(Files.readString(Path.of("..", "examples", "scalar-offset-kv-ring.json")));
    }

    static Stream<Arguments> badInputs() {
        return Stream.of(
                bad("missing input", BindingProblem.Code.MISSING_INPUT, "new_row", b -> b.remove("new_row"), p -> {}),
                bad("unknown tensor", BindingProblem.Code.BINDING_UNKNOWN, "nope", b -> b.put("nope", Tensor.zeros(DType.F32, Shape.of(1))), p -> {}),
                bad("wrong dtype", BindingProblem.Code.BINDING_DTYPE, "new_row", b -> b.put("new_row", Tensor.zeros(DType.I32, Shape.of(1, 16))), p -> {}),
                bad("wrong shape", BindingProblem.Code.BINDING_SHAPE, "new_row", b -> b.put("new_row", Tensor.zeros(DType.F32, Shape.of(2, 16))), p -> {}),
                bad("parameter missing", BindingProblem.Code.PARAM_UNBOUND, "pos", b -> {}, p -> p.remove("pos")),
                bad("parameter undeclared", BindingProblem.Code.PARAM_UNKNOWN, "len", b -> {}, p -> p.put("len", 1L)),
                bad("parameter out of range", BindingProblem.Code.PARAM_OUT_OF_RANGE, "pos", b -> {}, p -> p.put("pos", 32L)));
    }

    private static Arguments bad(String what, BindingProblem.Code code, String subject,
                                 Consumer<Map<String, Tensor>> spoilTensors, Consumer<Map<String, Long>> spoilParams) {
        return Arguments.of(what, code, subject, spoilTensors, spoilParams);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badInputs")
    void theCheckTheInterpreterAndTheCudaBackendFindTheSameProblem(String what, BindingProblem.Code code, String subject,
                                                                  Consumer<Map<String, Tensor>> spoilTensors,
                                                                  Consumer<Map<String, Long>> spoilParams) throws Exception {
        Program p = program();
        Map<String, Tensor> bound = new LinkedHashMap<>(RandomBindings.forProgram(p, 3));
        Map<String, Long> params = new LinkedHashMap<>(Map.of("pos", 5L));
        assertThat(Bindings.check(p, bound, params)).as("the good inputs").isEmpty();
        spoilTensors.accept(bound);
        spoilParams.accept(params);

        List<BindingProblem> problems = Bindings.check(p, bound, params);
        assertThat(problems).extracting(BindingProblem::code, BindingProblem::subject).containsExactly(org.assertj.core.groups.Tuple.tuple(code, subject));
        assertThat(problems.getFirst().message()).contains("'" + subject + "'");
        List<Diagnostic> expected = problems.stream().map(BindingProblem::toDiagnostic).toList();

        RunResult interp = new Interpreter(RunOptions.defaults()).run(p, bound, params);
        RunResult cuda = new CudaBackend(TestBackends.emulation(), MUST_NOT_RUN).run(p, bound, params);
        assertThat(interp.faults()).isEqualTo(expected);
        assertThat(cuda.faults()).isEqualTo(expected);
        assertThat(interp.stoppedAtStage()).isNull();
        assertThat(cuda.stoppedAtStage()).isNull();
    }
}
