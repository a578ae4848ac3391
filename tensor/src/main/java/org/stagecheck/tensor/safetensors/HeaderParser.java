package org.stagecheck.tensor.safetensors;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.Set;

import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.spec.json.Pos;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * Checks a safetensors header as the reference implementation does ({@code Metadata::validate}):
 * a JSON object whose optional {@code __metadata__} maps strings to strings and whose every other
 * member is a tensor of exactly {@code dtype}, {@code shape} and {@code data_offsets}, with a
 * byte length that matches its shape and dtype, and ranges that together cover the data region
 * exactly (any order in the header, no overlap, no hole, nothing after the last tensor).
 */
final class HeaderParser {
    static final String METADATA = "__metadata__";
    private static final Set<String> ENTRY_FIELDS = Set.of("dtype", "shape", "data_offsets");

    /** What a header holds: the tensors in header order and the metadata. */
    record Parsed(SequencedMap<String, SafetensorsEntry> entries, Map<String, String> metadata) {
    }

    private final String file;
    private final String json;
    private final long dataStart;

    private HeaderParser(String file, String json, long dataStart) {
        this.file = file;
        this.json = json;
        this.dataStart = dataStart;
    }

    /**
     * Parses {@code json} (the header text) of {@code file}, whose data region holds
     * {@code dataBytes} bytes from file byte {@code dataStart}.
     */
    static Parsed parse(String file, String json, long dataStart, long dataBytes) throws TensorFileException {
        return new HeaderParser(file, json, dataStart).parse(dataBytes);
    }

    private Parsed parse(long dataBytes) throws TensorFileException {
        JNode root;
        try {
            root = new JsonReader().read(json);
        } catch (JsonFormatException e) {
            String what = e.detail().contains("Duplicate field")
                    ? "a name appears twice in the header (" + e.detail() + ")"
                    : e.detail();
            throw new TensorFileException(file + ": header" + at(e.pos()) + ": " + what, e);
        }
        if (!(root instanceof JNode.JObject top)) {
            throw fail(root, "the header is " + root.typeName() + ", not a JSON object");
        }
        Map<String, String> metadata = Map.of();
        SequencedMap<String, SafetensorsEntry> entries = new LinkedHashMap<>();
        for (Map.Entry<String, JNode> member : top.fields().entrySet()) {
            String name = member.getKey();
            if (name.equals(METADATA)) {
                metadata = metadata(member.getValue());
            } else {
                entries.put(name, entry(name, member.getValue(), dataBytes));
            }
        }
        checkCoverage(entries, dataBytes);
        return new Parsed(java.util.Collections.unmodifiableSequencedMap(entries), metadata);
    }

    private Map<String, String> metadata(JNode node) throws TensorFileException {
        if (!(node instanceof JNode.JObject o)) {
            throw fail(node, METADATA + " is " + node.typeName() + "; it must be an object of strings");
        }
        Map<String, String> out = new LinkedHashMap<>();
        for (Map.Entry<String, JNode> m : o.fields().entrySet()) {
            if (!(m.getValue() instanceof JNode.JString s)) {
                throw fail(m.getValue(), METADATA + " '" + m.getKey() + "' is " + m.getValue().typeName()
                        + "; metadata values must be strings");
            }
            out.put(m.getKey(), s.value());
        }
        return java.util.Collections.unmodifiableMap(out);
    }

    private SafetensorsEntry entry(String name, JNode node, long dataBytes) throws TensorFileException {
        if (name.isEmpty()) {
            throw fail(node, "a tensor has an empty name");
        }
        String where = "tensor '" + name + "'";
        if (!(node instanceof JNode.JObject o)) {
            throw fail(node, where + " is " + node.typeName() + ", not an object of dtype, shape and data_offsets");
        }
        for (String key : o.fields().keySet()) {
            if (!ENTRY_FIELDS.contains(key)) {
                throw fail(o.fields().get(key), where + " has an unknown field '" + key + "'; a tensor has exactly dtype, shape and data_offsets");
            }
        }
        for (String key : List.of("dtype", "shape", "data_offsets")) {
            if (!o.fields().containsKey(key)) {
                throw fail(o, where + " has no " + key + "; a tensor has exactly dtype, shape and data_offsets");
            }
        }
        if (!(o.fields().get("dtype") instanceof JNode.JString dtypeNode)) {
            throw fail(o.fields().get("dtype"), where + ": dtype is " + o.fields().get("dtype").typeName() + ", not a string");
        }
        String dtype = dtypeNode.value();
        int elementBytes = SafetensorsDTypes.byteSize(dtype);
        if (elementBytes == 0) {
            throw fail(dtypeNode, where + " has the unknown dtype '" + dtype + "'");
        }
        List<Long> shape = integers(o.fields().get("shape"), where + ": shape", -1);
        List<Long> offsets = integers(o.fields().get("data_offsets"), where + ": data_offsets", 2);
        long count = 1;
        for (long d : shape) {
            try {
                count = Math.multiplyExact(count, d);
            } catch (ArithmeticException e) {
                throw fail(o.fields().get("shape"), where + ": shape " + shape + " has more elements than a 64-bit count holds");
            }
        }
        long bytes;
        try {
            bytes = Math.multiplyExact(count, (long) elementBytes);
        } catch (ArithmeticException e) {
            throw fail(o.fields().get("shape"), where + ": shape " + shape + " of " + dtype + " has more bytes than a 64-bit count holds");
        }
        long begin = offsets.get(0);
        long end = offsets.get(1);
        JNode offsetsNode = o.fields().get("data_offsets");
        if (end < begin) {
            throw fail(offsetsNode, where + ": data_offsets [" + begin + ", " + end + ") end before they begin");
        }
        if (end - begin != bytes) {
            throw fail(offsetsNode, where + ": data_offsets [" + begin + ", " + end + ") hold " + (end - begin)
                    + " bytes, but shape " + shape + " of " + dtype + " needs " + bytes);
        }
        if (end > dataBytes) {
            throw fail(offsetsNode, where + ": data_offsets [" + begin + ", " + end + ") run past the end of the data region, which holds "
                    + dataBytes + " bytes (truncated file?)");
        }
        return new SafetensorsEntry(name, dtype, shape, begin, end);
    }

    /** An array of non-negative integers ({@code length} of them, or any number when negative). */
    private List<Long> integers(JNode node, String what, int length) throws TensorFileException {
        if (!(node instanceof JNode.JArray a)) {
            throw fail(node, what + " is " + node.typeName() + ", not an array of integers");
        }
        if (length >= 0 && a.items().size() != length) {
            throw fail(node, what + " has " + a.items().size() + " numbers, not " + length);
        }
        List<Long> out = new ArrayList<>(a.items().size());
        for (JNode item : a.items()) {
            if (!(item instanceof JNode.JNumber n) || !n.integral() || n.text().startsWith("-")) {
                throw fail(item, what + " holds " + describe(item) + "; it must hold non-negative integers");
            }
            try {
                out.add(Long.parseLong(n.text()));
            } catch (NumberFormatException e) {
                throw fail(item, what + " holds " + n.text() + ", more than a 64-bit count holds");
            }
        }
        return out;
    }

    private static String describe(JNode node) {
        return node instanceof JNode.JNumber n ? n.text() : node.typeName();
    }

    /** Every byte of the data region belongs to exactly one tensor (the reference implementation's rule). */
    private void checkCoverage(Map<String, SafetensorsEntry> entries, long dataBytes) throws TensorFileException {
        List<SafetensorsEntry> byOffset = new ArrayList<>(entries.values());
        byOffset.sort(Comparator.comparingLong(SafetensorsEntry::begin).thenComparingLong(SafetensorsEntry::end));
        long covered = 0;
        SafetensorsEntry previous = null;
        for (SafetensorsEntry e : byOffset) {
            if (e.begin() < covered) {
                throw new TensorFileException(file + ": tensor '" + e.name() + "' (data bytes [" + e.begin() + ", " + e.end()
                        + "), file bytes from " + (dataStart + e.begin()) + ") overlaps tensor '" + previous.name() + "' (data bytes [" + previous.begin() + ", " + previous.end() + "))");
            }
            if (e.begin() > covered) {
                throw new TensorFileException(file + ": data bytes [" + covered + ", " + e.begin() + ")" + fileBytes(covered, e.begin())
                        + " belong to no tensor (a hole before tensor '"
                        + e.name() + "'); the data region must be covered exactly");
            }
            covered = e.end();
            previous = e;
        }
        if (covered != dataBytes) {
            throw new TensorFileException(file + ": data bytes [" + covered + ", " + dataBytes + ")" + fileBytes(covered, dataBytes)
                    + " after the last tensor belong to no tensor;"
                    + " the data region must be covered exactly");
        }
    }

    private String fileBytes(long from, long to) {
        return " (file bytes [" + (dataStart + from) + ", " + (dataStart + to) + "))";
    }

    private TensorFileException fail(JNode at, String what) {
        return new TensorFileException(file + ": header" + at(at.pos()) + ": " + what);
    }

    /** {@code " LINE:COL (file byte B)"}: the header's line and column and the byte of the file they are at. */
    private String at(Pos pos) {
        if (!pos.known()) {
            return "";
        }
        int i = 0;
        for (int line = 1; line < pos.line() && i < json.length(); i++) {
            if (json.charAt(i) == '\n') {
                line++;
            }
        }
        int end = Math.min(json.length(), i + pos.column() - 1);
        return " " + pos + " (file byte " + (8 + json.substring(0, end).getBytes(StandardCharsets.UTF_8).length) + ")";
    }
}
