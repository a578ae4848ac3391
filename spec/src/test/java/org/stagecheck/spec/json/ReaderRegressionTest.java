package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Reader defects found by the reader tests, each pinned so that it stays fixed. */
class ReaderRegressionTest {

    /**
     * Found by the truncation fuzz: Jackson's "start marker" note quotes the source text, so the
     * message carried a fragment of the file and was cut at its first newline. Keep the position only.
     */
    @Test
    void aTruncatedFileSaysWhereTheOpenBracketWasWithoutQuotingTheSource() {
        assertThatThrownBy(() -> new JsonReader().read("{\n  \"a\": [1,\n   2"))
                .isInstanceOf(JsonFormatException.class)
                .hasMessage("3:5: malformed JSON: Unexpected end-of-input: expected close marker for Array (start marker at 2:8)");
    }

    /** Found by the byte-flip fuzz: the "for Object starting at" note quoted the source as well. */
    @Test
    void aMismatchedCloseBracketSaysWhereTheObjectStartedWithoutQuotingTheSource() {
        assertThatThrownBy(() -> new JsonReader().read(new java.io.ByteArrayInputStream("{\n  \"a\": 1]".getBytes(java.nio.charset.StandardCharsets.UTF_8))))
                .isInstanceOf(JsonFormatException.class)
                .hasMessage("2:9: malformed JSON: Unexpected close marker ']': expected '}' (for Object starting at 1:1)");
    }

    /**
     * Found by the huge-number fuzz: for 1E2147483648 the digit count {@code precision - scale}
     * overflowed int, passed the range check, and toBigIntegerExact threw ArithmeticException.
     */
    @Test
    void anExponentPastBigDecimalsScaleIsAnOutOfRangeInteger() {
        String json = ReaderErrorMessagesTest.VALID.replace("\"chips\": 1", "\"chips\": 1E2147483648");
        assertThatThrownBy(() -> new ProgramCodec().read(json))
                .isInstanceOf(JsonFormatException.class)
                .hasMessage("5:24: integer 1E2147483648 is out of range for a 64-bit value (at /machine/chips)");
        String stripped = ReaderErrorMessagesTest.VALID.replace("\"chips\": 1", "\"chips\": 100E2147483647");
        assertThatThrownBy(() -> new ProgramCodec().read(stripped))
                .isInstanceOf(JsonFormatException.class)
                .hasMessage("5:24: integer 100E2147483647 is out of range for a 64-bit value (at /machine/chips)");
    }

    /** Found by the error-message examples: a missing comma was reported as a wrong argument count at the function's name. */
    @Test
    void aMissingCommaBetweenArgumentsIsReportedWhereTheCommaBelongs() {
        assertThatThrownBy(() -> ExprSyntax.parse("max(in0 0.0)"))
                .isInstanceOf(TextSyntaxException.class)
                .hasMessage("expected ',' or ')' after an argument of 'max', found '0'")
                .extracting(e -> ((TextSyntaxException) e).offset()).isEqualTo(8);
    }
}
