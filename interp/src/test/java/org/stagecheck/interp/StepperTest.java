package org.stagecheck.interp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.stagecheck.backend.FaultCode;
import org.stagecheck.backend.RunResult;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.tensor.Tensor;

/**
 * The Stepper is the interpreter one stage at a time: stepping through a program gives every
 * stage the outputs a traced run records, bit for bit, in f32 and f64; a stage run alone on the
 * trace's values of its inputs gives them too.
 */
class StepperTest {
    @SeededProperty(tries = 25)
    void steppingThroughAProgramGivesTheTracedRunsValuesBitForBit(long seed) throws StageFault {
        int stages = new SplittableRandom(seed).nextInt(1, 61);
        Program p = RandomPrograms.generate(seed, new GenOptions(2, 2, 2, stages, 8));
        Map<String, Tensor> bound = GeneratedProgramsTest.bindings(p, seed);
        Map<String, Long> params = GeneratedProgramsTest.params(p, seed);
        for (Precision precision : Precision.values()) {
            RunResult run = new Interpreter(RunOptions.defaults().withThreads(1).withTrace(true).withPrecision(precision)).run(p, bound, params);
            try (Stepper s = new Stepper(p, precision, params)) {
                for (var d : p.tensors()) {
                    Tensor t = bound.get(d.name());
                    s.putSharedTensor(d.name(), t != null && precision == Precision.F64 && d.dtype().isFloating()
                            ? Tensor.wrapDoubles(t.dtype(), t.shape(), t.toDoubles())
                            : t != null ? t : (precision == Precision.F64 && d.dtype().isFloating() ? Tensor.zerosFloat64(d.dtype(), d.shape()) : Tensor.zeros(d.dtype(), d.shape())));
                }
                for (Stage st : p.stages()) {
                    if (run.stoppedAtStage() != null && run.stoppedAtStage().equals(st.id())) {
                        assertThatThrownBy(() -> s.run(st)).isInstanceOf(StageFault.class);
                        break;
                    }
                    s.run(st);
                    sameValues(s.outputs(st), run.trace().get(st.id()), precision + " stage " + st.id());
                }
                if (run.ok()) {
                    run.tensors().forEach((name, t) -> assertThat(t.bitEquals(s.tensors().get(name))).as(name).isTrue());
                }
            }
        }
    }

    @SeededProperty(tries = 25)
    void aComputeStageRunAloneOnItsTracedInputsGivesItsTracedOutputs(long seed) throws StageFault {
        Program p = RandomPrograms.generate(seed, new GenOptions(2, 2, 2, 40, 8));
        Map<String, Tensor> bound = GeneratedProgramsTest.bindings(p, seed);
        Map<String, Long> params = GeneratedProgramsTest.params(p, seed);
        RunResult run = new Interpreter(RunOptions.defaults().withTrace(true)).run(p, bound, params);
        try (Stepper walk = new Stepper(p, Precision.F32, params)) {
            bound.forEach(walk::putSharedTensor);
            for (var d : p.tensors()) {
                if (!bound.containsKey(d.name())) {
                    walk.putTensor(d.name(), Tensor.zeros(d.dtype(), d.shape()));
                }
            }
            for (Stage st : p.stages()) {
                if (run.trace().get(st.id()) == null) {
                    break;
                }
                if (st.kind() instanceof StageKind.Compute) {
                    assertThat(walk.inputs(st)).hasSize(st.ins().size());
                    try (Stepper alone = new Stepper(p, Precision.F32, params)) {
                        // every buffer written so far (ports, and the bias or spill an op names), substituted
                        for (var b : p.buffers()) {
                            Tensor v = walk.readOrNull(b.name());
                            if (v != null) {
                                alone.write(b.name(), v);
                            }
                        }
                        alone.run(st);
                        sameValues(alone.outputs(st), run.trace().get(st.id()), "stage " + st.id() + " alone");
                    }
                }
                walk.run(st);
            }
        }
    }

    @SeededProperty(tries = 1)
    void readingABufferNoStageWroteIsAFaultWithItsCode(long seed) {
        Program p = RandomPrograms.generate(seed, new GenOptions(2, 2, 2, 5, 8));
        try (Stepper s = new Stepper(p, Precision.F32, Map.of())) {
            String buffer = p.buffers().getFirst().name();
            assertThatThrownBy(() -> s.read(buffer)).isInstanceOfSatisfying(StageFault.class,
                    f -> assertThat(f.code()).isEqualTo(FaultCode.READ_BEFORE_WRITE));
            assertThatThrownBy(() -> s.read("no_such_buffer")).isInstanceOfSatisfying(StageFault.class,
                    f -> assertThat(f.code()).isEqualTo(FaultCode.UNKNOWN_BUFFER));
        }
    }

    private static void sameValues(List<Tensor> got, List<Tensor> traced, String what) {
        assertThat(traced).as(what + " is traced").isNotNull();
        assertThat(got).as(what).hasSameSizeAs(traced);
        for (int i = 0; i < got.size(); i++) {
            assertThat(got.get(i).bitEquals(traced.get(i))).as(what + " port " + i).isTrue();
        }
    }
}
