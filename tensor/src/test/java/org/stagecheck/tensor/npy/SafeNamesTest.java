package org.stagecheck.tensor.npy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Names are data: every name maps to one plain, portable file name, and back. */
class SafeNamesTest {
    static Stream<String> hostileNames() {
        return Stream.of("../../x", "..", ".", "/etc/passwd", "a/b", "a\\b", "C:\\x", "nul\0byte", "line\nbreak",
                "tab\t", "\u001b[31mred", "\u007f", "", " ", "x.", ".hidden", "CON", "con.npy", "Lpt1", "a:b*c?d\"e<f>g|h",
                "%41", "~2", "\u00e9t\u00e9", "\ud83d\ude00", "x".repeat(400), "../".repeat(100));
    }

    @ParameterizedTest
    @MethodSource("hostileNames")
    void everyHostileNameBecomesOnePlainFileNameThatDecodesBack(String name) {
        String f = SafeNames.encode(name);
        assertThat(f).doesNotContain("/").doesNotContain("\\").doesNotContain("\0").isNotIn(".", "..");
        assertThat(f).matches("[A-Za-z0-9_.%~-]+");
        assertThat(f).doesNotStartWith(".").doesNotEndWith(".");
        assertThat(f.length()).isLessThanOrEqualTo(SafeNames.MAX_FILE_NAME);
        assertThat(SafeNames.child(Path.of("/out"), f + ".npy").getParent()).isEqualTo(Path.of("/out"));
        if (!f.contains("~")) {
            assertThat(SafeNames.decode(f)).isEqualTo(name);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"wq.l0", "attn_norm.l1", "tokens.c1", "load_x", "a-b"})
    void ordinaryNamesAreTheirOwnFileNames(String name) {
        assertThat(SafeNames.encode(name)).isEqualTo(name);
    }

    @Test
    void theEncodingIsExactlyThisScheme() {
        assertThat(SafeNames.encode("../../x")).isEqualTo("%2E.%2F..%2Fx");
        assertThat(SafeNames.encode("a/b")).isEqualTo("a%2Fb");
        assertThat(SafeNames.encode("nul")).isEqualTo("%6Eul");
        assertThat(SafeNames.encode("100%")).isEqualTo("100%25");
        assertThat(SafeNames.encode("")).isEqualTo("%");
    }

    @Test
    void randomNamesRoundTripAndDistinctNamesGetDistinctFiles() {
        for (long seed = 0; seed < 200; seed++) {
            Random r = new Random(seed);
            StringBuilder a = new StringBuilder();
            int len = r.nextInt(12);
            for (int i = 0; i < len; i++) {
                a.append((char) r.nextInt(0x3000));
            }
            String name = a.toString().replaceAll("[\\ud800-\\udfff]", "x");
            assertThat(SafeNames.decode(SafeNames.encode(name))).as("seed " + seed).isEqualTo(name);
            assertThat(SafeNames.encode(name + "y")).as("seed " + seed).isNotEqualTo(SafeNames.encode(name));
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"%", "%4", "a%zz", "a/b", "%61", ".x", "x.", "CON"})
    void decodeRefusesWhatEncodeNeverMakes(String file) {
        if (file.equals("%")) {
            assertThat(SafeNames.decode(file)).isEmpty();
            return;
        }
        assertThatThrownBy(() -> SafeNames.decode(file)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void longNamesAreCutWithAHashAndStayDistinct() {
        String a = "x".repeat(300) + "a";
        String b = "x".repeat(300) + "b";
        assertThat(SafeNames.encode(a)).hasSizeLessThanOrEqualTo(SafeNames.MAX_FILE_NAME).contains("~");
        assertThat(SafeNames.encode(a)).isNotEqualTo(SafeNames.encode(b));
    }

    @Test
    void theTableSeparatesNamesThatCollideOnCaseInsensitiveFileSystems() {
        FileNameTable t = new FileNameTable();
        assertThat(t.fileOf("Wq", ".npy")).isEqualTo("Wq.npy");
        assertThat(t.fileOf("wq", ".npy")).isEqualTo("wq~2.npy");
        assertThat(t.fileOf("WQ", ".npy")).isEqualTo("WQ~3.npy");
        assertThat(t.fileOf("wq", ".npy")).isEqualTo("wq~2.npy");
        assertThat(t.files()).containsKeys("Wq", "wq", "WQ");
    }

    @Test
    void childRefusesAnythingButAPlainName() {
        for (String bad : new String[] {"..", ".", "a/b", "/abs", "a\\b", "", "a\0b"}) {
            assertThatThrownBy(() -> SafeNames.child(Path.of("/out"), bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
