package org.stagecheck.tensor.npy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/**
 * Files around the 2 GiB data limit (sparse files: nothing is really written), the header read
 * without the data, chunked reading, and what a write leaves behind.
 */
@Tag("slow")
class NpySizeBoundaryTest {
    private static final long TWO_GIB = 1L << 31;

    @TempDir
    Path dir;

    /** A v1.0 header for {@code descr} and the shape text, then {@code dataBytes} of sparse zeros. */
    private Path sparse(String descr, String shape, long dataBytes) throws IOException {
        String dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
        int total = 10 + dict.length() + 1;
        int padded = (total + 63) / 64 * 64;
        String header = dict + " ".repeat(padded - total) + "\n";
        Path f = dir.resolve(descr.substring(1) + "-" + dataBytes + ".npy");
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.write(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
            raf.write(header.length() & 0xFF);
            raf.write(header.length() >>> 8);
            raf.write(header.getBytes(StandardCharsets.US_ASCII));
            raf.setLength(10 + header.length() + dataBytes);
        }
        return f;
    }

    @Test
    void oneByteShortOfTwoGibIsTruncatedAndSaidSoFromTheHeaderAlone() throws IOException {
        Path f = sparse("<u2", "(1073741824,)", TWO_GIB - 1);
        assertThatThrownBy(() -> Npy.readHeader(f)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("truncated").hasMessageContaining("2147483648 data bytes").hasMessageContaining("2147483647 are present");
        assertThatThrownBy(() -> Npy.read(f)).isInstanceOf(TensorFileException.class).hasMessageContaining("truncated");
    }

    @Test
    void exactlyTwoGibIsWithinTheLimitAndItsHeaderReadsWithoutTheData() throws Exception {
        Path f = sparse("<u2", "(1073741824,)", TWO_GIB);
        NpyHeader h = Npy.readHeader(f);
        assertThat(h.dataBytes()).isEqualTo(TWO_GIB);
        assertThat(h.dtype()).isEqualTo(DType.BF16);
        assertThat(h.shape()).isEqualTo(Shape.of(1 << 30));
        assertThat(h.describe()).isEqualTo("bf16[1073741824]");
    }

    @Test
    void exactlyTwoGibReadsWholeWithoutAnIntOverflow() throws Exception {
        assumeTrue(Runtime.getRuntime().maxMemory() >= 3L << 30, "needs a heap of 3 GiB");
        Path f = sparse("<i4", "(536870912,)", TWO_GIB);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.write(java.nio.ByteBuffer.wrap(new byte[] {7, 0, 0, 0}), Files.size(f) - 4); // the last element
        }
        Tensor t = Npy.read(f);
        assertThat(t.size()).isEqualTo(1L << 29);
        assertThat(t.getInt(0)).isZero();
        assertThat(t.getInt((1L << 29) - 1)).isEqualTo(7);
    }

    @Test
    void oneByteOverTwoGibIsTrailingData() throws IOException {
        Path f = sparse("<u2", "(1073741824,)", TWO_GIB + 1);
        assertThatThrownBy(() -> Npy.readHeader(f)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("1 bytes follow the data");
    }

    @Test
    void aShapeOfMoreThanTwoGibIsRefusedBeforeAnyData() throws IOException {
        Path f = sparse("<u2", "(1073741825,)", TWO_GIB + 2);
        assertThatThrownBy(() -> Npy.readHeader(f)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("exceed the limit of 2147483648 bytes");
        assertThatThrownBy(() -> Npy.read(f)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("exceed the limit");
    }

    @ParameterizedTest
    @ValueSource(ints = {8, 16, 24, 1000, 1 << 20})
    void chunkedReadingAndWritingGiveTheSameBytesForEveryChunkSize(int chunk) throws Exception {
        float[] v = new float[1001];
        for (int i = 0; i < v.length; i++) {
            v[i] = i * 0.37f - 100f;
        }
        for (Tensor t : new Tensor[] {Tensor.fromFloats(DType.F32, Shape.of(7, 143), v), Tensor.fromFloats(DType.BF16, Shape.of(1001), v),
                Tensor.fromFloats(DType.I32, Shape.of(1001), v), Tensor.fromFloats(DType.E4M3, Shape.of(1001), v), Tensor.fromFloats(DType.E5M2, Shape.of(1001), v), Tensor.wrapDoubles(DType.F32, Shape.of(1001), Tensor.fromFloats(DType.F32, Shape.of(1001), v).toDoubles())}) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            out.write(NpyFormat.headerBytes(t));
            NpyFormat.writeData(t, out, chunk);
            byte[] bytes = out.toByteArray();
            assertThat(bytes).isEqualTo(NpyFormat.encode(t));
            NpyFormat.Header h = NpyFormat.header(bytes, bytes.length, "x", Npy.MAX_BYTES, t.dtype());
            var ch = java.nio.channels.Channels.newChannel(new java.io.ByteArrayInputStream(bytes, h.dataStart(), bytes.length));
            assertThat(NpyFormat.decode(h, ch, "x", chunk).bitEquals(t)).isTrue();
        }
    }

    @Test
    void aWriteLeavesNoTemporaryFileFollowsTheUmaskAndReplacesAKilledWritesLeftover() throws IOException {
        Path f = dir.resolve("t.npy");
        Path leftover = dir.resolve(".t.npy" + Npy.TMP_SUFFIX);
        Files.writeString(leftover, "half of a killed write");
        Npy.write(f, Tensor.fromInts(Shape.of(2), new int[] {1, 2}));
        assertThat(leftover).doesNotExist();
        try (var s = Files.list(dir)) {
            assertThat(s.map(p -> p.getFileName().toString()).toList()).containsExactly("t.npy");
        }
        // created like any file of the process: group and others get what the umask leaves them
        Path probe = Files.createFile(dir.resolve("probe"));
        Set<PosixFilePermission> expected = Files.getPosixFilePermissions(probe);
        assertThat(Files.getPosixFilePermissions(f)).isEqualTo(expected);
    }
}
