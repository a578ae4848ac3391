package org.stagecheck.golden.tolerance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.golden.Actuals;
import org.stagecheck.golden.CaseResult;
import org.stagecheck.golden.Golden;
import org.stagecheck.golden.RecordOptions;
import org.stagecheck.golden.Subjects;
import org.stagecheck.backend.MathMode;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * The derived tolerance holds at the depth of a whole decode step, judged by a backend written
 * independently of everything it checks ({@link Float64Decoder}: float64 math, f32 only at the
 * outputs): on every case below every tolerance element is finite, the correct backend (and the
 * same math with a softmax that does not subtract its maximum) passes using at most 0.3 of the
 * tolerance, and every bug that changes the math, in the last layer and the head included, is
 * rejected. The table of docs/golden.md ("Measured") is written to
 * {@code target/derived-tolerances.md} by this test, and the test fails when the document's
 * table is not that one.
 */
@Tag("slow")
class DeepToleranceTest {
    /** The largest share of its tolerance a correct backend may use. */
    private static final double MARGIN = 0.3;

    private static final List<String> ROWS = new ArrayList<>();

    @TempDir
    static Path tmp;

    /** One decode step to record and check. */
    record Case(String name, ModelSpec spec, int ctx, int pos, DType weights, MathMode mode) {
        @Override
        public String toString() {
            return name;
        }
    }

    static Stream<Case> cases() {
        ModelSpec deep = new ModelSpec("deep8", 256, 64, 8, 4, 2, 16, 128, 10000.0, 1e-5, 3L);
        return Stream.of(
                new Case("tiny decode pos 0", ModelSpec.tiny(), 16, 0, DType.F32, MathMode.FAST),
                new Case("tiny decode pos 9", ModelSpec.tiny(), 16, 9, DType.F32, MathMode.FAST),
                new Case("tiny decode pos 15, precise", ModelSpec.tiny(), 16, 15, DType.F32, MathMode.PRECISE),
                new Case("tiny decode pos 9, bf16 weights", ModelSpec.tiny(), 16, 9, DType.BF16, MathMode.FAST),
                new Case("tiny decode pos 9, f16 weights", ModelSpec.tiny(), 16, 9, DType.F16, MathMode.FAST),
                new Case("tiny decode pos 9, e4m3 weights", ModelSpec.tiny(), 16, 9, DType.E4M3, MathMode.FAST),
                new Case("8-layer decode pos 20", deep, 32, 20, DType.F32, MathMode.FAST),
                new Case("small decode pos 7", ModelSpec.small(), 32, 7, DType.F32, MathMode.FAST));
    }

    @BeforeAll
    static void clear() {
        ROWS.clear();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void aCorrectBackendPassesWithMarginAndEveryBugIsRejected(Case c) throws Exception {
        AuthorOutcome o = Author.author(c.spec(), Cut.decode(c.ctx()), new AuthorOptions(1, 2, 2, c.weights()));
        assertThat(o).as(c.name()).isInstanceOf(AuthorOutcome.Authored.class);
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) o;
        Map<String, Long> params = new LinkedHashMap<>(a.params());
        params.put("pos", (long) c.pos());
        Path dir = tmp.resolve(c.name().replaceAll("[^A-Za-z0-9]+", "-"));
        Manifest m = Golden.record(a.program(), a.bound(), params, RecordOptions.defaults().withMathMode(c.mode()), dir);

        double medianRel = assertFinite(c, dir, m);
        StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "| %s | %s | %.2g", c.name(), m.outputs().stream()
                .filter(x -> x.tolerance() != null).mapToLong(x -> x.shape().elementCount()).sum(), medianRel));
        Map<String, Tensor> correct = new Float64Decoder(c.spec(), Float64Decoder.Bug.NONE).step(a.bound(), c.pos());
        for (Float64Decoder.Bug bug : Float64Decoder.Bug.values()) {
            Map<String, Tensor> got = new Float64Decoder(c.spec(), bug).step(a.bound(), c.pos());
            CaseResult r = Golden.check(dir, new Actuals.FromTensors(got));
            double worst = worst(r);
            boolean correctMath = bug == Float64Decoder.Bug.NONE || bug == Float64Decoder.Bug.SOFTMAX_WITHOUT_MAX;
            if (correctMath) {
                assertThat(r.passed()).as("%s, %s: %s", c.name(), bug, r.message()).isTrue();
                assertThat(worst).as("%s, %s: worst |error| / tolerance", c.name(), bug).isLessThanOrEqualTo(MARGIN);
                row.append(String.format(Locale.ROOT, " | %.3f", worst));
            } else if (sameBits(got, correct)) {
                // e.g. at position 0 every rotation is the identity and the softmax of one score is 1
                row.append(" | (no effect)");
            } else {
                assertThat(r.passed()).as("%s: the bug %s passed (worst |error| / tolerance %s)", c.name(), bug, worst).isFalse();
                row.append(String.format(Locale.ROOT, " | %s", fmt(worst)));
            }
        }
        ROWS.add(row.append(" |").toString());
    }

    /** Every tolerance element finite and not NaN; returns the median tolerance / |expected| of the logits. */
    private static double assertFinite(Case c, Path dir, Manifest m) throws Exception {
        double median = Double.NaN;
        for (Manifest.Output out : m.outputs()) {
            if (out.tolerance() == null) {
                continue;
            }
            Tensor t = Npy.read(dir.resolve(out.tolerance()));
            Tensor e = Npy.read(dir.resolve(out.file()));
            List<Double> rel = new ArrayList<>();
            for (long i = 0; i < t.size(); i++) {
                double x = t.getDouble(i);
                assertThat(Double.isFinite(x)).as("%s: %s tolerance[%d] = %s", c.name(), out.tensor(), i, x).isTrue();
                if (e.getDouble(i) != 0) {
                    rel.add(x / Math.abs(e.getDouble(i)));
                }
            }
            if (out.tensor().equals("logits")) {
                double[] r = rel.stream().mapToDouble(Double::doubleValue).sorted().toArray();
                median = r[r.length / 2];
            }
        }
        return median;
    }

    /** The largest |error| / tolerance over the outputs (infinite where a tolerance-0 element differs or a value is wrong outright). */
    private static double worst(CaseResult r) {
        double w = 0;
        for (CaseResult.OutputResult o : r.outputs()) {
            double s = o.comparison().minimal().derivedScale();
            if (!Double.isNaN(s)) {
                w = Math.max(w, s);
            } else if (!o.comparison().passed()) {
                w = Double.POSITIVE_INFINITY;
            }
        }
        return w;
    }

    private static boolean sameBits(Map<String, Tensor> a, Map<String, Tensor> b) {
        return a.keySet().equals(b.keySet()) && a.entrySet().stream().allMatch(e -> e.getValue().bitEquals(b.get(e.getKey())));
    }

    private static String fmt(double v) {
        return Double.isInfinite(v) ? "inf" : String.format(Locale.ROOT, "%.3g", v);
    }

    @AfterAll
    static void writeTableAndCompareWithTheDocument() throws Exception {
        if (ROWS.size() != cases().count()) {
            return; // a filtered run: the table would be partial
        }
        StringBuilder t = new StringBuilder();
        t.append("| case | toleranced elements | logits: median tolerance / abs(value) |");
        for (Float64Decoder.Bug bug : Float64Decoder.Bug.values()) {
            t.append(' ').append(bug.label()).append(" |");
        }
        t.append('\n').append("| --- | ---: | ---:").append(" | ---:".repeat(Float64Decoder.Bug.values().length)).append(" |\n");
        ROWS.forEach(r -> t.append(r).append('\n'));
        Path target = Path.of("target", "derived-tolerances.md");
        Files.createDirectories(target.getParent());
        Files.writeString(target, t.toString());
        String doc = Files.readString(Subjects.root().resolve("docs/golden.md"));
        assertThat(doc).as("docs/golden.md must hold the table this test wrote to golden/%s (copy it there)", target)
                .contains(t.toString());
    }
}
