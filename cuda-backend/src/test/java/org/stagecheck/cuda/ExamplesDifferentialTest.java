package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * Every example program in host emulation against the reference, traced (so a disagreement names
 * the first divergent stage), at each parameter's minimum and maximum, on random bindings.
 */
class ExamplesDifferentialTest {
    private static CudaModule module;
    private static List<Program> programs;

    @BeforeAll
    static void compileOnce() throws Exception {
        programs = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("..", "examples"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                programs.add(read(f));
            }
        }
        module = new CudaBackend(TestBackends.emulation()).openAll(programs);
    }

    @AfterAll
    static void close() {
        if (module != null) {
            module.close();
        }
    }

    static Program read(Path f) throws IOException {
        try {
            return new ProgramCodec().read(Files.readString(f));
        } catch (Exception e) {
            throw new IOException("cannot read " + f + ": " + e.getMessage(), e);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyExampleAgreesWithTheReference() {
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < programs.size(); i++) {
            Program p = programs.get(i);
            int index = i;
            for (boolean atMax : new boolean[] {false, true}) {
                tests.add(DynamicTest.dynamicTest(p.name() + (atMax ? " at max params" : " at min params"), () -> {
                    Map<String, Long> params = new LinkedHashMap<>();
                    for (Param prm : p.params()) {
                        params.put(prm.name(), atMax ? prm.max() : prm.min());
                    }
                    Map<String, Tensor> bound = RandomBindings.forProgram(p, 11);
                    RunResult ref = new Interpreter(RunOptions.defaults().withThreads(1)).run(p, bound, params, true);
                    RunResult act = CudaSession.of(module, index).step(bound, params, true);
                    assertThat(ref.ok()).as("reference: %s", ref.faults()).isTrue();
                    assertThat(Agreement.compare(p, ref, act)).as(p.name()).isEmpty();
                }));
            }
        }
        return tests.stream();
    }
}
