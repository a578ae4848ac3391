package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.Cut;
import org.stagecheck.backend.MathMode;
import org.stagecheck.cuda.compile.Toolchain;
import org.stagecheck.cuda.lower.CudaSource;
import org.stagecheck.cuda.lower.Kernels;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Program;

/**
 * The same generated source compiles with nvcc (brief, "one source, two compilers") into a fatbin
 * that holds SASS for sm_90 and PTX for compute_90 (so a newer GPU can compile it just in time):
 * every example, the tiny decode step, a batch of generated programs, the fast-math header and fast kernels.
 * The entries are read from the fatbin's own headers, so no cuobjdump is needed. Skipped, saying
 * why, where nvcc is absent.
 */
@Tag("slow")
class NvccCompileTest {
    @BeforeAll
    static void needsNvcc() {
        assumeTrue(Toolchain.fromEnvironment().nvcc() != null, "nvcc is not installed (or STAGECHECK_NVCC not set): the device compile test is skipped");
    }

    /** Compiles {@code programs} as one module and requires SASS for sm_90 and PTX for compute_90 in it. */
    private static Path cubin(List<Program> programs, MathMode mode) throws Exception {
        return cubin(programs, mode, Kernels.EXACT);
    }

    private static Path cubin(List<Program> programs, MathMode mode, Kernels kernels) throws Exception {
        CudaSource source = CudaModule.lower(programs, kernels).source();
        Path fatbin = TestBackends.cache().deviceFatbin(source, mode);
        assertThat(FatbinEntries.read(Files.readAllBytes(fatbin))).as("the entries of %s", fatbin)
                .containsExactlyInAnyOrder(new FatbinEntries.Entry(FatbinEntries.Kind.ELF, 90), new FatbinEntries.Entry(FatbinEntries.Kind.PTX, 90));
        return fatbin;
    }

    @Test
    void everyExampleCompilesForSm90() throws Exception {
        List<Program> programs = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of("..", "examples"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".json")).sorted().toList()) {
                programs.add(ExamplesDifferentialTest.read(f));
            }
        }
        cubin(programs, MathMode.PRECISE);
    }

    @Test
    void theTinyDecodeStepCompilesForSm90() throws Exception {
        cubin(List.of(TinyModelDifferentialTest.author(Cut.decode(16), AuthorOptions.single()).program()), MathMode.PRECISE);
    }

    @Test
    void theFastMathHeaderCompilesForSm90() throws Exception {
        cubin(List.of(TranscendentalAgreementTest.program(org.stagecheck.spec.ir.Fn.EXP),
                TranscendentalAgreementTest.program(org.stagecheck.spec.ir.Fn.SIGMOID)), MathMode.FAST);
    }

    @Test
    void generatedProgramsCompileForSm90() throws Exception {
        List<Program> programs = new ArrayList<>();
        for (long seed = 2000; seed < 2006; seed++) {
            programs.add(RandomPrograms.generate(seed, GenOptions.small()));
        }
        cubin(programs, MathMode.PRECISE);
    }

    @Test
    void fastKernelsCompileForSm90() throws Exception {
        cubin(List.of(TinyModelDifferentialTest.author(Cut.decode(16), AuthorOptions.single()).program(),
                FastKernelsTest.readResource("long-contraction.json")), MathMode.PRECISE, Kernels.FAST);
    }
}
