package org.stagecheck.tensor.compare;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * A comparison streamed from .npy files finds what the comparison of the same tensors in memory
 * finds, figure for figure, heat map included: on random data of every dtype with NaN, infinities,
 * NaNs of other payloads and a derived tolerance (f32 and float64 files; some of it 0, infinite or
 * NaN), in tensors whose chunk and read boundaries fall mid-tensor, whatever the number of chunks
 * read at once and of threads. And the f32 kernel finds what the generic path finds.
 */
@Tag("slow")
class StreamedComparisonTest {
    /** 331 x 499 = 165 169 elements: five whole chunks of 2^15 and a part of a sixth; neither side divides the heat map's 256. */
    private static final Shape SHAPE = Shape.of(331, 499);
    private static final List<String> POLICIES = List.of("exact", "ulp 2", "allclose", "allclose 1e-3 1e-4", "pcc 0.99", "derived", "derived 2");

    @TempDir
    Path dir;

    /** Expected, actual (most elements a little off, some far), and a tolerance, with every kind of special value. */
    private record Data(Tensor expected, Tensor actual, Tensor tolF32, Tensor tolF64) {}

    private static Data data(DType d, Shape shape, long seed) {
        int n = Math.toIntExact(shape.elementCount());
        SplittableRandom r = new SplittableRandom(seed);
        float[] e = new float[n];
        float[] a = new float[n];
        double[] tol = new double[n];
        float payloadNaN = Float.intBitsToFloat(0x7fc0_0123);
        for (int i = 0; i < n; i++) {
            float v = (float) (r.nextGaussian() * 3);
            float w = switch (r.nextInt(4)) {
                case 0 -> v;
                case 1 -> (float) (v * (1 + r.nextGaussian() * 1e-3));
                case 2 -> (float) (v + r.nextGaussian() * 1e-2);
                default -> Math.nextUp(v);
            };
            if (d == DType.I32) {
                v = Math.round(v * 100);
                w = r.nextInt(5) == 0 ? v + r.nextInt(3) - 1 : v;
            }
            switch (r.nextInt(1000)) {
                case 0 -> v = Float.NaN;
                case 1 -> w = Float.NaN;
                case 2 -> {
                    v = Float.NaN;
                    w = d == DType.F32 ? payloadNaN : Float.NaN;
                }
                case 3 -> v = Float.POSITIVE_INFINITY;
                case 4 -> {
                    v = Float.NEGATIVE_INFINITY;
                    w = v;
                }
                case 5 -> w = Float.NEGATIVE_INFINITY;
                case 6 -> {
                    v = 0f;
                    w = -0f;
                }
                default -> { }
            }
            e[i] = v;
            a[i] = w;
            // tolerances of 0, infinity and NaN too (a derived bound can be any of them)
            tol[i] = switch (r.nextInt(100)) {
                case 0, 1 -> 0;
                case 2 -> Double.POSITIVE_INFINITY;
                case 3 -> Double.NaN;
                default -> Math.abs(r.nextGaussian() * 2e-3);
            };
        }
        float[] tolF = new float[n];
        for (int i = 0; i < n; i++) {
            tolF[i] = (float) tol[i];
        }
        return new Data(Tensor.fromFloats(d, shape, e), Tensor.fromFloats(d, shape, a),
                Tensor.fromFloats(DType.F32, shape, tolF), Tensor.fromDoubles(DType.F32, shape, tol));
    }

    private Operand write(String name, Tensor t) throws Exception {
        Path f = dir.resolve(name + ".npy");
        Npy.write(f, t);
        return Operand.NpyFile.open(f, t.dtype());
    }

    private static void assertSameMap(ErrorMap streamed, ErrorMap inMemory, String what) {
        if (inMemory == null) {
            assertThat(streamed).as(what).isNull();
            return;
        }
        assertThat(streamed).as(what).isNotNull();
        assertThat(List.of(streamed.rows(), streamed.cols(), streamed.srcRows(), streamed.srcCols())).as(what)
                .isEqualTo(List.of(inMemory.rows(), inMemory.cols(), inMemory.srcRows(), inMemory.srcCols()));
        assertThat(streamed.error()).as(what).isEqualTo(inMemory.error());
        assertThat(streamed.mismatch()).as(what).isEqualTo(inMemory.mismatch());
    }

    @ParameterizedTest
    @EnumSource(value = DType.class, names = {"F32", "BF16", "F16", "E4M3", "I32"})
    void filesReadInRangesGiveEveryFigureOfTheTensorsInMemory(DType d) throws Exception {
        Data x = data(d, SHAPE, d.ordinal());
        Operand e = write("e", x.expected());
        Operand a = write("a", x.actual());
        Operand tolF32 = write("t32", x.tolF32());
        Operand tolF64 = write("t64", x.tolF64());
        int compared = 0;
        for (String spelling : POLICIES) {
            Policy p = Policy.parse(spelling);
            for (boolean wide : new boolean[] {false, true}) {
                Tensor tol = wide ? x.tolF64() : x.tolF32();
                Comparison inMemory = Comparator.compare(x.expected(), x.actual(), p, tol);
                ErrorMap map = ErrorMap.of(x.expected(), x.actual(), p, tol, 256);
                for (int group : new int[] {1, 3, Scan.GROUP_CHUNKS}) {
                    String what = d + " " + spelling + (wide ? " float64 tolerance" : "") + ", " + group + " chunk(s) a read";
                    Comparator.Compared streamed = Comparator.compare(e, a, p, wide ? tolF64 : tolF32, 256, group);
                    assertThat(streamed.comparison()).as(what).isEqualTo(inMemory);
                    assertSameMap(streamed.errorMap(), map, what);
                    compared++;
                }
                // one side in memory, the other in a file
                Comparator.Compared mixed = Comparator.compare(Operand.of(x.expected()), a, p, wide ? tolF64 : Operand.of(tol), 256, 3);
                assertThat(mixed.comparison()).as(d + " " + spelling + " mixed").isEqualTo(inMemory);
                assertSameMap(mixed.errorMap(), map, d + " " + spelling + " mixed");
            }
        }
        assertThat(compared).isEqualTo(POLICIES.size() * 2 * 3);
        // the data exercises what it claims to: disagreements on NaN/Inf (i32 has none), differing finite elements
        Comparison c = Comparator.compare(x.expected(), x.actual(), new Policy.Exact());
        assertThat(c.nonFiniteMismatches() > 0).isEqualTo(d != DType.I32);
        assertThat(c.mismatches()).isGreaterThan(c.nonFiniteMismatches());
    }

    @Test
    void theF32KernelFindsWhatTheGenericPathFindsOnTheSameValues() throws Exception {
        // the same f32 values held as float64-mode doubles take the generic, element-by-element path
        Data x = data(DType.F32, SHAPE, 21);
        Tensor e64 = Tensor.fromDoubles(DType.F32, SHAPE, x.expected().toDoubles());
        Tensor a64 = Tensor.fromDoubles(DType.F32, SHAPE, x.actual().toDoubles());
        for (String spelling : POLICIES) {
            Policy p = Policy.parse(spelling);
            for (Tensor tol : new Tensor[] {null, x.tolF32(), x.tolF64()}) {
                if (tol == null && p instanceof Policy.Derived) {
                    continue;
                }
                Operand t = tol == null ? null : Operand.of(tol);
                Comparator.Compared fast = Comparator.compare(Operand.of(x.expected()), Operand.of(x.actual()), p, t, 256);
                Comparator.Compared generic = Comparator.compare(Operand.of(e64), Operand.of(a64), p, t, 256);
                String what = spelling + (tol == null ? "" : " with a tolerance");
                assertThat(fast.comparison()).as(what).isEqualTo(generic.comparison());
                assertSameMap(fast.errorMap(), generic.errorMap(), what);
            }
        }
    }

    @Test
    void theF32KernelRoundsEachElementsFiguresAsTheGenericPathDoes() {
        // one element at a time, so that each element's own smallest tolerances are the figures:
        // relative errors from 1e-7 to 1e-3, where rounding the needed atol or rtol up matters
        SplittableRandom r = new SplittableRandom(8);
        for (int k = 0; k < 3000; k++) {
            Policy p = k % 2 == 0 ? Policy.parse("allclose") : new Policy.Derived(1);
            float e = (float) (r.nextGaussian() * 10);
            float a = (float) (e * (1 + (r.nextBoolean() ? 1 : -1) * Math.pow(10, -7 + 4 * r.nextDouble())));
            double tol = Math.abs(r.nextGaussian() * 1e-5);
            Tensor tf = Tensor.fromDoubles(DType.F32, Shape.of(1), new double[] {tol});
            Comparison fast = Comparator.compare(Tensor.fromFloats(DType.F32, Shape.of(1), new float[] {e}),
                    Tensor.fromFloats(DType.F32, Shape.of(1), new float[] {a}), p, tf);
            Comparison generic = Comparator.compare(Tensor.fromDoubles(DType.F32, Shape.of(1), new double[] {e}),
                    Tensor.fromDoubles(DType.F32, Shape.of(1), new double[] {a}), p, tf);
            assertThat(fast).as("e %s, a %s, tolerance %s", e, a, tol).isEqualTo(generic);
        }
    }

    @Test
    void theFiguresDoNotDependOnTheThreadsThatReadTheChunks() throws Exception {
        Data x = data(DType.F32, Shape.of(3, 5, 13_001), 11);
        Operand e = write("e", x.expected());
        Operand a = write("a", x.actual());
        Operand tol = write("t", x.tolF32());
        Policy p = new Policy.Derived(1);
        List<Comparator.Compared> runs = new ArrayList<>();
        for (int threads : new int[] {1, 2, 5}) {
            ForkJoinPool pool = new ForkJoinPool(threads);
            try {
                runs.add(pool.submit(() -> Comparator.compare(e, a, p, tol, 64)).get());
            } finally {
                pool.shutdown();
            }
        }
        Comparison inMemory = Comparator.compare(x.expected(), x.actual(), p, x.tolF32());
        ErrorMap map = ErrorMap.of(x.expected(), x.actual(), p, x.tolF32(), 64);
        for (Comparator.Compared r : runs) {
            assertThat(r.comparison()).isEqualTo(inMemory);
            assertSameMap(r.errorMap(), map, "threads");
        }
    }

    @Test
    void theZeroToleranceOfAnIntegerOutputIsTheTensorOfZerosWithoutItsStorage() throws Exception {
        Data x = data(DType.I32, SHAPE, 5);
        Operand e = write("e", x.expected());
        Operand a = write("a", x.actual());
        Policy p = new Policy.Derived(1);
        Tensor zeros = Tensor.zerosFloat64(DType.F32, SHAPE);
        Comparator.Compared streamed = Comparator.compare(e, a, p, new Operand.Zeros(SHAPE), 256);
        assertThat(streamed.comparison()).isEqualTo(Comparator.compare(x.expected(), x.actual(), p, zeros));
        assertSameMap(streamed.errorMap(), ErrorMap.of(x.expected(), x.actual(), p, zeros, 256), "zeros");
    }

    @Test
    void aRankOneOrEmptyOutputHasNoHeatMapAndRefusalsComeBeforeAnyRead() throws Exception {
        Data x = data(DType.F32, Shape.of(70_000), 3);
        Comparator.Compared flat = Comparator.compare(write("e", x.expected()), write("a", x.actual()), Policy.parse("allclose"), null, 256);
        assertThat(flat.errorMap()).isNull();
        assertThat(flat.comparison()).isEqualTo(Comparator.compare(x.expected(), x.actual(), Policy.parse("allclose")));
        Tensor empty = Tensor.fromFloats(DType.F32, Shape.of(0, 4), new float[0]);
        Comparator.Compared none = Comparator.compare(write("z", empty), write("z2", empty), new Policy.Exact(), null, 256);
        assertThat(none.errorMap()).isNull();
        assertThat(none.comparison()).isEqualTo(Comparator.compare(empty, empty, new Policy.Exact()));
        Comparator.Compared shape = Comparator.compare(write("e", x.expected()), write("s", x.expected().reshaped(Shape.of(7, 10_000))),
                new Policy.Exact(), null, 256);
        assertThat(shape.comparison().problem()).contains("shape differs");
        assertThat(shape.errorMap()).isNull();
    }

    @Test
    void aFileThatChangesOrShrinksDuringTheCheckIsAnErrorNamingIt() throws Exception {
        Data x = data(DType.F32, SHAPE, 9);
        Operand e = write("e", x.expected());
        Operand a = write("a", x.actual());
        // rewritten with another shape after its header was read
        Npy.write(dir.resolve("a.npy"), x.actual().reshaped(Shape.of(499, 331)));
        assertThatThrownBy(() -> Comparator.compare(e, a, new Policy.Exact(), null, 256)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("a.npy").hasMessageContaining("changed");
        // cut short: the header no longer matches the size
        Operand b = write("b", x.actual());
        try (RandomAccessFile raf = new RandomAccessFile(dir.resolve("b.npy").toFile(), "rw")) {
            raf.setLength(raf.length() - 4096);
        }
        assertThatThrownBy(() -> Comparator.compare(e, b, new Policy.Exact(), null, 256)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("b.npy").hasMessageContaining("truncated");
    }
}
