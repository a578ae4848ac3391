package org.stagecheck.tensor.npy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;

/** Files a hostile user hands in: .npz archives that are not zips or inflate past their headers, .npy headers numpy would not write. */
class NpyHostileTest {
    @TempDir
    Path dir;

    /** A .npy v1.0 image whose header dict is {@code dict}, followed by {@code data}. */
    private static byte[] npy(String dict, byte[] data) {
        int unpadded = 10 + dict.length() + 1;
        String padded = dict + " ".repeat((64 - unpadded % 64) % 64) + "\n";
        ByteBuffer b = ByteBuffer.allocate(10 + padded.length() + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.put(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0}).putShort((short) padded.length());
        b.put(padded.getBytes(StandardCharsets.ISO_8859_1)).put(data);
        return b.array();
    }

    private Path zip(String file, Map<String, byte[]> members) throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(raw)) {
            for (var m : members.entrySet()) {
                z.putNextEntry(new ZipEntry(m.getKey()));
                z.write(m.getValue());
                z.closeEntry();
            }
        }
        return Files.write(dir.resolve(file), raw.toByteArray());
    }

    @Test
    void aFileThatIsNotAZipIsRefusedNotReadAsAnEmptyArchive() throws Exception {
        Path f = Files.writeString(dir.resolve("x.npz"), "this is not an archive at all");
        assertThatThrownBy(() -> Npy.readNpz(f)).isInstanceOf(TensorFileException.class).hasMessageContaining("not a .npz archive");
        Path empty = Files.write(dir.resolve("e.npz"), new byte[0]);
        assertThatThrownBy(() -> Npy.readNpz(empty)).isInstanceOf(TensorFileException.class).hasMessageContaining("not a .npz archive");
        Path npy = dir.resolve("t.npy");
        Npy.write(npy, Tensor.fromFloats(DType.F32, Shape.of(2), new float[] {1, 2}));
        assertThatThrownBy(() -> Npy.readNpz(npy)).isInstanceOf(TensorFileException.class).hasMessageContaining("not a .npz archive");
    }

    @Test
    void aMemberThatInflatesPastItsHeaderIsRefusedAfterReadingOnlyWhatTheHeaderSays() throws Exception {
        // 8 bytes of data promised, 64 MiB of zeros delivered (a few KiB compressed): a zip bomb in small
        byte[] bomb = new byte[64 << 20];
        byte[] head = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", new byte[8]);
        System.arraycopy(head, 0, bomb, 0, head.length);
        Path f = zip("bomb.npz", Map.of("x.npy", bomb));
        assertThat(Files.size(f)).isLessThan(1 << 20);
        assertThatThrownBy(() -> Npy.readNpz(f)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("bomb.npz!x.npy").hasMessageContaining("bytes follow the data");
    }

    @Test
    void aMemberWhoseHeaderClaimsMoreThanTheLimitIsRefusedBeforeAllocating() throws Exception {
        byte[] huge = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1073741824, 4), }", new byte[16]);
        Path f = zip("huge.npz", Map.of("x.npy", huge));
        assertThatThrownBy(() -> Npy.readNpz(f)).isInstanceOf(TensorFileException.class).hasMessageContaining("exceed the limit");
    }

    @Test
    void aTruncatedMemberIsRefused() throws Exception {
        byte[] shortData = npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", new byte[6]);
        Path f = zip("short.npz", Map.of("x.npy", shortData));
        assertThatThrownBy(() -> Npy.readNpz(f)).isInstanceOf(TensorFileException.class).hasMessageContaining("truncated");
    }

    @Test
    void aWellFormedArchiveStillReads() throws Exception {
        Tensor a = Tensor.fromFloats(DType.F32, Shape.of(2, 2), new float[] {1, -0f, Float.NaN, 3});
        Path f = dir.resolve("ok.npz");
        Npy.writeNpz(f, Map.of("a", a));
        assertThat(Npy.readNpz(f).get("a").bitEquals(a)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': __import__('os'), }",
            "{'descr': '<i4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } trailing",
            "garbage {'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"})
    void aHeaderThatIsNotNumpysDictOfThreeKeysIsRefused(String dict) throws Exception {
        Path f = Files.write(dir.resolve("h.npy"), npy(dict, new byte[8]));
        assertThatThrownBy(() -> Npy.read(f)).isInstanceOf(TensorFileException.class).hasMessageContaining("h.npy");
    }

    @Test
    void numpysOwnHeaderStillReads() throws Exception {
        Path f = Files.write(dir.resolve("n.npy"), npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                new byte[] {0, 0, (byte) 0x80, 0x3f, 0, 0, 0, (byte) 0xc0}));
        Tensor t = Npy.read(f);
        assertThat(t.getFloat(0)).isEqualTo(1f);
        assertThat(t.getFloat(1)).isEqualTo(-2f);
    }
}
