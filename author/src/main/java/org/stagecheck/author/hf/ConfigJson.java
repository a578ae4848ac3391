package org.stagecheck.author.hf;

import java.nio.file.Path;
import java.util.List;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.Pos;

/**
 * Typed, located reads from one JSON object of a config.json (the top level or a nested
 * rotary object): every wrong type, bad value or missing key becomes a {@link ModelSpecException}
 * whose message is {@code FILE:LINE:COLUMN: message}, the position of the offending value (of the
 * enclosing object when the key is missing).
 *
 * @param file   the config.json, as named in messages
 * @param object the object read
 * @param where  how messages name the object: empty for the top level, else e.g. {@code "rope_scaling" }
 */
record ConfigJson(Path file, JNode.JObject object, String where) {

    /** The value of {@code key}, or null when absent (a JSON null is a {@link JNode.JNull}). */
    JNode get(String key) {
        return object.fields().get(key);
    }

    boolean has(String key) {
        return object.fields().containsKey(key);
    }

    /** Whether {@code key} is absent or null. */
    boolean absentOrNull(String key) {
        return get(key) == null || get(key) instanceof JNode.JNull;
    }

    /** {@code "key"} as messages name it, with the enclosing object when nested. */
    String name(String key) {
        return where.isEmpty() ? "\"" + key + "\"" : "\"" + key + "\" in " + where;
    }

    ModelSpecException at(JNode node, String message) {
        return at(node.pos(), message);
    }

    ModelSpecException at(Pos pos, String message) {
        return new ModelSpecException(file + (pos.known() ? ":" + pos : "") + ": " + message);
    }

    /** A required integer of at least 1: a size. */
    int requiredSize(String key) throws ModelSpecException {
        if (!has(key)) {
            throw at(object, "config.json has no " + name(key) + "; stagecheck refuses to guess a size from the"
                    + " family's class default");
        }
        return size(key);
    }

    /** An integer of at least 1 (present). */
    int size(String key) throws ModelSpecException {
        int v = integer(key);
        if (v < 1) {
            throw at(get(key), name(key) + " must be at least 1, not " + v);
        }
        return v;
    }

    /** A 32-bit integer (present). */
    int integer(String key) throws ModelSpecException {
        JNode v = get(key);
        if (!(v instanceof JNode.JNumber n) || !n.integral()) {
            throw at(v == null ? object.pos() : v.pos(), name(key) + " must be an integer"
                    + (v == null ? " (it is missing)" : ", not " + v.typeName()));
        }
        try {
            return Integer.parseInt(n.text());
        } catch (NumberFormatException e) {
            throw at(v, name(key) + " must be a 32-bit integer, not " + n.text());
        }
    }

    /** A finite number (present). */
    double number(String key) throws ModelSpecException {
        JNode v = get(key);
        if (!(v instanceof JNode.JNumber n)) {
            throw at(v == null ? object.pos() : v.pos(), name(key) + " must be a number"
                    + (v == null ? " (it is missing)" : ", not " + v.typeName()));
        }
        double d = Double.parseDouble(n.text());
        if (!Double.isFinite(d)) {
            throw at(v, name(key) + " must be a finite number, not " + n.text());
        }
        return d;
    }

    /** A boolean, {@code absent} when the key is absent. */
    boolean bool(String key, boolean absent) throws ModelSpecException {
        JNode v = get(key);
        if (v == null) {
            return absent;
        }
        if (!(v instanceof JNode.JBool b)) {
            throw at(v, name(key) + " must be true or false, not " + v.typeName());
        }
        return b.value();
    }

    /** A string, {@code absent} when the key is absent. */
    String string(String key, String absent) throws ModelSpecException {
        JNode v = get(key);
        if (v == null) {
            return absent;
        }
        if (!(v instanceof JNode.JString s)) {
            throw at(v, name(key) + " must be a string, not " + v.typeName());
        }
        return s.value();
    }

    /** The object at {@code key} (present and an object). */
    ConfigJson nested(String key) throws ModelSpecException {
        JNode v = get(key);
        if (!(v instanceof JNode.JObject o)) {
            throw at(v == null ? object.pos() : v.pos(), name(key) + " must be an object"
                    + (v == null ? " (it is missing)" : ", not " + v.typeName()));
        }
        return new ConfigJson(file, o, "\"" + key + "\"");
    }

    /** The array at {@code key} (present and an array). */
    List<JNode> array(String key) throws ModelSpecException {
        JNode v = get(key);
        if (!(v instanceof JNode.JArray a)) {
            throw at(v == null ? object.pos() : v.pos(), name(key) + " must be an array"
                    + (v == null ? " (it is missing)" : ", not " + v.typeName()));
        }
        return a.items();
    }
}
