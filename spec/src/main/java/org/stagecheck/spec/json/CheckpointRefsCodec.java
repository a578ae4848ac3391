package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code checkpoint} field of an inputs manifest (version 2; docs/format.md, "Checkpoint
 * references"), read and written with the same rules as the rest of the manifest:
 * <pre>{"dir": "/models/llama", "files": {"model.safetensors": {"bytes": 123, "headerSha256": "...", "dataSha256": "..."}},
 *  "tensors": {"wq.l0": {"file": "model.safetensors", "key": "model.layers.0.self_attn.q_proj.weight",
 *              "view": "transposed", "slice": {"axis": 1, "start": 0, "end": 64}}}}</pre>
 * A file name is a plain name (no separator, not {@code .} or {@code ..}); every tensor's file is
 * one of {@code files}. Public so that a golden case's manifest, which records the same references,
 * reads and writes them in the same form.
 */
public final class CheckpointRefsCodec {
    private CheckpointRefsCodec() {
    }

    /** The references in {@code node}, the value of a {@code checkpoint} field; errors point under {@code /checkpoint}. */
    public static CheckpointRefs decode(JNode node) throws JsonFormatException {
        JNode.JObject o = object(node, "/checkpoint", "\"checkpoint\" is an object with dir, files and tensors");
        only(o, "/checkpoint", Set.of("dir", "files", "tensors"));
        if (!(o.fields().get("dir") instanceof JNode.JString dir) || dir.value().isEmpty() || dir.value().indexOf('\0') >= 0) {
            throw new JsonFormatException("/checkpoint/dir", at(o, "dir"), "\"dir\" is the checkpoint directory's path");
        }
        Map<String, CheckpointRefs.FileFacts> files = new LinkedHashMap<>();
        JNode.JObject fo = object(o.fields().get("files"), "/checkpoint/files", "\"files\" is an object of file name to {bytes, headerSha256[, dataSha256]}");
        for (Map.Entry<String, JNode> e : fo.fields().entrySet()) {
            String pointer = "/checkpoint/files/" + InputsManifestCodec.escape(e.getKey());
            if (!plainFileName(e.getKey())) {
                throw new JsonFormatException(pointer, e.getValue().pos(), "\"" + e.getKey() + "\" is not a plain file name inside the checkpoint directory");
            }
            JNode.JObject f = object(e.getValue(), pointer, "a file's facts are {\"bytes\": N, \"headerSha256\": HEX[, \"dataSha256\": HEX]}");
            only(f, pointer, Set.of("bytes", "headerSha256", "dataSha256", "modified"));
            long bytes = nonNegative(f, "bytes", pointer);
            if (!(f.fields().get("headerSha256") instanceof JNode.JString h) || !h.value().matches("[0-9a-f]{64}")) {
                throw new JsonFormatException(pointer + "/headerSha256", at(f, "headerSha256"), "\"headerSha256\" is 64 lowercase hex digits");
            }
            String data = null;
            if (f.fields().containsKey("dataSha256")) {
                if (!(f.fields().get("dataSha256") instanceof JNode.JString d) || !d.value().matches("[0-9a-f]{64}")) {
                    throw new JsonFormatException(pointer + "/dataSha256", at(f, "dataSha256"), "\"dataSha256\" is 64 lowercase hex digits");
                }
                data = d.value();
            }
            Long modified = f.fields().containsKey("modified") ? nonNegative(f, "modified", pointer) : null;
            files.put(e.getKey(), new CheckpointRefs.FileFacts(bytes, h.value(), data, modified));
        }
        Map<String, CheckpointRefs.TensorRef> tensors = new LinkedHashMap<>();
        JNode.JObject to = object(o.fields().get("tensors"), "/checkpoint/tensors", "\"tensors\" is an object of tensor name to its source");
        for (Map.Entry<String, JNode> e : to.fields().entrySet()) {
            String pointer = "/checkpoint/tensors/" + InputsManifestCodec.escape(e.getKey());
            JNode.JObject t = object(e.getValue(), pointer, "a tensor's source is {\"file\", \"key\", \"view\"[, \"slice\"]}");
            only(t, pointer, Set.of("file", "key", "view", "slice", "experts"));
            if (!(t.fields().get("file") instanceof JNode.JString file)
                    || !(files.containsKey(file.value()) || file.value().equals(CheckpointRefs.TensorRef.BY_INDEX))) {
                throw new JsonFormatException(pointer + "/file", at(t, "file"), "\"file\" names one of the checkpoint's files " + files.keySet()
                        + " (or \"*\" for a stacked view)");
            }
            if (!(t.fields().get("key") instanceof JNode.JString key) || key.value().isEmpty()) {
                throw new JsonFormatException(pointer + "/key", at(t, "key"), "\"key\" is the tensor's name in the file");
            }
            CheckpointRefs.View view = t.fields().get("view") instanceof JNode.JString vs ? CheckpointRefs.View.ofJsonName(vs.value()) : null;
            if (view == null) {
                throw new JsonFormatException(pointer + "/view", at(t, "view"), "\"view\" is as-stored, transposed, row, transposed-stacked-rows or transposed-stacked-columns");
            }
            CheckpointRefs.Slice slice = null;
            JNode sn = t.fields().get("slice");
            if (sn != null) {
                JNode.JObject so = object(sn, pointer + "/slice", "\"slice\" is {\"axis\", \"start\", \"end\"}");
                only(so, pointer + "/slice", Set.of("axis", "start", "end"));
                long axis = nonNegative(so, "axis", pointer + "/slice");
                long start = nonNegative(so, "start", pointer + "/slice");
                long end = nonNegative(so, "end", pointer + "/slice");
                if (axis > 1 || end <= start) {
                    throw new JsonFormatException(pointer + "/slice", so.pos(), "a slice has axis 0 or 1 and start < end");
                }
                slice = new CheckpointRefs.Slice((int) axis, start, end);
            }
            int experts = 0;
            if (t.fields().containsKey("experts")) {
                long n = nonNegative(t, "experts", pointer);
                if (n < 1 || n > 1 << 16) {
                    throw new JsonFormatException(pointer + "/experts", at(t, "experts"), "\"experts\" is between 1 and 65536");
                }
                experts = (int) n;
            }
            if (view.stacked() != (experts > 0) || (view.stacked() && !key.value().contains("{e}"))
                    || view.stacked() != file.value().equals(CheckpointRefs.TensorRef.BY_INDEX)) {
                throw new JsonFormatException(pointer, t.pos(), "a stacked view has \"file\": \"*\", \"experts\" and a key with {e};"
                        + " another view has none of them");
            }
            tensors.put(e.getKey(), new CheckpointRefs.TensorRef(file.value(), key.value(), view, slice, experts));
        }
        return new CheckpointRefs(dir.value(), files, tensors);
    }

    /** Writes {@code refs} as the field {@code "checkpoint"} of the object {@code g} is writing. */
    public static void write(CheckpointRefs refs, JsonGenerator g) throws IOException {
        g.writeObjectFieldStart("checkpoint");
        g.writeStringField("dir", refs.dir());
        g.writeObjectFieldStart("files");
        for (Map.Entry<String, CheckpointRefs.FileFacts> e : refs.files().entrySet()) {
            g.writeObjectFieldStart(e.getKey());
            g.writeNumberField("bytes", e.getValue().bytes());
            g.writeStringField("headerSha256", e.getValue().headerSha256());
            if (e.getValue().modifiedMillis() != null) {
                g.writeNumberField("modified", e.getValue().modifiedMillis());
            }
            if (e.getValue().dataSha256() != null) {
                g.writeStringField("dataSha256", e.getValue().dataSha256());
            }
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeObjectFieldStart("tensors");
        for (Map.Entry<String, CheckpointRefs.TensorRef> e : refs.tensors().entrySet()) {
            CheckpointRefs.TensorRef t = e.getValue();
            g.writeObjectFieldStart(e.getKey());
            g.writeStringField("file", t.file());
            g.writeStringField("key", t.key());
            g.writeStringField("view", t.view().jsonName());
            if (t.experts() > 0) {
                g.writeNumberField("experts", t.experts());
            }
            if (t.slice() != null) {
                g.writeObjectFieldStart("slice");
                g.writeNumberField("axis", t.slice().axis());
                g.writeNumberField("start", t.slice().start());
                g.writeNumberField("end", t.slice().end());
                g.writeEndObject();
            }
            g.writeEndObject();
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    /** A name without a separator that is not {@code .} or {@code ..}: a file directly inside the directory. */
    static boolean plainFileName(String name) {
        return !name.isEmpty() && !name.equals(".") && !name.equals("..") && name.indexOf('/') < 0
                && name.indexOf('\\') < 0 && name.indexOf('\0') < 0 && !(name.length() > 1 && name.charAt(1) == ':');
    }

    private static JNode.JObject object(JNode n, String pointer, String expected) throws JsonFormatException {
        if (!(n instanceof JNode.JObject o)) {
            throw new JsonFormatException(pointer, n == null ? Pos.UNKNOWN : n.pos(), expected + (n == null ? " (it is missing)" : ""));
        }
        return o;
    }

    private static void only(JNode.JObject o, String pointer, Set<String> allowed) throws JsonFormatException {
        for (Map.Entry<String, JNode> e : o.fields().entrySet()) {
            if (!allowed.contains(e.getKey())) {
                throw new JsonFormatException(pointer + "/" + InputsManifestCodec.escape(e.getKey()), e.getValue().pos(),
                        "unknown field \"" + e.getKey() + "\"; expected " + List.copyOf(new java.util.TreeSet<>(allowed)));
            }
        }
    }

    private static long nonNegative(JNode.JObject o, String field, String pointer) throws JsonFormatException {
        if (!(o.fields().get(field) instanceof JNode.JNumber n) || !n.integral() || n.text().startsWith("-")) {
            throw new JsonFormatException(pointer + "/" + field, at(o, field), "\"" + field + "\" is a non-negative integer");
        }
        try {
            return Long.parseLong(n.text());
        } catch (NumberFormatException e) {
            throw new JsonFormatException(pointer + "/" + field, n.pos(), "\"" + field + "\" is out of range");
        }
    }

    private static Pos at(JNode.JObject o, String field) {
        JNode n = o.fields().get(field);
        return n != null ? n.pos() : o.pos();
    }
}
