package org.stagecheck.spec.json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A typed view of one JSON object during decoding: each accessor knows the JSON pointer of the
 * field it reads, so that a missing field, a wrong type or an out-of-range number is reported
 * with path and position; {@link #done()} rejects fields nobody asked for.
 *
 * <p>Cheap on the path that succeeds (docs/format.md, "Reading speed"): the pointer is a
 * {@link Pointer} chain spelled out only in an error, the fields read are marked in a bit set
 * (the format's objects have at most 8 fields; a wider object falls back to a boolean array),
 * and the keys asked for are remembered only to list them when an unknown field is found.
 */
final class Fields {
    private final JNode.JObject object;
    private final NodeMap fields;
    private final Pointer path;
    /** Keys asked for, in order, with repeats: the "expected one of" list of an unknown field. */
    private String[] asked = new String[8];
    private int askedCount;
    /** Bit i: field i of the object was read (objects of up to 64 fields). */
    private long readMask;
    /** Field i was read, for objects of more than 64 fields; null otherwise. */
    private final boolean[] readWide;

    Fields(JNode node, Pointer path) throws JsonFormatException {
        this.object = object(node, path);
        this.fields = object.nodeMap();
        this.path = path;
        this.readWide = fields.size() > 64 ? new boolean[fields.size()] : null;
    }

    Pointer path() {
        return path;
    }

    Pointer path(String key) {
        return path.key(key);
    }

    Pos pos() {
        return object.pos();
    }

    boolean has(String key) {
        JNode n = fields.get(key);
        return n != null && !(n instanceof JNode.JNull);
    }

    /** Marks {@code key} as asked for and returns its value, or null when the object lacks it. */
    private JNode ask(String key) {
        if (askedCount == asked.length) {
            asked = Arrays.copyOf(asked, askedCount * 2);
        }
        asked[askedCount++] = key;
        int i = fields.indexOf(key);
        if (i < 0) {
            return null;
        }
        if (readWide != null) {
            readWide[i] = true;
        } else {
            readMask |= 1L << i;
        }
        return fields.valueAt(i);
    }

    JNode required(String key) throws JsonFormatException {
        JNode n = ask(key);
        if (n == null) {
            throw new JsonFormatException(path.toString(), object.pos(), "missing required field \"" + key + "\"");
        }
        return n;
    }

    /** The field's node, or null when it is absent or JSON null. */
    JNode optional(String key) {
        JNode n = ask(key);
        return n instanceof JNode.JNull ? null : n;
    }

    String string(String key) throws JsonFormatException {
        JNode n = required(key);
        return n instanceof JNode.JString s ? s.value() : string(n, path(key));
    }

    String optionalString(String key) throws JsonFormatException {
        JNode n = optional(key);
        return n == null ? null : string(n, path(key));
    }

    int int32(String key) throws JsonFormatException {
        JNode n = required(key);
        int v = smallInt(n);
        return v != NOT_SMALL ? v : int32(n, path(key));
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
        int n = fields.size();
        boolean allRead = readWide == null
                ? readMask == (n == 64 ? -1L : (1L << n) - 1)
                : allTrue(readWide);
        if (allRead) {
            return;
        }
        for (int i = 0; i < n; i++) {
            boolean read = readWide == null ? (readMask & (1L << i)) != 0 : readWide[i];
            if (!read) {
                Set<String> allowed = new TreeSet<>(Arrays.asList(asked).subList(0, askedCount));
                String key = fields.keyAt(i);
                throw new JsonFormatException(path(key).toString(), fields.valueAt(i).pos(),
                        "unknown field \"" + key + "\"; expected one of " + allowed);
            }
        }
    }

    private static boolean allTrue(boolean[] a) {
        for (boolean b : a) {
            if (!b) {
                return false;
            }
        }
        return true;
    }

    static JNode.JObject object(JNode n, Pointer path) throws JsonFormatException {
        if (n instanceof JNode.JObject o) {
            return o;
        }
        throw wrongType(n, path, "an object");
    }

    static List<JNode> array(JNode n, Pointer path) throws JsonFormatException {
        if (n instanceof JNode.JArray a) {
            return a.items();
        }
        throw wrongType(n, path, "an array");
    }

    static String string(JNode n, Pointer path) throws JsonFormatException {
        if (n instanceof JNode.JString s) {
            return s.value();
        }
        throw wrongType(n, path, "a string");
    }

    static List<String> strings(JNode n, Pointer path) throws JsonFormatException {
        List<JNode> items = array(n, path);
        List<String> out = new ArrayList<>(items.size());
        for (int i = 0; i < items.size(); i++) {
            JNode item = items.get(i);
            out.add(item instanceof JNode.JString s ? s.value() : string(item, path.index(i)));
        }
        return out;
    }

    /** Marks "not a plain int" for {@link #smallInt}; never a result, as it has 11 characters. */
    private static final int NOT_SMALL = Integer.MIN_VALUE;

    /**
     * The value of a number written as at most 9 digits with an optional minus sign (always an
     * int, and the common case), or {@link #NOT_SMALL} for anything else, which then takes the
     * exact path of {@link #int64(JNode, Pointer)} with its messages.
     */
    private static int smallInt(JNode n) {
        if (!(n instanceof JNode.JNumber num)) {
            return NOT_SMALL;
        }
        String t = num.text();
        int len = t.length();
        int i = len > 0 && t.charAt(0) == '-' ? 1 : 0;
        if (len == i || len - i > 9) {
            return NOT_SMALL;
        }
        int v = 0;
        for (; i < len; i++) {
            char c = t.charAt(i);
            if (c < '0' || c > '9') {
                return NOT_SMALL;
            }
            v = v * 10 + (c - '0');
        }
        return t.charAt(0) == '-' ? -v : v;
    }

    static long int64(JNode n, Pointer path) throws JsonFormatException {
        int small = smallInt(n);
        if (small != NOT_SMALL) {
            return small;
        }
        if (!(n instanceof JNode.JNumber num)) {
            throw wrongType(n, path, "an integer");
        }
        BigDecimal d;
        try {
            d = new BigDecimal(num.text()).stripTrailingZeros();
        } catch (NumberFormatException e) {
            throw new JsonFormatException(path.toString(), n.pos(), "expected an integer, found " + num.text());
        } catch (ArithmeticException e) {
            // stripping zeros pushes the scale past 32 bits, e.g. 100E2147483647
            throw new JsonFormatException(path.toString(), n.pos(), "integer " + num.text() + " is out of range for a 64-bit value");
        }
        if (d.scale() > 0) {
            throw new JsonFormatException(path.toString(), n.pos(), "expected an integer, found " + num.text());
        }
        // Digits before the point, known without expanding the value: "1e999999999" must not
        // make a billion-digit BigInteger.
        // In long: for 1E2147483648 the scale is -2^31 and the int difference wraps negative.
        if (d.signum() != 0 && (long) d.precision() - d.scale() > 19) {
            throw new JsonFormatException(path.toString(), n.pos(), "integer " + num.text() + " is out of range for a 64-bit value");
        }
        BigInteger v = d.toBigIntegerExact();
        if (v.bitLength() > 63) {
            throw new JsonFormatException(path.toString(), n.pos(), "integer " + num.text() + " is out of range for a 64-bit value");
        }
        return v.longValue();
    }

    static int int32(JNode n, Pointer path) throws JsonFormatException {
        int small = smallInt(n);
        if (small != NOT_SMALL) {
            return small;
        }
        long v = int64(n, path);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw new JsonFormatException(path.toString(), n.pos(), "integer " + v + " is out of range for a 32-bit value");
        }
        return (int) v;
    }

    static double float64(JNode n, Pointer path) throws JsonFormatException {
        if (!(n instanceof JNode.JNumber num)) {
            throw wrongType(n, path, "a number");
        }
        double d = Double.parseDouble(num.text());
        if (Double.isInfinite(d)) {
            throw new JsonFormatException(path.toString(), n.pos(), "number " + num.text() + " is out of range for a double");
        }
        return d;
    }

    static JsonFormatException wrongType(JNode n, Pointer path, String expected) {
        return new JsonFormatException(path.toString(), n.pos(), "expected " + expected + ", found " + n.typeName());
    }

    static JsonFormatException invalid(JNode n, Pointer path, String message) {
        return new JsonFormatException(path.toString(), n.pos(), message);
    }
}
