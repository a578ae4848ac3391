package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.stagecheck.proptest.Draw;
import org.stagecheck.proptest.SeededProperty;

/**
 * The decoder's shortcuts (docs/format.md, "Reading speed") give what the plain code gave: the
 * small-integer fast path the same value or message as the BigDecimal path, the lazy pointer the
 * same string as concatenation, the bit set of read fields the same unknown-field error at every
 * object width.
 */
@Tag("slow")
class FieldsTest {

    /** The integer rule as it was before the fast path: the value, or the message. */
    private static String referenceInt64(String text) {
        BigDecimal d;
        try {
            d = new BigDecimal(text).stripTrailingZeros();
        } catch (NumberFormatException e) {
            return "expected an integer, found " + text;
        } catch (ArithmeticException e) {
            return "integer " + text + " is out of range for a 64-bit value";
        }
        if (d.scale() > 0) {
            return "expected an integer, found " + text;
        }
        if (d.signum() != 0 && (long) d.precision() - d.scale() > 19) {
            return "integer " + text + " is out of range for a 64-bit value";
        }
        BigInteger v = d.toBigIntegerExact();
        return v.bitLength() > 63 ? "integer " + text + " is out of range for a 64-bit value" : Long.toString(v.longValue());
    }

    private static String referenceInt32(String text) {
        String r = referenceInt64(text);
        try {
            long v = Long.parseLong(r);
            return v < Integer.MIN_VALUE || v > Integer.MAX_VALUE ? "integer " + v + " is out of range for a 32-bit value" : r;
        } catch (NumberFormatException e) {
            return r;
        }
    }

    private static String int64(String text) {
        try {
            return Long.toString(Fields.int64(new JNode.JNumber(text, new Pos(1, 1)), Pointer.ROOT.key("n")));
        } catch (JsonFormatException e) {
            assertThat(e.pointer()).isEqualTo("/n");
            return e.detail();
        }
    }

    private static String int32(String text) {
        try {
            return Integer.toString(Fields.int32(new JNode.JNumber(text, new Pos(1, 1)), Pointer.ROOT.key("n")));
        } catch (JsonFormatException e) {
            return e.detail();
        }
    }

    private static final String[] AWKWARD_NUMBERS = {"0", "-0", "1.0", "-1.50", "1e2", "1E+2", "25e-1", "999999999",
            "-999999999", "1000000000", "2147483647", "2147483648", "-2147483648", "-2147483649",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1e999999999"};

    /** Number texts: any long, any int, digit strings up to 22 long, negative ones up to 12, and the awkward cases. */
    private static String numberText(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        return switch (r.nextInt(5)) {
            case 0 -> Long.toString(Draw.anyLong(r));
            case 1 -> Integer.toString(Draw.anyInt(r));
            case 2 -> Draw.string(r, "0123456789", 1, 22);
            case 3 -> "-" + Draw.string(r, "0123456789", 1, 12);
            default -> Draw.oneOf(r, AWKWARD_NUMBERS);
        };
    }

    @SeededProperty(tries = 1000)
    void theSmallIntegerShortcutAgreesWithTheExactRule(long seed) {
        String text = numberText(seed);
        assertThat(int64(text)).as(text).isEqualTo(referenceInt64(text));
        assertThat(int32(text)).as(text).isEqualTo(referenceInt32(text));
    }

    @SeededProperty(tries = 300)
    void aPointerSpellsItselfAsConcatenationWould(long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        List<Integer> steps = Draw.list(r, 0, 40, () -> Draw.between(r, -1, 50));
        Pointer p = Pointer.ROOT;
        StringBuilder expected = new StringBuilder();
        for (int s : steps) {
            if (s < 0) {
                p = p.key("k/~é");
                expected.append("/k/~é");
            } else {
                p = p.index(s);
                expected.append("/").append(s);
            }
        }
        assertThat(p.toString()).isEqualTo(expected.toString());
    }

    /** An object of {@code width} fields f0.. of which the decoder asks for all but the one at {@code unread}. */
    private static void readAllBut(int width, int unread) throws JsonFormatException {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < width; i++) {
            sb.append(i == 0 ? "" : ",\n").append("\"f").append(i).append("\": ").append(i);
        }
        JNode root = new JsonReader().read(sb.append("}").toString());
        Fields f = new Fields(root, Pointer.ROOT.key("o"));
        f.optional("absent");
        for (int i = 0; i < width; i++) {
            if (i != unread) {
                assertThat(f.int32("f" + i)).isEqualTo(i);
            }
        }
        f.done();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 8, 9, 63, 64, 65, 130})
    void everyFieldReadIsAcceptedAtEveryWidth(int width) throws JsonFormatException {
        readAllBut(width, -1);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 8, 9, 63, 64, 65, 130})
    void theLastFieldUnreadIsNamedAtEveryWidth(int width) {
        int last = width - 1;
        // the position is the value's: line `width`, after `"fN": ` (and the `{` on the first line)
        int column = ("\"f" + last + "\": ").length() + 1 + (last == 0 ? 1 : 0);
        assertThatThrownBy(() -> readAllBut(width, last))
                .isInstanceOf(JsonFormatException.class)
                .hasMessageStartingWith(width + ":" + column + ": unknown field \"f" + last + "\"; expected one of [absent" + (last == 0 ? "]" : ", f0, "))
                .hasMessageEndingWith("] (at /o/f" + last + ")");
    }

    @Test
    void theUnknownFieldListsTheKeysAskedForSortedOnce() {
        assertThatThrownBy(() -> {
            Fields f = new Fields(new JsonReader().read("{\"b\": 1, \"zz\": 2}"), Pointer.ROOT);
            f.optional("c");
            f.int32("b");
            f.optional("c");
            f.optional("a");
            f.done();
        }).hasMessage("1:16: unknown field \"zz\"; expected one of [a, b, c] (at /zz)");
    }
}
