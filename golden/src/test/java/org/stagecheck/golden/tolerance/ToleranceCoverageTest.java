package org.stagecheck.golden.tolerance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.golden.Subjects;
import org.stagecheck.golden.Subjects.Subject;
import org.stagecheck.backend.MathMode;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.testing.PlantedBackend;
import org.stagecheck.golden.testing.Rounding;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.Precision;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * Every authored cut of {@code tiny} (every step and part, tp 1, 2 and 4, f32, bf16, f16 and fp8
 * weights, both math modes) and every example gets a derived tolerance that is finite at every
 * element; on the authored cuts a float64 evaluation rounded to the output dtypes, and on the
 * examples backends that evaluate each stage in float64 or reverse every matmul's k loop, pass using
 * at most 0.3 of it, while the same values moved by 0.1% are rejected on every output that has a
 * non-zero tolerance.
 */
@Tag("slow")
class ToleranceCoverageTest {
    @TempDir
    Path tmp;

    static Stream<Subject> subjects() {
        List<Subject> out = new ArrayList<>(Subjects.tinyCuts(true, true));
        ModelSpec tiny = ModelSpec.tiny();
        out.add(authored("tiny-decode-tp4", tiny, Cut.decode(16), AuthorOptions.split(4)));
        out.add(authored("tiny-decode-layer1-tp4", tiny, Cut.decodeLayer(1, 16), AuthorOptions.split(4)));
        out.add(authored("tiny-batch-tp4", tiny, Cut.batch(4, 16), AuthorOptions.split(4)));
        for (DType w : List.of(DType.BF16, DType.F16, DType.E4M3, DType.E5M2)) {
            out.add(authored("tiny-decode-" + w.jsonName(), tiny, Cut.decode(16), AuthorOptions.single().withWeights(w)));
            out.add(authored("tiny-prefill-" + w.jsonName(), tiny, Cut.prefill(4, 16), AuthorOptions.single().withWeights(w)));
            out.add(authored("tiny-batch-tp2-" + w.jsonName(), tiny, Cut.batch(4, 16), AuthorOptions.split(2).withWeights(w)));
        }
        return out.stream();
    }

    private static Subject authored(String name, ModelSpec spec, Cut cut, AuthorOptions options) {
        AuthorOutcome o = Author.author(spec, cut, options);
        if (!(o instanceof AuthorOutcome.Authored a)) {
            throw new IllegalStateException(name + ": " + o);
        }
        return new Subject(name, a.program(), a.bound(), a.params());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("subjects")
    void finiteTolerancesThatPassFloat64AndRejectATenthOfAPercent(Subject s) throws Exception {
        for (MathMode mode : MathMode.values()) {
            Path dir = tmp.resolve(s.name() + "-" + mode.spelling());
            Manifest m = Golden.record(s.program(), s.bound(), s.params(), RecordOptions.defaults().withMathMode(mode), dir);
            assertFinite(s.name(), dir, m);
            Map<String, Tensor> f64 = float64Outputs(s);
            CaseResult ok = Golden.check(dir, new Actuals.FromTensors(f64));
            assertThat(ok.passed()).as("%s (%s): float64 rounded to the outputs fails: %s", s.name(), mode, ok.message()).isTrue();
            for (CaseResult.OutputResult o : ok.outputs()) {
                double used = o.comparison().minimal().derivedScale();
                assertThat(Double.isNaN(used) || used <= 0.3).as("%s (%s) %s uses %s of its tolerance", s.name(), mode, o.tensor(), used).isTrue();
            }
            for (Manifest.Output out : m.outputs()) {
                if (out.tolerance() == null || maxOf(Npy.read(dir.resolve(out.tolerance()))) == 0) {
                    continue;
                }
                Map<String, Tensor> moved = new LinkedHashMap<>(f64);
                moved.put(out.tensor(), scaled(f64.get(out.tensor()), 1.001));
                CaseResult bad = Golden.check(dir, new Actuals.FromTensors(moved));
                assertThat(bad.passed()).as("%s (%s): %s moved by 0.1%% passes", s.name(), mode, out.tensor()).isFalse();
            }
        }
    }

    @Test
    void everyExampleGetsFiniteTolerancesAndBf16TruncationIsRejected() throws Exception {
        int truncated = 0;
        for (Subject s : Subjects.examples()) {
            Path dir = tmp.resolve("ex-" + s.name());
            Manifest m = Golden.record(s.program(), s.bound(), s.params(), RecordOptions.defaults(), dir);
            assertFinite(s.name(), dir, m);
            CaseResult self = Golden.check(dir, new Actuals.FromBackend(new org.stagecheck.interp.Interpreter(RunOptions.defaults())));
            assertThat(self.passed()).as(s.name()).isTrue();
            for (Rounding rounding : List.of(Rounding.K_REVERSED, Rounding.F64_PER_STAGE)) {
                CaseResult other = Golden.check(dir, new Actuals.FromBackend(PlantedBackend.correct(rounding)));
                assertThat(other.passed()).as("%s: a correct backend (%s) fails: %s", s.name(), rounding, other.message()).isTrue();
                for (CaseResult.OutputResult o : other.outputs()) {
                    double used = o.comparison().minimal().derivedScale();
                    assertThat(Double.isNaN(used) || used <= 0.3).as("%s (%s) %s uses %s of its tolerance", s.name(), rounding, o.tensor(), used).isTrue();
                }
            }
            if (!PlantedBackend.targets(s.program(), PlantedBackend.Bug.BF16_TRUNCATION).isEmpty()) {
                CaseResult r = Golden.check(dir, new Actuals.FromBackend(PlantedBackend.everywhere(PlantedBackend.Bug.BF16_TRUNCATION)));
                RunResult planted = PlantedBackend.everywhere(PlantedBackend.Bug.BF16_TRUNCATION).run(s.program(), s.bound(), s.params(), false);
                RunResult ref = new Interpreter(RunOptions.defaults()).run(s.program(), s.bound(), s.params());
                boolean changed = s.program().tensors().stream().filter(d -> d.role() == TensorRole.OUTPUT)
                        .anyMatch(d -> !planted.tensor(d.name()).bitEquals(ref.tensor(d.name())));
                assertThat(r.passed()).as("%s: bf16 rounding by truncation passes", s.name()).isEqualTo(!changed);
                truncated += changed ? 1 : 0;
            }
        }
        assertThat(truncated).as("examples where truncating instead of rounding changes an output").isPositive();
    }

    /** The program evaluated in float64 (the interpreter's F64 mode), each output rounded once to its dtype. */
    static Map<String, Tensor> float64Outputs(Subject s) {
        RunResult r = new Interpreter(RunOptions.defaults().withPrecision(Precision.F64)).run(s.program(), s.bound(), s.params());
        assertThat(r.faults()).as(s.name()).isEmpty();
        Map<String, Tensor> out = new LinkedHashMap<>();
        for (TensorDecl d : s.program().tensors()) {
            if (d.role() != TensorRole.OUTPUT && d.role() != TensorRole.STATE) {
                continue;
            }
            Tensor t = r.tensor(d.name());
            if (d.dtype().isFloating()) {
                float[] f = new float[Math.toIntExact(t.size())];
                for (int i = 0; i < f.length; i++) {
                    f[i] = org.stagecheck.tensor.numeric.Rounding.roundTo(d.dtype(), (float) t.getDouble(i));
                }
                out.put(d.name(), Tensor.fromFloats(d.dtype(), d.shape(), f));
            } else {
                out.put(d.name(), Tensor.wrapInts(d.shape(), t.toInts()));
            }
        }
        return out;
    }

    private static Tensor scaled(Tensor t, double by) {
        float[] f = new float[Math.toIntExact(t.size())];
        for (int i = 0; i < f.length; i++) {
            f[i] = org.stagecheck.tensor.numeric.Rounding.roundTo(t.dtype(), (float) (t.getDouble(i) * by));
        }
        return Tensor.fromFloats(t.dtype(), t.shape(), f);
    }

    private static double maxOf(Tensor t) {
        double m = 0;
        for (long i = 0; i < t.size(); i++) {
            m = Math.max(m, t.getDouble(i));
        }
        return m;
    }

    static void assertFinite(String name, Path dir, Manifest m) throws Exception {
        for (Manifest.Output out : m.outputs()) {
            if (out.tolerance() == null) {
                continue;
            }
            Tensor t = Npy.read(dir.resolve(out.tolerance()));
            for (long i = 0; i < t.size(); i++) {
                assertThat(Double.isFinite(t.getDouble(i))).as("%s: %s tolerance[%d] = %s", name, out.tensor(), i, t.getDouble(i)).isTrue();
            }
        }
    }
}
