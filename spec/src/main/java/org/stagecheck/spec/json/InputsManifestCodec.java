package org.stagecheck.spec.json;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * The one reader and writer of {@link InputsManifest}: the same JSON rules as every other reader
 * (duplicate keys, trailing content, size limits, positions in every error), and a check that no
 * path is absolute or leads out of the manifest's directory by its spelling. Whether a path leads
 * out through a symbolic link is the caller's to check when it opens the file.
 */
public final class InputsManifestCodec {
    /** What {@code ProgramCodec.hash} returns. */
    private static final java.util.regex.Pattern PROGRAM_HASH = java.util.regex.Pattern.compile("sha256:[0-9a-f]{64}");
    private static final Set<String> FIELDS = Set.of("format", "version", "tensors", "params", "checkpoint", "program");

    /** Reads the manifest {@code file}. */
    public InputsManifest read(Path file) throws JsonFormatException {
        return decode(new JsonReader().read(file));
    }

    /** Reads a manifest from its text (tests, tools). */
    public InputsManifest read(String text) throws JsonFormatException {
        return decode(new JsonReader().read(text));
    }

    private static InputsManifest decode(JNode root) throws JsonFormatException {
        if (!(root instanceof JNode.JObject o)) {
            throw new JsonFormatException("", root.pos(), "an inputs manifest is a JSON object");
        }
        for (Map.Entry<String, JNode> e : o.fields().entrySet()) {
            if (!FIELDS.contains(e.getKey())) {
                throw new JsonFormatException("/" + e.getKey(), e.getValue().pos(),
                        "unknown field \"" + e.getKey() + "\"; expected format, version, tensors, params, checkpoint, program");
            }
        }
        if (!(o.fields().get("format") instanceof JNode.JString f) || !f.value().equals(InputsManifest.FORMAT)) {
            throw new JsonFormatException("/format", at(o, "format"), "expected \"format\": \"" + InputsManifest.FORMAT + "\"");
        }
        if (!(o.fields().get("version") instanceof JNode.JNumber v) || !(v.text().equals("1") || v.text().equals("2"))) {
            throw new JsonFormatException("/version", at(o, "version"), "expected \"version\": 1 (or 2, with a checkpoint or a program)");
        }
        JNode ck = o.fields().get("checkpoint");
        if (ck != null && v.text().equals("1")) {
            throw new JsonFormatException("/checkpoint", ck.pos(), "\"checkpoint\" needs \"version\": 2");
        }
        String programHash = programHash(o.fields().get("program"), v);
        Map<String, String> tensors = new LinkedHashMap<>();
        JNode t = o.fields().get("tensors");
        if (t instanceof JNode.JObject to) {
            for (Map.Entry<String, JNode> e : to.fields().entrySet()) {
                String pointer = "/tensors/" + escape(e.getKey());
                if (!(e.getValue() instanceof JNode.JString s)) {
                    throw new JsonFormatException(pointer, e.getValue().pos(), "tensor \"" + e.getKey() + "\" must map to a relative file path");
                }
                if (leaves(s.value())) {
                    throw new JsonFormatException(pointer, s.pos(),
                            "path \"" + s.value() + "\" for tensor \"" + e.getKey() + "\" leaves the manifest's directory");
                }
                tensors.put(e.getKey(), s.value());
            }
        } else if (t != null) {
            throw new JsonFormatException("/tensors", t.pos(), "\"tensors\" must be an object of tensor name to file");
        }
        Map<String, Long> params = new LinkedHashMap<>();
        JNode p = o.fields().get("params");
        if (p instanceof JNode.JObject po) {
            for (Map.Entry<String, JNode> e : po.fields().entrySet()) {
                String pointer = "/params/" + escape(e.getKey());
                if (!(e.getValue() instanceof JNode.JNumber n) || !n.integral()) {
                    throw new JsonFormatException(pointer, e.getValue().pos(), "parameter \"" + e.getKey() + "\" must be an integer");
                }
                try {
                    params.put(e.getKey(), Long.parseLong(n.text()));
                } catch (NumberFormatException ex) {
                    throw new JsonFormatException(pointer, n.pos(), "parameter \"" + e.getKey() + "\" is out of range");
                }
            }
        } else if (p != null) {
            throw new JsonFormatException("/params", p.pos(), "\"params\" must be an object of parameter name to integer");
        }
        CheckpointRefs refs = ck == null ? null : CheckpointRefsCodec.decode(ck);
        if (refs != null) {
            for (Map.Entry<String, CheckpointRefs.TensorRef> e : refs.tensors().entrySet()) {
                if (tensors.containsKey(e.getKey())) {
                    throw new JsonFormatException("/checkpoint/tensors/" + escape(e.getKey()), ck.pos(),
                            "tensor \"" + e.getKey() + "\" is bound both from a file and from the checkpoint");
                }
            }
        }
        return new InputsManifest(tensors, params, refs, programHash);
    }

    /** The optional {@code "program": {"hash": "sha256:<64 hex digits>"}} (version 2): the program whose run wrote the manifest. */
    private static String programHash(JNode node, JNode.JNumber version) throws JsonFormatException {
        if (node == null) {
            return null;
        }
        if (version.text().equals("1")) {
            throw new JsonFormatException("/program", node.pos(), "\"program\" needs \"version\": 2");
        }
        if (!(node instanceof JNode.JObject po) || po.fields().size() != 1
                || !(po.fields().get("hash") instanceof JNode.JString h)) {
            throw new JsonFormatException("/program", node.pos(), "\"program\" is {\"hash\": \"sha256:...\"}");
        }
        if (!PROGRAM_HASH.matcher(h.value()).matches()) {
            throw new JsonFormatException("/program/hash", h.pos(), "a program hash is \"sha256:\" and 64 lowercase hex digits");
        }
        return h.value();
    }

    static String escape(String key) {
        return key.replace("~", "~0").replace("/", "~1");
    }

    private static Pos at(JNode.JObject o, String field) {
        JNode n = o.fields().get(field);
        return n != null ? n.pos() : o.pos();
    }

    /** Absolute, empty, or with a {@code ..} that climbs above the directory. */
    static boolean leaves(String path) {
        if (path.isEmpty() || path.startsWith("/") || path.startsWith("\\") || path.indexOf('\0') >= 0
                || (path.length() > 1 && path.charAt(1) == ':')) {
            return true;
        }
        int depth = 0;
        for (String part : path.split("[/\\\\]")) {
            if (part.equals("..")) {
                depth--;
                if (depth < 0) {
                    return true;
                }
            } else if (!part.isEmpty() && !part.equals(".")) {
                depth++;
            }
        }
        return depth == 0;
    }

    /** Writes {@code m} as canonical JSON (fields in the order above, maps in their order), ending in a newline. */
    public void write(InputsManifest m, OutputStream out) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("format", InputsManifest.FORMAT);
            g.writeNumberField("version", m.checkpoint() == null && m.programHash() == null ? 1 : 2);
            g.writeObjectFieldStart("tensors");
            for (Map.Entry<String, String> e : m.tensors().entrySet()) {
                g.writeStringField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeObjectFieldStart("params");
            for (Map.Entry<String, Long> e : m.params().entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            if (m.checkpoint() != null) {
                CheckpointRefsCodec.write(m.checkpoint(), g);
            }
            if (m.programHash() != null) {
                g.writeObjectFieldStart("program");
                g.writeStringField("hash", m.programHash());
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }
}
