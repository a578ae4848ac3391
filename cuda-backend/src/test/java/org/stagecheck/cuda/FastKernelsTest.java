package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.lower.CudaSource;
import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.lower.Kernels;
import org.stagecheck.cuda.lower.LoweredProgram;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.compare.Policy;

/**
 * Fast kernels (docs/cuda.md, "Fast kernels") in host emulation: every checked-in golden case (the
 * examples and the tiny model's cuts) passes its {@code derived} tolerance; a program with a
 * 2048-long contraction is split as the rule says, differs from the exact kernels where the order
 * matters (f32 sums) and agrees bit for bit where it cannot (max, min, arg-max, i32 sums), and passes a case recorded
 * on the reference; two runs of a fast module give the same bits. One compile of every program
 * with fast kernels, one small one of the long program with exact kernels, both at {@code -O0}.
 */
@Tag("slow")
class FastKernelsTest {
    private static final Path CASES = Path.of("..", "golden", "cases");
    private static final long SEED = 5;
    private static List<Path> cases;
    private static List<Golden.Recorded> recorded;
    private static Program longContraction;
    private static CudaModule fast;
    private static CudaModule exactLong;

    @BeforeAll
    static void compileOnce() throws Exception {
        cases = Golden.expand(List.of(CASES));
        recorded = new ArrayList<>();
        List<Program> programs = new ArrayList<>();
        for (Path c : cases) {
            Golden.Recorded r = Golden.recorded(c);
            recorded.add(r);
            programs.add(r.program());
        }
        longContraction = readResource("long-contraction.json");
        programs.add(longContraction);
        CudaOptions o = TestBackends.emulation().withHostOpt(0);
        fast = new CudaBackend(o.withKernels(Kernels.FAST)).openAll(programs);
        exactLong = new CudaBackend(o).openAll(List.of(longContraction));
    }

    @AfterAll
    static void close() {
        if (fast != null) {
            fast.close();
        }
        if (exactLong != null) {
            exactLong.close();
        }
    }

    static Program readResource(String name) throws Exception {
        try (InputStream in = FastKernelsTest.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("test resource " + name + " is missing");
            }
            return new ProgramCodec().read(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static int longIndex() {
        return cases.size();
    }

    private static RunResult runFast(int index, Map<String, Tensor> bound, Map<String, Long> params) throws Exception {
        try (CudaSession s = CudaSession.of(fast, index)) {
            RunResult r = s.step(bound, params, false);
            assertThat(r.ok()).as("%s: %s", fast.lowered().get(index).program().name(), r.faults()).isTrue();
            return r;
        }
    }

    @Test
    void theCheckedInSuiteHoldsTheExamplesAndTheTinyCuts() {
        List<String> names = cases.stream().map(p -> p.getFileName().toString()).toList();
        assertThat(names).contains("tiny-decode", "tiny-decode-tp2", "tiny-prefill", "tiny-batch", "tiny-batch-tp2",
                "elementwise-chain", "embedding-lookup", "fp8-scaled-matmul", "scalar-offset-kv-ring",
                "tiled-matmul-multicast", "tp2-matmul-allreduce");
    }

    @TestFactory
    Stream<DynamicTest> everyGoldenCasePassesItsDerivedToleranceWithFastKernels() {
        List<DynamicTest> tests = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            int index = i;
            Path dir = cases.get(i);
            tests.add(DynamicTest.dynamicTest(dir.getFileName().toString(), () -> {
                Golden.Recorded r = recorded.get(index);
                RunResult run = runFast(index, r.inputs(), r.params());
                CaseResult c = Golden.check(dir, new Actuals.FromTensors(run.tensors()), new Policy.Derived(1));
                StringBuilder used = new StringBuilder();
                for (CaseResult.OutputResult o : c.outputs()) {
                    used.append(' ').append(o.tensor()).append('=').append(o.comparison().minimal().derivedScale());
                }
                System.out.println("fast kernels, " + dir.getFileName() + ": share of the derived tolerance used:" + used);
                assertThat(c.status()).as("%s: %s;%s", dir.getFileName(), c.message(), used).isEqualTo(CaseResult.Status.PASS);
            }));
        }
        return tests.stream();
    }

    @Test
    void theTinyDecodeStepSplitsEveryMatMulAndReduceTheRuleNames() {
        int decode = indexOf("tiny-decode");
        LoweredProgram exact = exactLowering(recorded.get(decode).program());
        LoweredProgram split = fast.lowered().get(decode);
        // from the program's shapes: MatMuls of one row with K = 32 (44 of them, 2 chunks) and
        // K = 64 (16, 4 chunks), sums of 32 elements (5, 2 chunks) and the 64-wide arg-max (4
        // chunks); K = 8 and 16 and the 16-long softmax reductions stay single chains
        assertThat(partials(split)).hasSize(66);
        assertThat(split.kernels()).hasSize(exact.kernels().size() + 66);
        assertThat(split.kernelSource()).contains("kk += 2)", "kk += 4)", "a += 4)").doesNotContain("kk += 8)");
    }

    @Test
    void aLongContractionIsSplitIntoThirtyTwoChunksByAPartialAndACombineKernel() {
        LoweredProgram exact = exactLong.lowered().getFirst();
        LoweredProgram split = fast.lowered().get(longIndex());
        List<String> stages = partials(split).stream().map(Kernel::stageId).toList();
        assertThat(stages).containsExactly("mm_bias", "mm_spill_first", "mm_spill_again", "row_sum", "row_max", "row_argmax",
                "column_sum", "int_sum", "int_min", "int_argmax");
        assertThat(split.kernels()).hasSize(exact.kernels().size() + stages.size());
        for (Kernel k : partials(split)) {
            List<Kernel> ofStage = split.kernelsOf(k.stageIndex());
            assertThat(ofStage).extracting(Kernel::name).containsExactly(k.name(), k.name().replace("_partials", "_combine"));
            // one thread per (output element, chunk): 32 chunks of 64 for every stage here
            assertThat(k.threads()).isEqualTo(32 * ofStage.get(1).threads());
        }
        assertThat(split.kernelSource()).contains("kk += 32)", "a += 32)", "s = e % 32", "s = e / 64");
        assertThat(exact.kernelSource()).doesNotContain("_partials").doesNotContain("kk += ");
    }

    @Test
    void fastKernelsDifferFromExactOnlyWhereTheOrderOfASumMatters(@TempDir Path dir) throws Exception {
        Map<String, Tensor> bound = RandomBindings.forProgram(longContraction, SEED);
        RunResult ref = new Interpreter(RunOptions.defaults().withThreads(1)).run(longContraction, bound, Map.of(), false);
        RunResult exact;
        try (CudaSession s = CudaSession.of(exactLong, 0)) {
            exact = s.step(bound, Map.of(), false);
        }
        RunResult quick = runFast(longIndex(), bound, Map.of());
        for (String t : List.of("y", "yt", "sums", "maxs", "top", "colsum", "isum", "imin", "itop")) {
            assertThat(exact.tensors().get(t).bitEquals(ref.tensors().get(t))).as("exact kernels, %s", t).isTrue();
        }
        for (String t : List.of("y", "yt", "sums", "colsum")) {
            assertThat(quick.tensors().get(t).bitEquals(exact.tensors().get(t))).as("fast kernels reorder the sums of %s", t).isFalse();
        }
        for (String t : List.of("maxs", "top", "isum", "imin", "itop")) {
            assertThat(quick.tensors().get(t).bitEquals(exact.tensors().get(t))).as("a max, a min or an i32 sum does not depend on the order: %s", t)
                    .isTrue();
        }
        Path golden = dir.resolve("long-contraction");
        Golden.record(longContraction, bound, Map.of(), RecordOptions.defaults(), golden);
        CaseResult c = Golden.check(golden, new Actuals.FromTensors(quick.tensors()));
        assertThat(c.status()).as(c.message()).isEqualTo(CaseResult.Status.PASS);
        for (CaseResult.OutputResult o : c.outputs()) {
            System.out.println("fast kernels, long contraction: " + o.tensor() + " uses " + o.comparison().minimal().derivedScale()
                    + " of its derived tolerance");
        }
    }

    @Test
    void aSplitArgMaxKeepsTheReferencesFirstMaximumAcrossChunks() throws Exception {
        // 32 interleaved chunks: index 33 is in chunk 1, index 2 in chunk 2, so the combine meets
        // the later index first and must prefer the smaller one among equal values (row 0) and
        // among NaNs (row 1: NaN at 34 in chunk 2 and at 3 in chunk 3)
        float[] x = new float[2 * 2048];
        Arrays.fill(x, -1f);
        x[33] = 5f;
        x[2] = 5f;
        x[2048 + 34] = Float.NaN;
        x[2048 + 3] = Float.NaN;
        Map<String, Tensor> bound = new LinkedHashMap<>(RandomBindings.forProgram(longContraction, SEED));
        bound.put("x", Tensor.fromFloats(DType.F32, Shape.of(2, 2048), x));
        RunResult ref = new Interpreter(RunOptions.defaults().withThreads(1)).run(longContraction, bound, Map.of(), false);
        RunResult quick = runFast(longIndex(), bound, Map.of());
        assertThat(ref.tensors().get("top").toInts()).containsExactly(2, 3);
        assertThat(quick.tensors().get("top").toInts()).containsExactly(2, 3);
    }

    @Test
    void aCombineThatDropsAChunkFailsTheGoldenCheck(@TempDir Path dir) throws Exception {
        Map<String, Tensor> bound = RandomBindings.forProgram(longContraction, SEED);
        Path golden = dir.resolve("long-contraction");
        Golden.record(longContraction, bound, Map.of(), RecordOptions.defaults(), golden);
        CudaModule.Lowered lowered = CudaModule.lower(List.of(longContraction), Kernels.FAST);
        String text = lowered.source().text();
        int at = text.indexOf("SC_KERNEL k4_mm_bias_combine(");
        int end = text.indexOf("\n}\n", at);
        String kernel = text.substring(at, end);
        String planted = kernel.replace("s < 32; s++)", "s < 31; s++)");
        assertThat(planted).isNotEqualTo(kernel);
        CudaSource buggy = new CudaSource(text.substring(0, at) + planted + text.substring(end), lowered.source().kernels());
        try (CudaModule m = CudaModule.build(new CudaModule.Lowered(lowered.programs(), buggy),
                TestBackends.emulation().withHostOpt(0).withKernels(Kernels.FAST), LauncherFactory.emulation());
             CudaSession s = CudaSession.of(m, 0)) {
            RunResult r = s.step(bound, Map.of(), false);
            CaseResult c = Golden.check(golden, new Actuals.FromTensors(r.tensors()));
            assertThat(c.status()).isEqualTo(CaseResult.Status.FAIL);
            assertThat(c.outputs()).filteredOn(o -> !o.comparison().passed()).extracting(CaseResult.OutputResult::tensor)
                    .containsExactly("y");
        }
    }

    @Test
    void fastKernelsGiveTheSameBitsOnEveryRunAndUnderGraphReplay() throws Exception {
        Map<String, Tensor> bound = RandomBindings.forProgram(longContraction, SEED + 1);
        assertSameBits(runFast(longIndex(), bound, Map.of()), runFast(longIndex(), bound, Map.of()));
        int decode = indexOf("tiny-decode");
        Golden.Recorded r = recorded.get(decode);
        RunResult eager = runFast(decode, r.inputs(), r.params());
        assertSameBits(eager, runFast(decode, r.inputs(), r.params()));
        try (CudaSession graphs = CudaSession.of(fast, decode, true)) {
            // the first step captures and replays, the second only replays
            for (int step = 0; step < 2; step++) {
                assertSameBits(eager, graphs.step(r.inputs(), r.params(), false));
            }
            assertThat(graphs.counters().replays()).isPositive();
        }
    }

    private static void assertSameBits(RunResult first, RunResult second) {
        assertThat(first.tensors().keySet()).isEqualTo(second.tensors().keySet()).isNotEmpty();
        first.tensors().forEach((name, t) -> assertThat(t.bitEquals(second.tensors().get(name))).as(name).isTrue());
    }

    private static int indexOf(String caseName) {
        for (int i = 0; i < cases.size(); i++) {
            if (cases.get(i).getFileName().toString().equals(caseName)) {
                return i;
            }
        }
        throw new IllegalStateException("no golden case " + caseName);
    }

    private static LoweredProgram exactLowering(Program p) {
        try {
            return CudaModule.lower(List.of(p)).programs().getFirst();
        } catch (CudaSetupException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<Kernel> partials(LoweredProgram p) {
        return p.kernels().stream().filter(k -> k.name().endsWith("_partials")).toList();
    }
}
