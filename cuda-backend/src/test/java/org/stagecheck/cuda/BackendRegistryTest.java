package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.Backends;
import org.stagecheck.backend.RunResult;
import org.stagecheck.backend.UnknownBackendException;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/** Backends by name through the service registry: the interpreter's and the CUDA backend's providers. */
class BackendRegistryTest {
    @Test
    void theRegisteredNamesAreTheReferenceFirstThenTheCudaBackends() {
        assertThat(Backends.names()).containsExactly("interp", "cuda", "cuda-emu", "cuda-fake");
    }

    @Test
    void anUnknownNameIsRefusedNamingTheBackendsThereAre() {
        assertThatThrownBy(() -> Backends.named("cdua"))
                .isInstanceOf(UnknownBackendException.class)
                .hasMessage("unknown backend 'cdua'; one of interp, cuda, cuda-emu, cuda-fake");
    }

    @Test
    void theNameChoosesTheCudaTargetAndTheOptionsTheRest() {
        Backend emu = Backends.named("cuda-emu", CudaOptions.device().withSegmentStages(7));
        assertThat(emu.name()).isEqualTo("cuda-emu");
        assertThat(((CudaBackend) emu).options().target()).isEqualTo(CudaOptions.Target.EMULATION);
        assertThat(((CudaBackend) emu).options().segmentStages()).isEqualTo(7);
        Backend fake = Backends.named("cuda-fake", CudaOptions.device());
        assertThat(fake.name()).isEqualTo("cuda-fake");
        assertThat(((CudaBackend) fake).options().target()).isEqualTo(CudaOptions.Target.FAKE_DRIVER);
        assertThat(Backends.named("cuda").name()).isEqualTo("cuda");
    }

    @Test
    void anotherBackendsOptionsAreRefused() {
        assertThatThrownBy(() -> Backends.named("interp", CudaOptions.emulation()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("backend 'interp' takes RunOptions, not CudaOptions");
    }

    @Test
    void theInterpreterByNameRunsAsTheInterpreterDoes() {
        Program p = RandomPrograms.generate(11, GenOptions.small());
        Map<String, Tensor> bound = RandomBindings.forProgram(p, 2);
        Map<String, Long> params = new java.util.HashMap<>();
        p.params().forEach(prm -> params.put(prm.name(), prm.min()));
        Backend byName = Backends.named("interp", RunOptions.defaults().withThreads(1).withTrace(true));
        assertThat(byName.name()).isEqualTo("interp");
        RunResult a = byName.run(p, bound, params);
        RunResult b = new Interpreter(RunOptions.defaults().withTrace(true)).run(p, bound, params);
        assertThat(a.faults()).isEqualTo(b.faults());
        assertThat(a.faults()).noneMatch(d -> d.code().startsWith("PARAM_") || d.code().startsWith("BINDING_") || d.code().equals("MISSING_INPUT"));
        assertThat(a.trace().keySet()).isEqualTo(b.trace().keySet()).isNotEmpty();
        a.tensors().forEach((name, t) -> assertThat(t.bitEquals(b.tensor(name))).as(name).isTrue());
    }
}
