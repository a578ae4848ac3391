package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Program;

/**
 * Fuzzing the reader (JsonReader + ProgramCodec): whatever the bytes, reading ends in a program or
 * a {@link JsonFormatException}; never another exception, never a StackOverflowError or
 * OutOfMemoryError, never a hang.
 */
@Tag("slow")
class ReaderFuzzTest {
    /** A bound that only a hang exceeds: the reads take about a second alone, more on a loaded machine. */
    private static final Duration BOUND = Duration.ofSeconds(60);
    private final ProgramCodec codec = new ProgramCodec();
    /** A generated program holding every kind: about 18 KB of canonical JSON. */
    private final byte[] valid = codec.write(RandomPrograms.generate(1L, GenOptions.small()));

    /** What reading gave: the program, or null for a format error. Anything else fails the test, naming the input. */
    private Program readBytes(byte[] bytes, String what) {
        try {
            return codec.read(new JsonReader().read(new ByteArrayInputStream(bytes)));
        } catch (JsonFormatException e) {
            assertThat(e.getMessage()).as("message for %s", what).isNotBlank().doesNotContain("[Source:");
            return null;
        } catch (Throwable t) {
            return fail("reading " + what + " threw " + t, t);
        }
    }

    private Program readText(String text, String what) {
        try {
            return codec.read(text);
        } catch (JsonFormatException e) {
            assertThat(e.getMessage()).as("message for %s", what).isNotBlank().doesNotContain("[Source:");
            return null;
        } catch (Throwable t) {
            return fail("reading " + what + " threw " + t, t);
        }
    }

    /** A program that was accepted must write and read back to itself: acceptance is never half-way. */
    private void acceptedRoundTrips(Program p, String what) {
        if (p != null) {
            try {
                assertThat(codec.read(codec.writeString(p))).as(what).isEqualTo(p);
            } catch (JsonFormatException e) {
                fail("accepted " + what + " but could not read back what it wrote: " + e.getMessage());
            }
        }
    }

    @Test
    void everyProperPrefixOfAProgramIsAFormatError() {
        assertTimeoutPreemptively(BOUND, () -> {
            String text = new String(valid, StandardCharsets.UTF_8).stripTrailing();
            for (int n = 0; n < text.length(); n++) {
                assertThat(readText(text.substring(0, n), "prefix " + n)).as("prefix of length %d", n).isNull();
            }
            assertThat(readText(text, "the whole program")).isNotNull();
        });
    }

    @Test
    void everyProperPrefixOfTheBytesIsAFormatErrorEvenInsideAMultiByteCharacter() {
        byte[] named = codec.write(new Program("π € 𝄞 ∑", new org.stagecheck.spec.ir.Machine(1, 1, 1),
                java.util.List.of(), java.util.List.of(), java.util.List.of(), java.util.List.of(), java.util.List.of()));
        assertTimeoutPreemptively(BOUND, () -> {
            for (int n = 0; n < named.length - 1; n++) { // the last byte is the final newline
                assertThat(readBytes(Arrays.copyOf(named, n), "byte prefix " + n)).isNull();
            }
        });
    }

    @Test
    void randomByteFlipsGiveAFormatErrorOrAProgramThatRoundTrips() {
        assertTimeoutPreemptively(BOUND, () -> {
            SplittableRandom rnd = new SplittableRandom(20260101L);
            int accepted = 0;
            for (int iter = 0; iter < 3000; iter++) {
                byte[] b = valid.clone();
                int flips = rnd.nextInt(1, 4);
                StringBuilder what = new StringBuilder("flips");
                for (int f = 0; f < flips; f++) {
                    int at = rnd.nextInt(b.length);
                    // half the time a printable character (keeps the text JSON-like), else any byte
                    byte v = rnd.nextBoolean() ? (byte) rnd.nextInt(0x20, 0x7f) : (byte) rnd.nextInt(256);
                    what.append(' ').append(at).append('=').append(v & 0xff);
                    b[at] = v;
                }
                Program p = readBytes(b, what.toString());
                acceptedRoundTrips(p, what.toString());
                accepted += p == null ? 0 : 1;
            }
            // Most flips land in names or numbers and still parse: the loop exercises both outcomes.
            assertThat(accepted).isBetween(1, 2999);
        });
    }

    @Test
    void deepNestingIsAFormatErrorNotAStackOverflow() {
        assertTimeoutPreemptively(BOUND, () -> {
            assertThat(readText("[".repeat(100_000), "100000 '['")).isNull();
            assertThat(readText("{\"a\":".repeat(100_000), "100000 nested objects")).isNull();
            assertThat(readText("[".repeat(100_000) + "]".repeat(100_000), "100000 balanced '[]'")).isNull();
            String inside = new String(valid, StandardCharsets.UTF_8).replaceFirst("\"params\": \\[", "\"params\": " + "[".repeat(50_000));
            assertThat(readText(inside, "nesting inside a program")).isNull();
        });
    }

    @Test
    void deeplyNestedExpressionsAreAFormatErrorNotAStackOverflow() {
        String base = ReaderErrorMessagesTest.VALID;
        assertTimeoutPreemptively(BOUND, () -> {
            assertThat(readText(base.replace("max(in0, 0.0)", "add(".repeat(100_000)), "'add(' x 100000")).isNull();
            String balanced = "neg(".repeat(100_000) + "in0" + ")".repeat(100_000);
            assertThat(readText(base.replace("max(in0, 0.0)", balanced), "balanced neg x 100000")).isNull();
            String deepest = "neg(".repeat(ExprSyntax.MAX_DEPTH) + "in0" + ")".repeat(ExprSyntax.MAX_DEPTH);
            assertThat(readText(base.replace("max(in0, 0.0)", deepest), "neg x MAX_DEPTH")).isNotNull();
        });
    }

    @Test
    void hugeStringsAreAFormatError() {
        assertTimeoutPreemptively(BOUND, () -> {
            String huge = "n".repeat(JsonReader.MAX_STRING_CHARS + 1);
            assertThat(readText(ReaderErrorMessagesTest.VALID.replace("\"tiny\"", "\"" + huge + "\""), "huge name")).isNull();
            String hugeExpr = "add(in0, " + "0.0".repeat(300_000) + ")";
            assertThat(readText(ReaderErrorMessagesTest.VALID.replace("max(in0, 0.0)", hugeExpr), "huge expression")).isNull();
        });
    }

    @Test
    void hugeNumbersAreAFormatError() {
        String base = ReaderErrorMessagesTest.VALID;
        String[] numbers = {"1e999999999", "-1e999999999", "1e-999999999", "1E2147483648", "100E2147483647", "1E-2147483647", "1E-2147483649", "9".repeat(60), "9".repeat(10_000),
                "123456789012345678901234567890", "0.5", "-0", "1e3"};
        assertTimeoutPreemptively(BOUND, () -> {
            for (String n : numbers) {
                for (String field : new String[] {"\"chips\": 1", "\"version\": 1", "\"chip\": 0"}) {
                    String json = base.replace(field, field.substring(0, field.indexOf(':') + 2) + n);
                    Program p = readText(json, n + " as " + field);
                    if (p != null) {
                        // "-0" and "1e3" are integers in JSON and may be accepted; nothing else may be
                        assertThat(n).isIn("-0", "1e3");
                    }
                }
                Program asDim = readText(base.replace("\"shape\": [2, 4], \"chip\"", "\"shape\": [2, " + n + "], \"chip\""), n + " as a dimension");
                if (asDim != null) {
                    assertThat(n).isIn("-0", "1e3");
                }
            }
        });
    }

    @Test
    void hugeArraysOfSmallNumbersAreAFormatErrorOrAProgram() {
        String base = ReaderErrorMessagesTest.VALID;
        String million = "1, ".repeat(1_000_000) + "1";
        assertTimeoutPreemptively(BOUND, () -> {
            assertThat(readText(base.replace("\"shape\": [2, 4], \"chip\"", "\"shape\": [" + million + "], \"chip\""), "a 10^6-axis shape")).isNull();
            assertThat(readText(base.replace("\"tensors\": [", "\"tensors\": [" + million + ","), "10^6 numbers as tensors")).isNull();
            assertThat(readText("[" + million + "]", "a top-level array of 10^6 numbers")).isNull();
            String manyTerms = "\"" + "pos + ".repeat(100_000) + "1\"";
            Program p = readText(base.replace("\"origin\": [0, 0]", "\"origin\": [" + manyTerms + ", 0]"), "an offset of 10^5 terms");
            assertThat(p).isNotNull();
        });
    }

    @Test
    void garbageOfEveryKindIsAFormatError() {
        String[] inputs = {"", " ", "\u0000", "\uFEFF{}", "null", "true", "1", "\"s\"", "{", "}", "{\"format\"", "{\"format\":}",
                "{\"format\": \"stagecheck-program\", \"version\": 1}", "{\"a\" 1}", "[1,]", "{\"a\":1,}", "'single'", "NaN", "Infinity",
                "{\"format\": \"stagecheck-program\", \"version\": 2}", "\"\\ud800\"", "{\"\\u0000\": 1}"};
        assertTimeoutPreemptively(BOUND, () -> {
            for (String s : inputs) {
                assertThat(readText(s, "'" + s + "'")).as(s).isNull();
                assertThat(readBytes(s.getBytes(StandardCharsets.UTF_8), "bytes of '" + s + "'")).as(s).isNull();
            }
            byte[] invalidUtf8 = {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'};
            assertThat(readBytes(invalidUtf8, "invalid UTF-8")).isNull();
        });
    }
}
