package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.conformance.CaseResult;
import org.stagecheck.conformance.Conformance;
import org.stagecheck.conformance.ConformanceCase;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * The whole backend conformance suite (every case is a well-formed program, none skipped) passes in
 * host emulation through the
 * {@code Backend} interface. The cases' programs are compiled as one unit; the backend handed to
 * the suite runs each on a fresh session of that unit.
 */
@Tag("slow")
class CudaConformanceTest {
    private static final Conformance SUITE = Conformance.suite();
    private static CudaModule module;
    private static final Map<Program, Integer> index = new IdentityHashMap<>();

    @BeforeAll
    static void compileOnce() throws Exception {
        List<ConformanceCase> cases = SUITE.cases().stream().filter(c -> SUITE.skipReason(c).isEmpty()).toList();
        for (int i = 0; i < cases.size(); i++) {
            index.put(cases.get(i).program(), i);
        }
        module = new CudaBackend(TestBackends.emulation().withHostOpt(0)).openAll(cases.stream().map(ConformanceCase::program).toList());
    }

    @AfterAll
    static void close() {
        if (module != null) {
            module.close();
        }
    }

    /** {@code cuda-emu} over the precompiled unit. */
    private static final Backend EMULATION = new Backend() {
        @Override
        public String name() {
            return "cuda-emu";
        }

        @Override
        public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
            try (CudaSession s = CudaSession.of(module, index.get(program))) {
                return s.step(bound, params, trace);
            } catch (CudaSetupException e) {
                return new RunResult(Map.of(), Map.of(), List.of(e.diagnostic()), null);
            }
        }
    };

    @TestFactory
    Stream<DynamicTest> everyCaseWithinTheContractPasses() {
        return SUITE.cases().stream().filter(c -> SUITE.skipReason(c).isEmpty()).map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            CaseResult r = Conformance.check(EMULATION, c);
            assertThat(r.passed()).as(r.message()).isTrue();
        }));
    }
}
