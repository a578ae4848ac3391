package org.stagecheck.tensor.npy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/** .npy/.npz round trips for every dtype, numpy's exact header bytes, and rejection of bad files. */
class NpyTest {
    @TempDir
    Path dir;

    private static Tensor sample(DType d) {
        return Tensor.fromFloats(d, Shape.of(2, 3), new float[] {0, -1.5f, 2.25f, Float.NaN, Float.POSITIVE_INFINITY, 1e-7f});
    }

    @ParameterizedTest
    @EnumSource(DType.class)
    void roundTripsEveryDtypeBitForBit(DType d) throws Exception {
        Tensor t = sample(d);
        Path f = dir.resolve(d + ".npy");
        Npy.write(f, t);
        assertThat(Npy.read(f, d).bitEquals(t)).isTrue();
    }

    @Test
    void fp8IsRawUint8ThatNeedsItsDeclaredDtype() throws Exception {
        Tensor t = Tensor.fromFloats(DType.E4M3, Shape.of(3), new float[] {1, -448, Float.NaN});
        Path f = dir.resolve("w.npy");
        Npy.write(f, t);
        byte[] bytes = java.nio.file.Files.readAllBytes(f);
        String header = new String(bytes, 10, bytes.length - 13, java.nio.charset.StandardCharsets.US_ASCII);
        assertThat(header).contains("'descr': '|u1'").contains("'shape': (3,)");
        // 1.0 = 0x38, -448 = 0xFE, NaN = 0x7F: the codes themselves, one byte each
        assertThat(java.util.Arrays.copyOfRange(bytes, bytes.length - 3, bytes.length)).containsExactly(0x38, 0xFE, 0x7F);
        assertThat(Npy.read(f, DType.E4M3).bitEquals(t)).isTrue();
        // the same bytes declared e5m2 are other values (0x38 is 0.5 there)
        assertThat(Npy.read(f, DType.E5M2).getFloat(0)).isEqualTo(0.5f);
        assertThatThrownBy(() -> Npy.read(f)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("w.npy").hasMessageContaining("no dtype was declared");
        assertThatThrownBy(() -> Npy.read(f, DType.F32)).isInstanceOf(TensorFileException.class)
                .hasMessageContaining("the program declares f32");
    }

    @Test
    void float64ModeTensorsAndScalarsRoundTrip() throws Exception {
        Tensor t = Tensor.fromDoubles(DType.F32, Shape.of(), new double[] {Math.PI});
        Npy.write(dir.resolve("pi.npy"), t);
        assertThat(Npy.read(dir.resolve("pi.npy")).bitEquals(t)).isTrue();
    }

    @Test
    void theHeaderIsWhatNumpyWrites() throws Exception {
        // np.save of np.arange(3, dtype='<i4'): 128-byte header block, ending in a newline
        Npy.write(dir.resolve("a.npy"), Tensor.fromInts(Shape.of(3), new int[] {0, 1, 2}));
        byte[] b = Files.readAllBytes(dir.resolve("a.npy"));
        assertThat(b).hasSize(128 + 12);
        assertThat(Arrays.copyOfRange(b, 0, 8)).containsExactly(0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0);
        String header = new String(b, 10, 118, StandardCharsets.US_ASCII);
        assertThat(header).startsWith("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }").endsWith("\n");
        assertThat(b[8] & 0xFF | (b[9] & 0xFF) << 8).isEqualTo(118);
    }

    @Test
    void bf16IsStoredAsItsUint16BitPatterns() throws Exception {
        Npy.write(dir.resolve("b.npy"), Tensor.fromFloats(DType.BF16, Shape.of(1), new float[] {1f}));
        byte[] b = Files.readAllBytes(dir.resolve("b.npy"));
        assertThat(new String(b, 10, 30, StandardCharsets.US_ASCII)).contains("'<u2'");
        assertThat(Arrays.copyOfRange(b, b.length - 2, b.length)).containsExactly(0x80, 0x3F);
    }

    @Test
    void npzRoundTripsASetInOrder() throws Exception {
        Map<String, Tensor> set = new LinkedHashMap<>();
        set.put("logits", sample(DType.F32));
        set.put("ids", Tensor.fromInts(Shape.of(2), new int[] {7, -1}));
        set.put("cache", sample(DType.BF16));
        Path f = dir.resolve("set.npz");
        Npy.writeNpz(f, set);
        Map<String, Tensor> back = Npy.readNpz(f);
        assertThat(back.keySet()).containsExactly("logits", "ids", "cache");
        set.forEach((k, v) -> assertThat(back.get(k).bitEquals(v)).as(k).isTrue());
        byte[] first = Files.readAllBytes(f);
        Npy.writeNpz(f, set);
        assertThat(Files.readAllBytes(f)).as("writing is deterministic").isEqualTo(first);
    }

    @Test
    void aTruncatedFileIsRejectedWithTheFileNamed() throws Exception {
        Path f = dir.resolve("t.npy");
        Npy.write(f, sample(DType.F32));
        byte[] b = Files.readAllBytes(f);
        Files.write(f, Arrays.copyOf(b, b.length - 3));
        assertThatThrownBy(() -> Npy.read(f)).isInstanceOf(TensorFileException.class)
                .hasMessage(f + ": truncated: shape [2, 3] of <f4 needs 24 data bytes but only 21 are present.");
    }

    @Test
    void trailingBytesAreInconsistent() throws Exception {
        Path f = dir.resolve("t.npy");
        Npy.write(f, sample(DType.F32));
        Files.write(f, new byte[] {1}, java.nio.file.StandardOpenOption.APPEND);
        assertThatThrownBy(() -> Npy.read(f)).hasMessageContaining("inconsistent: 1 bytes follow the data");
    }

    @Test
    void badMagicUnknownDtypeAndFortranOrderAreRejected() throws IOException {
        assertThatThrownBy(() -> Npy.read(write("m.npy", "NOTNUMPY", ""))).hasMessageContaining("not a .npy file");
        assertThatThrownBy(() -> Npy.read(write("d.npy", null, "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }")))
                .hasMessageContaining("dtype '>f4' is not supported");
        assertThatThrownBy(() -> Npy.read(write("o.npy", null, "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }")))
                .hasMessageContaining("Fortran-order");
        assertThatThrownBy(() -> Npy.read(write("s.npy", null, "{'descr': '<f4', 'fortran_order': False, 'shape': (a,), }")))
                .hasMessageContaining("is not a tuple of integers");
        assertThatThrownBy(() -> Npy.read(dir.resolve("absent.npy"))).hasMessageContaining("no such file");
    }

    @Test
    void aShapeBeyondTheSizeLimitIsRejectedBeforeAnyAllocation() throws IOException {
        Path f = write("big.npy", null, "{'descr': '<f4', 'fortran_order': False, 'shape': (65536, 65536), }");
        assertThatThrownBy(() -> Npy.read(f)).hasMessageContaining("exceed the limit of " + Npy.MAX_BYTES + " bytes");
    }

    private Path write(String name, String magic, String dict) throws IOException {
        Path f = dir.resolve(name);
        if (magic != null) {
            Files.writeString(f, magic + "xxxxxxxxxxxx");
            return f;
        }
        byte[] h = dict.getBytes(StandardCharsets.US_ASCII);
        byte[] out = new byte[10 + h.length + 4];
        byte[] pre = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (byte) h.length, (byte) (h.length >> 8)};
        System.arraycopy(pre, 0, out, 0, 10);
        System.arraycopy(h, 0, out, 10, h.length);
        Files.write(f, out);
        return f;
    }
}
