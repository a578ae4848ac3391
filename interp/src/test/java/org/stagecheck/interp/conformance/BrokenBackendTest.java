package org.stagecheck.interp.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.conformance.CaseResult;
import org.stagecheck.conformance.Conformance;
import org.stagecheck.conformance.ConformanceCase;
import org.stagecheck.conformance.Expected;
import org.stagecheck.conformance.Tolerance;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * The suite can fail: the interpreter wrapped so that it gets one element one code wrong (one ulp
 * for a float, one for an integer), or skips a stage, fails the cases it touches, with messages
 * that name the case, the tensor and the element.
 */
class BrokenBackendTest {
    private static final Interpreter INTERPRETER = new Interpreter(RunOptions.defaults());

    /** The interpreter, with the lowest bit of element {@code index} of tensor {@code tensor} flipped. */
    private record OneCodeOff(String tensor, long index) implements Backend {
        @Override
        public String name() {
            return "one-code-off";
        }

        @Override
        public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
            RunResult r = INTERPRETER.run(program, bound, params, trace);
            Map<String, Tensor> tensors = new LinkedHashMap<>(r.tensors());
            tensors.computeIfPresent(tensor, (name, t) -> flipLowestBit(t, index));
            return new RunResult(tensors, r.trace(), r.faults(), r.stoppedAtStage());
        }
    }

    /** The interpreter, running the program without its last stage. */
    private record DropsTheLastStage() implements Backend {
        @Override
        public String name() {
            return "drops-a-stage";
        }

        @Override
        public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
            return INTERPRETER.run(program.withStages(program.stages().subList(0, program.stages().size() - 1)), bound, params, trace);
        }
    }

    /** {@code t} with the least significant bit of element {@code index} flipped: the next code up or down. */
    static Tensor flipLowestBit(Tensor t, long index) {
        byte[] bytes = t.littleEndianBytes();
        int width = t.dtype().byteSize();
        bytes[Math.toIntExact(index * width)] ^= 1;
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        Shape shape = t.shape();
        int n = Math.toIntExact(t.size());
        return switch (t.dtype()) {
            case F32 -> {
                float[] v = new float[n];
                b.asFloatBuffer().get(v);
                yield Tensor.wrapFloats(shape, v);
            }
            case BF16, F16 -> {
                short[] v = new short[n];
                b.asShortBuffer().get(v);
                yield Tensor.fromBits16(t.dtype(), shape, v);
            }
            case I32 -> {
                int[] v = new int[n];
                b.asIntBuffer().get(v);
                yield Tensor.fromInts(shape, v);
            }
            case E4M3, E5M2 -> Tensor.fromBits8(t.dtype(), shape, bytes);
        };
    }

    /** The first exactly-compared element of the case that is a number (a NaN flipped is still a NaN). */
    private static java.util.Optional<Map.Entry<String, Long>> target(ConformanceCase c) {
        for (Expected x : c.expected()) {
            if (!(x.tolerance() instanceof Tolerance.Exact)) {
                continue;
            }
            for (long i = 0; i < x.value().size(); i++) {
                if (!Double.isNaN(x.value().getDouble(i))) {
                    return java.util.Optional.of(Map.entry(x.tensor(), i));
                }
            }
        }
        return java.util.Optional.empty();
    }

    @TestFactory
    Stream<DynamicTest> oneCodeOffInAnyCheckedElementFailsThatCase() {
        return Conformance.allCases().stream().filter(c -> target(c).isPresent()).map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            Map.Entry<String, Long> t = target(c).orElseThrow();
            CaseResult r = Conformance.check(new OneCodeOff(t.getKey(), t.getValue()), c);
            assertThat(r.failed()).isTrue();
            assertThat(r.message()).startsWith("case '" + c.name() + "'").contains("tensor '" + t.getKey() + "'").contains("1 of ");
        }));
    }

    @Test
    void onlyCasesWithNoExactNumberEscapeTheOneCodeCheck() {
        // every case but those whose checked outputs are all under an ULP bound is covered above
        List<String> escaping = Conformance.allCases().stream().filter(c -> target(c).isEmpty()).map(ConformanceCase::name).toList();
        assertThat(escaping).allMatch(n -> n.startsWith("function/"));
    }

    @Test
    void aOneUlpErrorNamesTheCaseTheStageTheElementAndBothValues() {
        List<CaseResult> results = Conformance.suite().run(new OneCodeOff("out", 0));
        CaseResult plain = results.stream().filter(r -> r.caseName().equals("matmul/plain")).findFirst().orElseThrow();
        assertThat(plain.message()).isEqualTo("case 'matmul/plain' (out[i,j] = sum over k of A[i,k]*B[k,j]): tensor 'out' (stored by stage 'store'): "
                + "1 of 4 elements differ (exact): at [0, 0] expected 4.0 (f32 0x40800000), actual 4.0000005 (f32 0x40800001)");
        assertThat(Conformance.summary(results)).contains("FAILED case 'matmul/plain'");
    }

    @Test
    void aBackendThatDropsAStageFailsTheSuite() {
        List<CaseResult> results = Conformance.suite().run(new DropsTheLastStage());
        assertThat(results.stream().filter(CaseResult::failed).count()).as(Conformance.summary(results)).isGreaterThan(results.size() / 2);
        CaseResult subBlocks = results.stream().filter(r -> r.caseName().equals("store/sub-blocks")).findFirst().orElseThrow();
        assertThat(subBlocks.message()).startsWith("case 'store/sub-blocks'")
                .contains("tensor 'out' (stored by stage 'store'): 7 of 16 elements differ (exact): at [1, 1] expected 1.0 (f32 0x3f800000), actual 0.0 (f32 0x00000000)");
    }
}
