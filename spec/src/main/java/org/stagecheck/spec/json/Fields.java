package org.stagecheck.spec.json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A typed view of one JSON object during decoding: each accessor knows the JSON pointer of the
 * field it reads, so that a missing field, a wrong type or an out-of-range number is reported
 * with path and position; {@link #done()} rejects fields nobody asked for.
 */
final class Fields {
    private final JNode.JObject object;
    private final String path;
    private final Set<String> seen = new LinkedHashSet<>();

    Fields(JNode node, String path) throws JsonFormatException {
        this.object = object(node, path);
        this.path = path;
    }

    String path() {
        return path;
    }

    String path(String key) {
        return path + "/" + key;
    }

    Pos pos() {
        return object.pos();
    }

    boolean has(String key) {
        JNode n = object.fields().get(key);
        return n != null && !(n instanceof JNode.JNull);
    }

    JNode required(String key) throws JsonFormatException {
        seen.add(key);
        JNode n = object.fields().get(key);
        if (n == null) {
            throw new JsonFormatException(path, object.pos(), "missing required field \"" + key + "\"");
        }
        return n;
    }

    /** The field's node, or null when it is absent or JSON null. */
    JNode optional(String key) {
        seen.add(key);
        JNode n = object.fields().get(key);
        return n instanceof JNode.JNull ? null : n;
    }

    String string(String key) throws JsonFormatException {
        return string(required(key), path(key));
    }

    String optionalString(String key) throws JsonFormatException {
        JNode n = optional(key);
        return n == null ? null : string(n, path(key));
    }

    int int32(String key) throws JsonFormatException {
        return int32(required(key), path(key));
    }

    long int64(String key) throws JsonFormatException {
        return int64(required(key), path(key));
    }

    boolean bool(String key, boolean dflt) throws JsonFormatException {
        JNode n = optional(key);
        if (n == null) {
            return dflt;
        }
        if (n instanceof JNode.JBool b) {
            return b.value();
        }
        throw wrongType(n, path(key), "a boolean");
    }

    List<JNode> array(String key) throws JsonFormatException {
        return array(required(key), path(key));
    }

    /** Rejects any field of the object that no accessor read. */
    void done() throws JsonFormatException {
        for (var e : object.fields().entrySet()) {
            if (!seen.contains(e.getKey())) {
                Set<String> allowed = new TreeSet<>(seen);
                throw new JsonFormatException(path(e.getKey()), e.getValue().pos(),
                        "unknown field \"" + e.getKey() + "\"; expected one of " + allowed);
            }
        }
    }

    static JNode.JObject object(JNode n, String path) throws JsonFormatException {
        if (n instanceof JNode.JObject o) {
            return o;
        }
        throw wrongType(n, path, "an object");
    }

    static List<JNode> array(JNode n, String path) throws JsonFormatException {
        if (n instanceof JNode.JArray a) {
            return a.items();
        }
        throw wrongType(n, path, "an array");
    }

    static String string(JNode n, String path) throws JsonFormatException {
        if (n instanceof JNode.JString s) {
            return s.value();
        }
        throw wrongType(n, path, "a string");
    }

    static List<String> strings(JNode n, String path) throws JsonFormatException {
        List<JNode> items = array(n, path);
        List<String> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            out.add(string(items.get(i), path + "/" + i));
        }
        return out;
    }

    static long int64(JNode n, String path) throws JsonFormatException {
        if (!(n instanceof JNode.JNumber num)) {
            throw wrongType(n, path, "an integer");
        }
        BigDecimal d;
        try {
            d = new BigDecimal(num.text()).stripTrailingZeros();
        } catch (NumberFormatException e) {
            throw new JsonFormatException(path, n.pos(), "expected an integer, found " + num.text());
        } catch (ArithmeticException e) {
            // stripping zeros pushes the scale past 32 bits, e.g. 100E2147483647
            throw new JsonFormatException(path, n.pos(), "integer " + num.text() + " is out of range for a 64-bit value");
        }
        if (d.scale() > 0) {
            throw new JsonFormatException(path, n.pos(), "expected an integer, found " + num.text());
        }
        // Digits before the point, known without expanding the value: "1e999999999" must not
        // make a billion-digit BigInteger.
        // In long: for 1E2147483648 the scale is -2^31 and the int difference wraps negative.
        if (d.signum() != 0 && (long) d.precision() - d.scale() > 19) {
            throw new JsonFormatException(path, n.pos(), "integer " + num.text() + " is out of range for a 64-bit value");
        }
        BigInteger v = d.toBigIntegerExact();
        if (v.bitLength() > 63) {
            throw new JsonFormatException(path, n.pos(), "integer " + num.text() + " is out of range for a 64-bit value");
        }
        return v.longValue();
    }

    static int int32(JNode n, String path) throws JsonFormatException {
        long v = int64(n, path);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new JsonFormatException(path, n.pos(), "integer " + v + " is out of range for a 32-bit value");
        }
        return (int) v;
    }

    static double float64(JNode n, String path) throws JsonFormatException {
        if (!(n instanceof JNode.JNumber num)) {
            throw wrongType(n, path, "a number");
        }
        double d = Double.parseDouble(num.text());
        if (Double.isInfinite(d)) {
            throw new JsonFormatException(path, n.pos(), "number " + num.text() + " is out of range for a double");
        }
        return d;
    }

    static JsonFormatException wrongType(JNode n, String path, String expected) {
        return new JsonFormatException(path, n.pos(), "expected " + expected + ", found " + n.typeName());
    }

    static JsonFormatException invalid(JNode n, String path, String message) {
        return new JsonFormatException(path, n.pos(), message);
    }
}
