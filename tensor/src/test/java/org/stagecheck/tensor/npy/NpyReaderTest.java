package org.stagecheck.tensor.npy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Storage;
import org.stagecheck.tensor.Tensor;

/** Ranges read by {@link NpyReader} are the elements {@link Npy#read} reads, and a bad file is refused as it refuses it. */
class NpyReaderTest {
    @TempDir
    Path dir;

    private static Tensor random(DType d, int n) {
        SplittableRandom r = new SplittableRandom(n);
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i % 97 == 0 ? Float.NaN : (float) (r.nextGaussian() * 100);
        }
        return Tensor.fromFloats(d, Shape.of(n / 7, 7), v);
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void everyRangeHoldsTheElementsAWholeReadHolds(DType d) throws Exception {
        Tensor t = random(d, 7 * 1001);
        Path f = dir.resolve("t.npy");
        Npy.write(f, t);
        try (NpyReader r = NpyReader.open(f, d)) {
            assertThat(r.header()).isEqualTo(Npy.readHeader(f, d));
            assertThat(r.elements()).isEqualTo(t.size());
            Storage buf = r.allocate(500);
            ByteBuffer bytes = r.buffer(500);
            // ranges that start and end anywhere, the last one short, through one reused buffer
            for (long from = 0; from < t.size(); from += 333) {
                int count = (int) Math.min(500, t.size() - from);
                r.read(from, count, buf, bytes);
                Tensor got = Tensor.wrap(d, Shape.of(500), buf);
                for (int k = 0; k < count; k++) {
                    assertThat(Float.floatToRawIntBits(got.getFloat(k))).as("element %d", from + k)
                            .isEqualTo(Float.floatToRawIntBits(t.getFloat(from + k)));
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void theHeaderAStreamingWriterPutsFirstIsTheOneAWholeWritePuts(DType d) throws Exception {
        Tensor t = random(d, 7 * 3);
        Path f = dir.resolve("t.npy");
        Npy.write(f, t);
        byte[] head = Npy.headerBytes(d, t.shape(), false);
        assertThat(java.util.Arrays.copyOf(Files.readAllBytes(f), head.length)).isEqualTo(head);
        Tensor wide = Tensor.fromDoubles(DType.F32, t.shape(), t.toDoubles());
        Npy.write(f, wide);
        byte[] wideHead = Npy.headerBytes(DType.F32, t.shape(), true);
        assertThat(java.util.Arrays.copyOf(Files.readAllBytes(f), wideHead.length)).isEqualTo(wideHead);
    }

    @Test
    void float64ModeDataReadsAsDoubles() throws Exception {
        Tensor t = Tensor.fromDoubles(DType.F32, Shape.of(5), new double[] {1e-300, -2, Double.NaN, 0.1, Double.MAX_VALUE});
        Path f = dir.resolve("d.npy");
        Npy.write(f, t);
        try (NpyReader r = NpyReader.open(f, null)) {
            assertThat(r.header().float64()).isTrue();
            Storage buf = r.allocate(3);
            r.read(2, 3, buf, r.buffer(3));
            assertThat(((Storage.Doubles) buf).values()).containsExactly(Double.NaN, 0.1, Double.MAX_VALUE);
        }
    }

    @Test
    void aBadFileIsRefusedWithTheMessageAWholeReadGives() throws Exception {
        Path f = dir.resolve("t.npy");
        Npy.write(f, random(DType.F32, 70));
        byte[] bytes = Files.readAllBytes(f);
        Files.write(f, java.util.Arrays.copyOf(bytes, bytes.length - 4));
        String whole = messageOf(() -> Npy.read(f, DType.F32));
        assertThat(whole).contains("truncated");
        assertThatThrownBy(() -> NpyReader.open(f, DType.F32)).isInstanceOf(TensorFileException.class).hasMessage(whole);
        assertThatThrownBy(() -> NpyReader.open(dir, DType.F32)).isInstanceOf(TensorFileException.class).hasMessageContaining("is a directory");
        assertThatThrownBy(() -> NpyReader.open(dir.resolve("none.npy"), DType.F32)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("no such file");
    }

    @Test
    void aFileCutShortAfterItWasOpenedIsAnErrorNotZeros() throws Exception {
        Path f = dir.resolve("t.npy");
        Npy.write(f, random(DType.F32, 7000));
        try (NpyReader r = NpyReader.open(f, DType.F32)) {
            try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
                raf.setLength(raf.length() - 400);
            }
            Storage buf = r.allocate(1000);
            ByteBuffer bytes = r.buffer(1000);
            r.read(0, 1000, buf, bytes);
            assertThatThrownBy(() -> r.read(6000, 1000, buf, bytes)).isInstanceOf(TensorFileException.class)
                    .hasMessageContaining("t.npy").hasMessageContaining("truncated while reading");
        }
    }

    private interface Read {
        void run() throws Exception;
    }

    private static String messageOf(Read r) {
        try {
            r.run();
        } catch (Exception e) {
            return e.getMessage();
        }
        throw new AssertionError("no error");
    }
}
