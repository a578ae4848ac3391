package org.stagecheck.golden.store;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;

import org.stagecheck.golden.GoldenException;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.spec.json.CheckpointRefsCodec;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;

/**
 * Writes a {@link Manifest} as JSON (always the same bytes for the same manifest: fixed key
 * order, '\n' line ends, no time stamps) and reads one back with every problem reported as a
 * {@link GoldenException} naming the file and the field (a JSON pointer).
 */
public final class ManifestCodec {
    private ManifestCodec() {
    }

    public static byte[] write(Manifest m) {
        StringWriter sw = new StringWriter();
        try (JsonGenerator g = new JsonFactory().createGenerator(sw)) {
            DefaultIndenter nl = new DefaultIndenter("  ", "\n");
            g.setPrettyPrinter(new DefaultPrettyPrinter().withObjectIndenter(nl).withArrayIndenter(nl));
            g.writeStartObject();
            g.writeStringField("format", Manifest.FORMAT);
            g.writeNumberField("version", m.version());
            g.writeObjectFieldStart("program");
            g.writeStringField("file", m.programFile());
            g.writeStringField("hash", m.programHash());
            g.writeEndObject();
            g.writeObjectFieldStart("provenance");
            g.writeStringField("stagecheck", m.provenance().stagecheck());
            g.writeStringField("evaluation", m.provenance().evaluation());
            g.writeStringField("mathMode", m.provenance().mathMode());
            if (m.provenance().tolerance() != null) {
                g.writeStringField("tolerance", m.provenance().tolerance());
            }
            g.writeEndObject();
            g.writeObjectFieldStart("params");
            for (var e : m.params().entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeArrayFieldStart("inputs");
            for (Manifest.TensorFile t : m.inputs()) {
                g.writeStartObject();
                g.writeStringField("tensor", t.tensor());
                g.writeStringField("file", t.file());
                tensorType(g, t.dtype(), t.shape());
                g.writeEndObject();
            }
            g.writeEndArray();
            if (m.checkpoint() != null) {
                CheckpointRefsCodec.write(m.checkpoint(), g);
            }
            g.writeArrayFieldStart("outputs");
            for (Manifest.Output o : m.outputs()) {
                g.writeStartObject();
                g.writeStringField("tensor", o.tensor());
                g.writeStringField("file", o.file());
                tensorType(g, o.dtype(), o.shape());
                g.writeStringField("policy", o.policy().spelling());
                if (o.tolerance() != null) {
                    g.writeStringField("tolerance", o.tolerance());
                }
                if (o.basis() != null) {
                    g.writeStringField("toleranceBasis", o.basis());
                }
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("trace");
            for (Manifest.TraceFile t : m.trace()) {
                g.writeStartObject();
                g.writeStringField("stage", t.stage());
                g.writeNumberField("port", t.port());
                g.writeStringField("file", t.file());
                tensorType(g, t.dtype(), t.shape());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("warnings");
            for (String w : m.warnings()) {
                g.writeString(w);
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return (sw + "\n").getBytes(StandardCharsets.UTF_8);
    }

    private static void tensorType(JsonGenerator g, DType dtype, Shape shape) throws IOException {
        g.writeStringField("dtype", dtype.jsonName());
        g.writeArrayFieldStart("shape");
        for (int d : shape.dims()) {
            g.writeNumber(d);
        }
        g.writeEndArray();
    }

    /** Reads {@code file}; every problem names the file and the field. */
    public static Manifest read(Path file) throws GoldenException {
        JNode root;
        try {
            root = new JsonReader().read(file);
        } catch (JsonFormatException e) {
            throw new GoldenException(file, null, "malformed JSON: " + e.getMessage(), e);
        }
        Reader r = new Reader(file);
        JNode.JObject o = r.object(root, "");
        r.only(o, "", Set.of("format", "version", "program", "provenance", "params", "inputs", "checkpoint", "outputs", "trace", "warnings"));
        if (!Manifest.FORMAT.equals(r.string(o, "", "format"))) {
            throw new GoldenException(file, "/format", "expected \"" + Manifest.FORMAT + "\"");
        }
        long version = r.integer(o, "", "version");
        if (version != Manifest.VERSION && version != Manifest.VERSION_WITH_CHECKPOINT) {
            throw new GoldenException(file, "/version", "version " + version + " is not supported (this stagecheck reads versions "
                    + Manifest.VERSION + " and " + Manifest.VERSION_WITH_CHECKPOINT + ")");
        }
        JNode.JObject program = r.object(r.field(o, "", "program"), "/program");
        String programFile = r.string(program, "/program", "file");
        String hash = r.string(program, "/program", "hash");
        JNode.JObject prov = r.object(r.field(o, "", "provenance"), "/provenance");
        Manifest.Provenance provenance = new Manifest.Provenance(r.string(prov, "/provenance", "stagecheck"),
                r.string(prov, "/provenance", "evaluation"), r.string(prov, "/provenance", "mathMode"),
                prov.fields().containsKey("tolerance") ? r.string(prov, "/provenance", "tolerance") : null);
        Map<String, Long> params = new LinkedHashMap<>();
        JNode.JObject ps = r.object(r.field(o, "", "params"), "/params");
        for (String k : ps.fields().keySet()) {
            params.put(k, r.integer(ps, "/params", k));
        }
        List<Manifest.TensorFile> inputs = new ArrayList<>();
        List<JNode> ins = r.array(r.field(o, "", "inputs"), "/inputs");
        for (int i = 0; i < ins.size(); i++) {
            String at = "/inputs/" + i;
            JNode.JObject t = r.object(ins.get(i), at);
            r.only(t, at, Set.of("tensor", "file", "dtype", "shape"));
            String tensor = r.string(t, at, "tensor");
            // two files for one tensor: whichever a reader took last would bind it, without a word
            if (inputs.stream().anyMatch(earlier -> earlier.tensor().equals(tensor))) {
                throw new GoldenException(file, at + "/tensor", "tensor '" + tensor + "' is listed twice");
            }
            inputs.add(new Manifest.TensorFile(tensor, r.string(t, at, "file"), r.dtype(t, at), r.shape(t, at)));
        }
        CheckpointRefs checkpoint = null;
        JNode ck = o.fields().get("checkpoint");
        if (ck != null) {
            if (version != Manifest.VERSION_WITH_CHECKPOINT) {
                throw new GoldenException(file, "/checkpoint", "checkpoint references need \"version\": " + Manifest.VERSION_WITH_CHECKPOINT);
            }
            try {
                checkpoint = CheckpointRefsCodec.decode(ck);
            } catch (JsonFormatException e) {
                throw new GoldenException(file, e.pointer(), (e.pos().known() ? e.pos() + ": " : "") + e.detail(), e);
            }
            for (int i = 0; i < inputs.size(); i++) {
                String name = inputs.get(i).tensor();
                if (checkpoint.tensors().containsKey(name)) {
                    throw new GoldenException(file, "/checkpoint/tensors/" + name.replace("~", "~0").replace("/", "~1"),
                            "tensor '" + name + "' is bound both from a file (/inputs/" + i + ") and from the checkpoint");
                }
            }
        }
        List<Manifest.Output> outputs = new ArrayList<>();
        List<JNode> outs = r.array(r.field(o, "", "outputs"), "/outputs");
        for (int i = 0; i < outs.size(); i++) {
            String at = "/outputs/" + i;
            JNode.JObject t = r.object(outs.get(i), at);
            r.only(t, at, Set.of("tensor", "file", "dtype", "shape", "policy", "tolerance", "toleranceBasis"));
            Policy policy;
            try {
                policy = Policy.parse(r.string(t, at, "policy"));
            } catch (IllegalArgumentException e) {
                throw new GoldenException(file, at + "/policy", e.getMessage());
            }
            String tol = t.fields().containsKey("tolerance") ? r.string(t, at, "tolerance") : null;
            String basis = t.fields().containsKey("toleranceBasis") ? r.string(t, at, "toleranceBasis") : null;
            outputs.add(new Manifest.Output(r.string(t, at, "tensor"), r.string(t, at, "file"), r.dtype(t, at), r.shape(t, at), policy, tol, basis));
        }
        List<Manifest.TraceFile> trace = new ArrayList<>();
        if (o.fields().containsKey("trace")) {
            List<JNode> tr = r.array(r.field(o, "", "trace"), "/trace");
            for (int i = 0; i < tr.size(); i++) {
                String at = "/trace/" + i;
                JNode.JObject t = r.object(tr.get(i), at);
                r.only(t, at, Set.of("stage", "port", "file", "dtype", "shape"));
                trace.add(new Manifest.TraceFile(r.string(t, at, "stage"), r.port(t, at),
                        r.string(t, at, "file"), r.dtype(t, at), r.shape(t, at)));
            }
        }
        List<String> warnings = new ArrayList<>();
        if (o.fields().containsKey("warnings")) {
            List<JNode> ws = r.array(r.field(o, "", "warnings"), "/warnings");
            for (int i = 0; i < ws.size(); i++) {
                if (!(ws.get(i) instanceof JNode.JString s)) {
                    throw new GoldenException(file, "/warnings/" + i, "expected a string");
                }
                warnings.add(s.value());
            }
        }
        return new Manifest(programFile, hash, provenance, params, inputs, checkpoint, outputs, trace, warnings);
    }

    /** Typed access to the JSON tree with errors naming the file and the pointer. */
    private record Reader(Path file) {
        JNode field(JNode.JObject o, String at, String name) throws GoldenException {
            JNode n = o.fields().get(name);
            if (n == null) {
                throw new GoldenException(file, at + "/" + name, "missing");
            }
            return n;
        }

        JNode.JObject object(JNode n, String at) throws GoldenException {
            if (!(n instanceof JNode.JObject o)) {
                throw new GoldenException(file, at.isEmpty() ? "/" : at, "expected a JSON object");
            }
            return o;
        }

        List<JNode> array(JNode n, String at) throws GoldenException {
            if (!(n instanceof JNode.JArray a)) {
                throw new GoldenException(file, at, "expected a JSON array");
            }
            return a.items();
        }

        String string(JNode.JObject o, String at, String name) throws GoldenException {
            if (!(field(o, at, name) instanceof JNode.JString s)) {
                throw new GoldenException(file, at + "/" + name, "expected a string");
            }
            return s.value();
        }

        long integer(JNode.JObject o, String at, String name) throws GoldenException {
            if (!(field(o, at, name) instanceof JNode.JNumber n) || !n.integral()) {
                throw new GoldenException(file, at + "/" + name, "expected an integer");
            }
            try {
                return Long.parseLong(n.text());
            } catch (NumberFormatException e) {
                throw new GoldenException(file, at + "/" + name, "integer out of range: " + n.text());
            }
        }

        /** A stage's output port: an index from 0, at most an int's. */
        int port(JNode.JObject o, String at) throws GoldenException {
            long port = integer(o, at, "port");
            if (port < 0 || port > Integer.MAX_VALUE) {
                throw new GoldenException(file, at + "/port", "a port is an index from 0 to " + Integer.MAX_VALUE + ", not " + port);
            }
            return (int) port;
        }

        DType dtype(JNode.JObject o, String at) throws GoldenException {
            String s = string(o, at, "dtype");
            DType d = DType.fromJsonName(s);
            if (d == null) {
                throw new GoldenException(file, at + "/dtype", "unknown dtype \"" + s + "\"");
            }
            return d;
        }

        Shape shape(JNode.JObject o, String at) throws GoldenException {
            List<JNode> dims = array(field(o, at, "shape"), at + "/shape");
            int[] d = new int[dims.size()];
            for (int i = 0; i < d.length; i++) {
                if (!(dims.get(i) instanceof JNode.JNumber n) || !n.integral()) {
                    throw new GoldenException(file, at + "/shape/" + i, "expected a non-negative integer");
                }
                try {
                    d[i] = Integer.parseInt(n.text());
                } catch (NumberFormatException e) {
                    throw new GoldenException(file, at + "/shape/" + i, "dimension out of range: " + n.text());
                }
            }
            try {
                return Shape.of(d);
            } catch (IllegalArgumentException e) {
                throw new GoldenException(file, at + "/shape", e.getMessage());
            }
        }

        void only(JNode.JObject o, String at, Set<String> allowed) throws GoldenException {
            for (String k : o.fields().keySet()) {
                if (!allowed.contains(k)) {
                    throw new GoldenException(file, at + "/" + k, "unknown field; expected one of " + new java.util.TreeSet<>(allowed));
                }
            }
        }
    }
}
