package org.stagecheck.author.oracle;

import com.fasterxml.jackson.databind.JsonNode;

/** Typed reads of config.json keys with located messages; a default applies only to an absent or null key. */
record ConfigKeys(JsonNode root, String where) {
    boolean has(String key) {
        return root.has(key);
    }

    boolean isNonNull(String key) {
        return root.has(key) && !root.get(key).isNull();
    }

    JsonNode node(String key) {
        return root.get(key);
    }

    int requiredPositiveInt(String key) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            throw new OracleInputException(where + ": " + key + " is missing");
        }
        if (!n.isIntegralNumber() || !n.canConvertToInt() || n.asInt() <= 0) {
            throw new OracleInputException(where + ": " + key + " is " + n + ", not a positive integer");
        }
        return n.asInt();
    }

    double number(String key, double absent) {
        return number(root, key, absent, where);
    }

    static double number(JsonNode object, String key, double absent, String where) {
        JsonNode n = object.get(key);
        if (n == null || n.isNull()) {
            return absent;
        }
        if (!n.isNumber() || !Double.isFinite(n.asDouble()) || n.asDouble() < 0) {
            throw new OracleInputException(where + ": " + key + " is " + n + ", not a non-negative number");
        }
        return n.asDouble();
    }

    boolean bool(String key, boolean absent) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return absent;
        }
        if (!n.isBoolean()) {
            throw new OracleInputException(where + ": " + key + " is " + n + ", not true or false");
        }
        return n.asBoolean();
    }

    String text(String key, String absent) {
        JsonNode n = root.get(key);
        if (n == null || n.isNull()) {
            return absent;
        }
        if (!n.isTextual()) {
            throw new OracleInputException(where + ": " + key + " is " + n + ", not a string");
        }
        return n.asText();
    }

    /** v5 Qwen configs list {@code layer_types}; any kind but full attention is a window the oracle refuses. */
    void requireAllFullAttention() {
        JsonNode types = root.get("layer_types");
        if (types == null || types.isNull()) {
            return;
        }
        for (JsonNode t : types) {
            if (!t.asText("").equals("full_attention")) {
                throw new OracleInputException(where + ": layer_types has " + t + "; only full_attention is accepted");
            }
        }
    }
}
