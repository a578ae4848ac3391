package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.validate.Validator;
import org.stagecheck.tensor.RandomBindings;

/**
 * Nothing native happens before a program is known to be well-formed and its bindings right
 * (brief: no input crashes the JVM): the backend reports the validator's findings, or the
 * reference's binding faults, and never asks for a compiler or a device.
 */
class ValidateFirstTest {
    private static final LauncherFactory MUST_NOT_RUN = (source, o) -> {
        throw new AssertionError("a launcher was opened for a program that should have been refused");
    };

    @Test
    void anInvalidProgramIsRefusedWithTheValidatorsFindings() {
        Program good = RandomPrograms.generate(5, GenOptions.small());
        // a stage that reads a buffer nobody declared
        List<Stage> stages = new ArrayList<>(good.stages());
        Stage first = stages.getFirst();
        stages.set(0, new Stage(first.id(), first.site(), first.ins(), List.of("no_such_buffer"), first.kind()));
        Program bad = good.withStages(stages);
        RunResult r = new CudaBackend(TestBackends.emulation(), MUST_NOT_RUN).run(bad, RandomBindings.forProgram(bad, 1), Map.of());
        assertThat(r.ok()).isFalse();
        assertThat(r.faults()).isEqualTo(new Validator().validate(bad));
        assertThat(r.faults()).isNotEmpty();
    }

    @Test
    void missingBindingsAndParametersAreTheReferencesFaults() {
        Program p = RandomPrograms.generate(6, GenOptions.small());
        RunResult r = new CudaBackend(TestBackends.emulation(), MUST_NOT_RUN).run(p, Map.of(), Map.of("nope", 1L));
        assertThat(r.faults()).extracting(d -> d.code()).contains("PARAM_UNBOUND", "PARAM_UNKNOWN", "MISSING_INPUT");
    }

    @Test
    void aSessionOfAnInvalidProgramIsRefusedBeforeCompiling() {
        Program good = RandomPrograms.generate(7, GenOptions.small());
        Stage s = good.stages().getFirst();
        Program bad = good.withStages(List.of(new Stage(s.id(), s.site(), s.ins(), s.outs(), new StageKind.Recv("no_group"))));
        try (CudaSession session = new CudaBackend(TestBackends.emulation(), MUST_NOT_RUN).prepare(bad)) {
            assertThat(session.refusal()).isEqualTo(new Validator().validate(bad)).isNotEmpty();
            RunResult r = session.run(RandomBindings.forProgram(good, 1), Map.of());
            assertThat(r.faults()).isEqualTo(session.refusal());
            assertThat(r.stoppedAtStage()).isNull();
        }
    }

    @Test
    void theInterpreterRefusesAnInvalidProgramWithTheSameDiagnosticsAsTheEmulation() {
        Program good = RandomPrograms.generate(5, GenOptions.small());
        List<Stage> stages = new ArrayList<>(good.stages());
        Stage first = stages.getFirst();
        stages.set(0, new Stage(first.id(), first.site(), first.ins(), List.of("no_such_buffer"), first.kind()));
        Program bad = good.withStages(stages);
        Map<String, org.stagecheck.tensor.Tensor> bound = RandomBindings.forProgram(bad, 1);
        RunResult emulated = new CudaBackend(TestBackends.emulation(), MUST_NOT_RUN).run(bad, bound, Map.of());
        org.stagecheck.backend.Backend reference = new org.stagecheck.interp.Interpreter(org.stagecheck.interp.RunOptions.defaults());
        RunResult interpreted = reference.run(bad, bound, Map.of(), true);
        assertThat(interpreted.faults()).isNotEmpty().isEqualTo(emulated.faults());
        assertThat(interpreted.tensors()).isEqualTo(emulated.tensors()).isEmpty();
        assertThat(interpreted.trace()).isEmpty();
        assertThat(interpreted.stoppedAtStage()).isEqualTo(emulated.stoppedAtStage()).isNull();
        try (org.stagecheck.backend.Prepared p = reference.prepare(bad)) {
            assertThat(p.refusal()).isEqualTo(emulated.faults());
        }
    }
}
