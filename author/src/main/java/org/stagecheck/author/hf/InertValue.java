package org.stagecheck.author.hf;

import org.stagecheck.spec.json.JNode;

/**
 * The values an inert config.json key may take ({@link ConfigKeys}). Inert keys do not change the
 * forward pass, but a value of the wrong JSON type is still refused: it means the file is not what
 * its writer meant. Some are inert at one value only ({@link #ONE}, {@link #FALSE}).
 */
enum InertValue {
    STRING("a string"),
    STRING_OR_NULL("a string or null"),
    INTEGER("an integer"),
    /** A token id, a list of them (several end-of-sequence tokens), or null. */
    TOKEN_IDS("an integer, an array of integers or null"),
    NUMBER("a number"),
    BOOLEAN("true or false"),
    /** Exactly the integer 1: stagecheck does not implement what another value asks for. */
    ONE("1 (other values are not implemented)"),
    /** Exactly false: stagecheck does not implement what true asks for. */
    FALSE("false (true is not implemented)");

    private final String description;

    InertValue(String description) {
        this.description = description;
    }

    /** What the value must be, for a message. */
    String description() {
        return description;
    }

    boolean accepts(JNode v) {
        return switch (this) {
            case STRING -> v instanceof JNode.JString;
            case STRING_OR_NULL -> v instanceof JNode.JString || v instanceof JNode.JNull;
            case INTEGER -> integral(v);
            case TOKEN_IDS -> integral(v) || v instanceof JNode.JNull
                    || v instanceof JNode.JArray a && a.items().stream().allMatch(InertValue::integral);
            case NUMBER -> v instanceof JNode.JNumber;
            case BOOLEAN -> v instanceof JNode.JBool;
            case ONE -> v instanceof JNode.JNumber n && n.text().equals("1");
            case FALSE -> v instanceof JNode.JBool b && !b.value();
        };
    }

    private static boolean integral(JNode v) {
        return v instanceof JNode.JNumber n && n.integral();
    }
}
