package org.stagecheck.interp;

import java.util.SplittableRandom;
import org.stagecheck.proptest.SeededProperty;
import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.validate.Validator;

/**
 * Programs from the spec's generator (every kind, pattern and op), which the spec's validator
 * accepts, run to completion: the evaluator and the validator agree on what is well formed. Runs
 * are bit-identical with 1 and 3 threads and also complete in float64 mode. The only faults a
 * valid program may still meet are the data-dependent ones (an integer division by a zero read
 * from an input).
 */
class GeneratedProgramsTest {
    private static final List<String> DATA_FAULTS = List.of("DIV_BY_ZERO");

    /** Random floats; i32 inputs are 0, which lies inside every index table. */
    static Map<String, Tensor> bindings(Program p, long seed) {
        Random r = new Random(seed);
        Map<String, Tensor> out = new HashMap<>();
        for (TensorDecl t : p.tensors()) {
            if (!t.role().isBoundBeforeRun()) {
                continue;
            }
            int n = (int) t.shape().elementCount();
            if (t.dtype() == DType.I32) {
                out.put(t.name(), Tensor.fromInts(t.shape(), new int[n]));
            } else {
                float[] v = new float[n];
                for (int i = 0; i < n; i++) {
                    v[i] = (float) r.nextGaussian();
                }
                out.put(t.name(), Tensor.fromFloats(t.dtype(), t.shape(), v));
            }
        }
        return out;
    }

    static Map<String, Long> params(Program p, long seed) {
        Random r = new Random(seed);
        Map<String, Long> out = new HashMap<>();
        for (Param prm : p.params()) {
            out.put(prm.name(), prm.min() + (long) (r.nextDouble() * (prm.max() - prm.min() + 1)));
        }
        return out;
    }

    @SeededProperty(tries = 40)
    void validGeneratedProgramsRunAndAreThreadCountIndependent(long seed) {
        int stages = new SplittableRandom(seed).nextInt(0, 121);
        Program p = RandomPrograms.generate(seed, new GenOptions(2, 2, 2, stages, 8));
        assertThat(new Validator().validate(p)).as("the generator's programs validate").isEmpty();
        Map<String, Tensor> bound = bindings(p, seed);
        Map<String, Long> params = params(p, seed);
        RunResult one = new Interpreter(RunOptions.defaults().withThreads(1).withTrace(true)).run(p, bound, params);
        assertThat(one.faults()).extracting(Diagnostic::code).allMatch(DATA_FAULTS::contains);
        RunResult three = new Interpreter(RunOptions.defaults().withThreads(3).withTrace(true)).run(p, bound, params);
        assertThat(three.trace().keySet()).isEqualTo(one.trace().keySet());
        one.trace().forEach((id, outs) -> {
            for (int port = 0; port < outs.size(); port++) {
                assertThat(outs.get(port).bitEquals(three.trace().get(id).get(port))).as("stage %s port %d", id, port).isTrue();
            }
        });
        one.tensors().forEach((name, t) -> assertThat(t.bitEquals(three.tensor(name))).as(name).isTrue());
        RunResult f64 = new Interpreter(RunOptions.defaults().withPrecision(Precision.F64)).run(p, bound, params);
        assertThat(f64.faults()).extracting(Diagnostic::code).allMatch(DATA_FAULTS::contains);
    }
}
