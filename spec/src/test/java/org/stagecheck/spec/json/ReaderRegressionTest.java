package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Reader defects found by the issue #2 tests, each pinned so that it stays fixed. */
class ReaderRegressionTest {

    /**
     * Found by the truncation fuzz: Jackson's "start marker" note quotes the source text, so the
     * message carried a fragment of the file and was cut at its first newline.
     */
    @Test
    void aTruncatedFileSaysWhereTheOpenBracketWasWithoutQuotingTheSource() {
        assertThatThrownBy(() -> new JsonReader().read("{\n  \"a\": [1,\n   2"))
                .isInstanceOf(JsonFormatException.class)
                .hasMessage("3:5: malformed JSON: Unexpected end-of-input: expected close marker for Array (opened at 2:8)");
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
