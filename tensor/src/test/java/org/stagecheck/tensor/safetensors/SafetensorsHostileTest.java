package org.stagecheck.tensor.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * Files a hostile or careless user hands in, built byte by byte: each is refused with a
 * TensorFileException (nothing else escapes) whose message names the file and the problem.
 */
class SafetensorsHostileTest {
    @TempDir
    Path dir;

    private Path file(String header, byte[] data) throws Exception {
        return StFiles.write(dir, "bad.safetensors", header, data);
    }

    private static void refused(Path f, String... fragments) {
        assertThatThrownBy(() -> {
            try (SafetensorsFile st = SafetensorsFile.open(f)) {
                assertThat(st).as("opened").isNull();
            }
        }).isExactlyInstanceOf(TensorFileException.class).hasMessageContaining(f.toString()).hasMessageContainingAll(fragments);
    }

    private void refusedHeader(String header, byte[] data, String... fragments) throws Exception {
        refused(file(header, data), fragments);
    }

    private static String one(String dtype, String shape, String offsets) {
        return "{\"t\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape + ",\"data_offsets\":" + offsets + "}}";
    }

    @Test
    void aFileShorterThanTheLengthIsRefused() throws Exception {
        refused(Files.write(dir.resolve("a"), new byte[0]), "is 0 bytes, shorter than the 8-byte header length");
        refused(Files.write(dir.resolve("b"), new byte[5]), "is 5 bytes");
    }

    @Test
    void aHeaderLengthPastTheFileIsRefused() throws Exception {
        byte[] img = StFiles.image(one("F32", "[1]", "[0,4]"), StFiles.f32s(1));
        ByteBuffer.wrap(img).order(ByteOrder.LITTLE_ENDIAN).putLong(0, img.length);
        refused(Files.write(dir.resolve("x"), img), "byte 0", "header length " + img.length, "runs past the end of the file");
    }

    @Test
    void aHundredMegabyteHeaderIsRefusedBeforeItIsRead() throws Exception {
        // a sparse file that really is that long: only the limit refuses it, not the file's end
        Path f = dir.resolve("huge.safetensors");
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(100_000_000L).array());
            raf.setLength(8 + 100_000_000L + 16);
        }
        refused(f, "header length 100000000 is over the limit of " + SafetensorsFile.MAX_HEADER_BYTES);
        Path g = Files.write(dir.resolve("neg"), ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(-1L).array());
        refused(g, "header length 18446744073709551615 is over the limit");
    }

    @Test
    void aTruncatedDataRegionIsRefused() throws Exception {
        refusedHeader(one("F32", "[4]", "[0,16]"), StFiles.f32s(3), "tensor 't'", "[0, 16)", "past the end of the data region, which holds 12 bytes");
    }

    @Test
    void aHeaderThatIsNotAJsonObjectIsRefused() throws Exception {
        refusedHeader("[1,2]", new byte[0], "header 1:1", "an array, not a JSON object");
        refusedHeader("", new byte[0], "header", "empty");
        refusedHeader("{\"t\": ", new byte[0], "header 1:", "malformed JSON");
        refusedHeader("{} {}", new byte[0], "header 1:4", "unexpected content");
    }

    @Test
    void aHeaderThatIsNotUtf8IsRefused() throws Exception {
        byte[] img = StFiles.image("{\"\u00e9\":1}", new byte[0]);
        img[10] = (byte) 0xC3;
        img[11] = (byte) 0x28; // an invalid continuation byte
        refused(Files.write(dir.resolve("u"), img), "is not valid UTF-8");
    }

    @Test
    void metadataMustMapStringsToStrings() throws Exception {
        refusedHeader("{\"__metadata__\":\"pt\"}", new byte[0], "header 1:17", "__metadata__ is a string; it must be an object of strings");
        refusedHeader("{\"__metadata__\":{\"format\":1}}", new byte[0], "__metadata__ 'format' is a number; metadata values must be strings");
    }

    @Test
    void anEntryNeedsExactlyDtypeShapeAndOffsets() throws Exception {
        refusedHeader("{\"t\":{\"dtype\":\"F32\",\"shape\":[1]}}", StFiles.f32s(1), "tensor 't' has no data_offsets");
        refusedHeader("{\"t\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":0}}", StFiles.f32s(1),
                "tensor 't' has an unknown field 'x'");
        refusedHeader("{\"t\":[0,4]}", StFiles.f32s(1), "tensor 't' is an array, not an object");
        refusedHeader("{\"t\":{\"dtype\":4,\"shape\":[1],\"data_offsets\":[0,4]}}", StFiles.f32s(1), "tensor 't': dtype is a number");
    }

    @Test
    void anUnknownDtypeIsRefused() throws Exception {
        refusedHeader(one("F128", "[1]", "[0,16]"), new byte[16], "header 1:15 (file byte 22)", "tensor 't' has the unknown dtype 'F128'");
        // the byte counts UTF-8 bytes: two for the e-acute before the dtype
        refusedHeader("{\"\u00e9\":{\"dtype\":\"X\",\"shape\":[],\"data_offsets\":[0,0]}}", new byte[0], "header 1:15 (file byte 23)",
                "tensor '\u00e9' has the unknown dtype 'X'");
    }

    @Test
    void shapesAndOffsetsMustBeNonNegativeIntegers() throws Exception {
        refusedHeader(one("F32", "[-1]", "[0,4]"), StFiles.f32s(1), "tensor 't': shape holds -1; it must hold non-negative integers");
        refusedHeader(one("F32", "[1.0]", "[0,4]"), StFiles.f32s(1), "shape holds 1.0");
        refusedHeader(one("F32", "[1e0]", "[0,4]"), StFiles.f32s(1), "shape holds 1e0");
        refusedHeader(one("F32", "[\"1\"]", "[0,4]"), StFiles.f32s(1), "shape holds a string");
        refusedHeader(one("F32", "4", "[0,4]"), StFiles.f32s(1), "shape is a number, not an array");
        refusedHeader(one("F32", "[1]", "[-4,0]"), StFiles.f32s(1), "data_offsets holds -4");
        refusedHeader(one("F32", "[1]", "[0]"), StFiles.f32s(1), "data_offsets has 1 numbers, not 2");
        refusedHeader(one("F32", "[1]", "[0,4.5]"), StFiles.f32s(1), "data_offsets holds 4.5");
        refusedHeader(one("F32", "[99999999999999999999]", "[0,4]"), StFiles.f32s(1), "shape holds 99999999999999999999, more than a 64-bit count");
        refusedHeader(one("F32", "[1]", "[4,0]"), StFiles.f32s(1), "data_offsets [4, 0) end before they begin");
    }

    @Test
    void anElementCountOrByteLengthThatOverflowsIsRefused() throws Exception {
        refusedHeader(one("F32", "[4294967296,4294967296,4]", "[0,4]"), StFiles.f32s(1), "has more elements than a 64-bit count holds");
        refusedHeader(one("F32", "[4611686018427387904]", "[0,4]"), StFiles.f32s(1), "has more bytes than a 64-bit count holds");
    }

    @Test
    void aByteLengthThatDisagreesWithTheShapeIsRefused() throws Exception {
        refusedHeader(one("F32", "[2,2]", "[0,12]"), StFiles.f32s(3), "data_offsets [0, 12) hold 12 bytes, but shape [2, 2] of F32 needs 16");
        refusedHeader(one("BF16", "[2,2]", "[0,16]"), StFiles.f32s(4), "needs 8");
    }

    @Test
    void overlappingRangesAreRefused() throws Exception {
        String h = "{" + StFiles.entry("a", "F32", "[2]", 0, 8) + "," + StFiles.entry("b", "F32", "[2]", 4, 12) + "}";
        refusedHeader(h, StFiles.f32s(3), "tensor 'b' (data bytes [4, 12), file bytes from " + (8 + h.length() + 4) + ")",
                "overlaps tensor 'a' (data bytes [0, 8))");
    }

    @Test
    void holesInTheDataRegionAreRefused() throws Exception {
        String h = "{" + StFiles.entry("a", "F32", "[2]", 0, 8) + "," + StFiles.entry("b", "F32", "[2]", 12, 20) + "}";
        long start = 8 + h.length();
        refusedHeader(h, StFiles.f32s(5), "data bytes [8, 12) (file bytes [" + (start + 8) + ", " + (start + 12) + "))",
                "belong to no tensor (a hole before tensor 'b')");
        refusedHeader(one("F32", "[1]", "[0,4]"), StFiles.f32s(2), "data bytes [4, 8)", "after the last tensor belong to no tensor");
        refusedHeader("{}", StFiles.f32s(1), "data bytes [0, 4) (file bytes [10, 14)) after the last tensor");
    }

    @Test
    void duplicateAndEmptyNamesAreRefused() throws Exception {
        String h = "{" + StFiles.entry("a", "F32", "[1]", 0, 4) + "," + StFiles.entry("a", "F32", "[1]", 4, 8) + "}";
        refusedHeader(h, StFiles.f32s(2), "header 1:", "a name appears twice in the header", "Duplicate field 'a'");
        refusedHeader("{" + StFiles.entry("", "F32", "[1]", 0, 4) + "}", StFiles.f32s(1), "a tensor has an empty name");
    }

    @Test
    void dtypesStagecheckDoesNotReadAreRefusedByName() throws Exception {
        String h = "{" + StFiles.entry("d", "F64", "[1]", 0, 8) + "," + StFiles.entry("i", "I64", "[1]", 8, 16) + ","
                + StFiles.entry("e", "F8_E4M3", "[2]", 16, 18) + "," + StFiles.entry("f", "F32", "[1]", 18, 22) + "}";
        Path f = file(h, new byte[22]);
        try (SafetensorsFile st = SafetensorsFile.open(f)) {
            assertThat(st.entry("d").dtype()).isNull();
            assertThat(st.entry("e").dtype()).isNull();
            for (String[] t : new String[][] {{"d", "F64"}, {"i", "I64"}, {"e", "F8_E4M3"}}) {
                assertThatThrownBy(() -> st.read(t[0])).isExactlyInstanceOf(TensorFileException.class)
                        .hasMessageContainingAll(f.toString(), "tensor '" + t[0] + "' is " + t[1], "stagecheck reads f32, bf16 and f16 weights");
            }
            assertThatThrownBy(() -> st.read("nope")).isExactlyInstanceOf(TensorFileException.class).hasMessageContaining("has no tensor 'nope'");
            assertThatThrownBy(() -> st.readTransposed("f")).isExactlyInstanceOf(TensorFileException.class)
                    .hasMessageContaining("tensor 'f' has shape [1], not two dimensions");
            assertThat(st.read("f").getFloat(0)).isZero();
        }
    }

    @Test
    void aTensorOverTheElementLimitIsRefusedByName() throws Exception {
        long n = Tensor.MAX_ELEMENTS + 1;
        String header = one("F16", "[" + n + "]", "[0," + 2 * n + "]");
        Path f = dir.resolve("big.safetensors");
        byte[] img = StFiles.image(header, new byte[0]);
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.write(img);
            raf.setLength(img.length + 2 * n); // sparse: no disk used
        }
        try (SafetensorsFile st = SafetensorsFile.open(f)) {
            assertThatThrownBy(() -> st.read("t")).isExactlyInstanceOf(TensorFileException.class)
                    .hasMessageContainingAll("tensor 't' has " + n + " elements, more than the " + Tensor.MAX_ELEMENTS);
        }
    }

    @Test
    void aFileThatShrinksAfterOpeningAndAClosedFileAreRefused() throws Exception {
        Path f = file(one("F32", "[4]", "[0,16]"), StFiles.f32s(4));
        SafetensorsFile st = SafetensorsFile.open(f);
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
            ch.truncate(Files.size(f) - 4);
        }
        assertThatThrownBy(() -> st.read("t")).isExactlyInstanceOf(TensorFileException.class)
                .hasMessageContainingAll("became shorter since it was opened", "tensor 't' ends at byte");
        st.close();
        st.close();
        assertThatThrownBy(() -> st.read("t")).isExactlyInstanceOf(TensorFileException.class).hasMessageContaining("is closed");
    }

    @Test
    void directoriesAndMissingFilesAreRefused() throws Exception {
        assertThatThrownBy(() -> SafetensorsFile.open(dir)).isExactlyInstanceOf(TensorFileException.class).hasMessageContaining("is a directory");
        assertThatThrownBy(() -> SafetensorsFile.open(dir.resolve("none"))).isExactlyInstanceOf(TensorFileException.class)
                .hasMessageContaining("no such file");
    }
}
