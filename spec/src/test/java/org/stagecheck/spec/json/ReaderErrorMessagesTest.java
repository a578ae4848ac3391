package org.stagecheck.spec.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.Program;

/**
 * The exact text, with line:column and JSON pointer, of the error a person meets first for each
 * kind of bad program file. A change of wording here is a visible decision.
 */
class ReaderErrorMessagesTest {
    /** A valid two-stage program; each test breaks one thing in it. Lines are 1-based as printed. */
    static final String VALID = """
            {
              "format": "stagecheck-program",
              "version": 1,
              "name": "tiny",
              "machine": {"chips": 1, "width": 1, "height": 1},
              "tensors": [
                {"name": "x", "dtype": "f32", "shape": [2, 4], "chip": 0, "role": "input"}
              ],
              "buffers": [
                {"name": "a", "dtype": "f32", "shape": [2, 4], "site": [0, 0, 0]},
                {"name": "b", "dtype": "f32", "shape": [2, 4], "site": [0, 0, 0]}
              ],
              "stages": [
                {"id": "load", "site": [0, 0, 0], "ins": [], "outs": ["a"],
                 "kind": {"type": "Load", "tensor": "x", "pattern": {"type": "block", "origin": [0, 0], "block": [2, 4]}}},
                {"id": "relu", "site": [0, 0, 0], "ins": ["a"], "outs": ["b"],
                 "kind": {"type": "Compute", "op": {"type": "generic", "expr": "max(in0, 0.0)"}}}
              ]
            }
            """;

    private static String replaceOnce(String text, String from, String to) {
        assertThat(text).contains(from);
        return text.replace(from, to);
    }

    private static void assertRejected(String json, String message) {
        assertThatThrownBy(() -> new ProgramCodec().read(json))
                .isInstanceOf(JsonFormatException.class)
                .hasMessage(message);
    }

    @Test
    void theValidProgramReads() throws JsonFormatException {
        Program p = new ProgramCodec().read(VALID);
        assertThat(p.stages()).hasSize(2);
    }

    @Test
    void aTruncatedFile() {
        String cut = VALID.substring(0, VALID.indexOf("\"buffers\": [") + "\"buffers\": [".length());
        assertRejected(cut, "9:15: malformed JSON: Unexpected end-of-input: expected close marker for Array (start marker at 9:14)");
    }

    @Test
    void anUnknownField() {
        assertRejected(replaceOnce(VALID, "\"role\": \"input\"}", "\"role\": \"input\", \"colour\": \"red\"}"),
                "7:90: unknown field \"colour\"; expected one of [chip, dtype, name, role, shape] (at /tensors/0/colour)");
    }

    @Test
    void aMissingField() {
        assertRejected(replaceOnce(VALID, "{\"name\": \"x\", \"dtype\": \"f32\", ", "{\"name\": \"x\", "),
                "7:5: missing required field \"dtype\" (at /tensors/0)");
    }

    @Test
    void aWrongType() {
        assertRejected(replaceOnce(VALID, "\"chips\": 1", "\"chips\": \"one\""),
                "5:24: expected an integer, found a string (at /machine/chips)");
    }

    @Test
    void aDuplicateKey() {
        assertRejected(replaceOnce(VALID, "\"name\": \"tiny\",", "\"name\": \"tiny\",\n  \"name\": \"again\","),
                "5:9: malformed JSON: Duplicate field 'name'");
    }

    @Test
    void aDimensionOutOfRange() {
        assertRejected(replaceOnce(VALID, "\"shape\": [2, 4], \"chip\"", "\"shape\": [2, 1e30], \"chip\""),
                "7:48: integer 1e30 is out of range for a 64-bit value (at /tensors/0/shape/1)");
    }

    @Test
    void anIntOutOfRange() {
        assertRejected(replaceOnce(VALID, "\"chip\": 0", "\"chip\": 3000000000"),
                "7:60: integer 3000000000 is out of range for a 32-bit value (at /tensors/0/chip)");
    }

    @Test
    void aNegativeDimension() {
        assertRejected(replaceOnce(VALID, "\"shape\": [2, 4], \"chip\"", "\"shape\": [2, -4], \"chip\""),
                "7:44: a dimension cannot be negative: [2, -4] (at /tensors/0/shape)");
    }

    @Test
    void aBadExpressionPointsInsideTheString() {
        // column 78 is the 'f' of foo: the string opens at column 68
        assertRejected(replaceOnce(VALID, "max(in0, 0.0)", "max(in0, foo(0.0))"),
                "17:78: bad expression \"max(in0, foo(0.0))\": unknown function 'foo' (at /stages/1/kind/op/expr)");
    }

    @Test
    void aMissingCommaInAnExpressionPointsAtTheSecondArgument() {
        assertRejected(replaceOnce(VALID, "max(in0, 0.0)", "max(in0 0.0)"),
                "17:77: bad expression \"max(in0 0.0)\": expected ',' or ')' after an argument of 'max', found '0' (at /stages/1/kind/op/expr)");
    }

    @Test
    void aBadOffsetPointsInsideTheString() {
        assertRejected(replaceOnce(VALID, "\"origin\": [0, 0]", "\"origin\": [\"2*pos + \", 0]"),
                "15:95: bad offset \"2*pos + \": expected an integer, a parameter name or @buffer (at /stages/0/kind/pattern/origin/0)");
    }

    @Test
    void anUnknownStageKind() {
        assertRejected(replaceOnce(VALID, "\"type\": \"Compute\"", "\"type\": \"Launch\""),
                "17:23: unknown stage kind \"Launch\"; expected one of Load, Store, Recv, AllReduce, Compute, Scalar (at /stages/1/kind/type)");
    }

    @Test
    void aTrailingGarbageToken() {
        assertRejected(VALID + "x\n",
                "20:1: malformed JSON: Unrecognized token 'x': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')");
    }

    @Test
    void aSecondValueAfterTheProgram() {
        assertRejected(VALID + "{}\n", "20:1: unexpected content after the end of the JSON value");
    }

    @Test
    void anEmptyFile() {
        assertRejected("", "1:1: the file is empty; expected a JSON object");
    }

    @Test
    void anArrayInsteadOfAProgram() {
        assertRejected("[]", "1:1: expected an object, found an array");
    }

    @Test
    void theWrongFormat() {
        assertRejected(replaceOnce(VALID, "stagecheck-program", "stagecheck-certificate"),
                "2:13: expected format \"stagecheck-program\", found \"stagecheck-certificate\" (at /format)");
    }
}
