package org.stagecheck.author;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.spec.json.Pos;

/**
 * The model spec file of {@code author --model FILE}, and the {@code model.json} of every authored
 * directory, which is the same format (docs/author.md, "Model spec file"). Read with the project's
 * one JSON reader, so it keeps every reader's rules: duplicate keys, trailing content and files
 * over {@link JsonReader#MAX_FILE_BYTES} are refused, and every error names FILE:LINE:COLUMN.
 *
 * <pre>{"format": "stagecheck-model", "version": 1,             (both optional)
 *  "name": "m", "vocab": 64, "hidden": 32, "layers": 2, "heads": 8, "kvHeads": 4, "headDim": 8,
 *  "ffn": 64, "ropeTheta": 10000, "normEps": 1e-5, "seed": 1}</pre>
 */
final class ModelSpecFile {
    static final String FORMAT = "stagecheck-model";
    static final List<String> FIELDS = List.of("name", "vocab", "hidden", "layers", "heads", "kvHeads",
            "headDim", "ffn", "ropeTheta", "normEps", "seed");
    /** Version 2's optional fields: the architecture and the checkpoint (absent: stagecheck's plain generated model). */
    static final List<String> FIELDS_V2 = List.of("family", "qkvBias", "outputBias", "mlpBias", "qkNorm",
            "slidingWindow", "ropeScaling", "tiedEmbeddings", "moe", "checkpoint");

    private ModelSpecFile() {
    }

    static ModelSpec read(Path file) throws ModelSpecException {
        JNode root;
        try {
            root = new JsonReader().read(file);
        } catch (JsonFormatException e) {
            throw new ModelSpecException(file + (e.pos().known() ? ":" : ": ") + e.getMessage()
                    + (e.pos().known() ? "" : " (cannot read a JSON model spec)"));
        }
        if (!(root instanceof JNode.JObject o)) {
            throw at(file, root.pos(), "a model spec is a JSON object, not " + root.typeName());
        }
        Map<String, JNode> f = o.fields();
        boolean v1 = f.get("version") instanceof JNode.JNumber v && v.text().equals("1");
        for (Map.Entry<String, JNode> e : f.entrySet()) {
            boolean known = FIELDS.contains(e.getKey()) || e.getKey().equals("format") || e.getKey().equals("version")
                    || (!v1 && FIELDS_V2.contains(e.getKey()));
            if (!known) {
                throw at(file, e.getValue().pos(), "unknown field \"" + e.getKey() + "\"; expected " + FIELDS
                        + (v1 ? "" : ", optionally " + FIELDS_V2) + " (and optionally format, version)");
            }
        }
        if (f.containsKey("format") && !(f.get("format") instanceof JNode.JString s && s.value().equals(FORMAT))) {
            throw at(file, f.get("format").pos(), "\"format\" is \"" + FORMAT + "\" when present");
        }
        if (f.containsKey("version") && !(f.get("version") instanceof JNode.JNumber v && (v.text().equals("1") || v.text().equals("2")))) {
            throw at(file, f.get("version").pos(), "\"version\" is 1 or 2 when present");
        }
        if (!(f.get("name") instanceof JNode.JString name)) {
            throw at(file, where(o, "name"), "field \"name\" must be a string");
        }
        int vocab = intField(file, o, "vocab");
        int hidden = intField(file, o, "hidden");
        int layers = intField(file, o, "layers");
        int heads = intField(file, o, "heads");
        int kvHeads = intField(file, o, "kvHeads");
        int headDim = intField(file, o, "headDim");
        int ffn = intField(file, o, "ffn");
        double theta = doubleField(file, o, "ropeTheta");
        double eps = doubleField(file, o, "normEps");
        long seed = longField(file, o, "seed");
        Architecture arch = ModelSpecFileV2.architecture(file, o);
        CheckpointSource checkpoint = ModelSpecFileV2.checkpoint(file, o);
        ModelSpecProblem problem = ModelSpec.problem(name.value(), vocab, hidden, layers, heads, kvHeads, headDim, ffn, theta, eps,
                checkpoint != null);
        if (problem != null) {
            // at the refused value; a problem no one field decides is placed at the spec's object
            throw at(file, problem.field() == null ? o.pos() : where(o, problem.field()), problem.message());
        }
        try {
            return new ModelSpec(name.value(), vocab, hidden, layers, heads, kvHeads, headDim, ffn, theta, eps, seed, arch, checkpoint);
        } catch (IllegalArgumentException e) {
            // what the fields checked above leave to the spec (its features against its sizes): at the spec's object
            throw at(file, o.pos(), e.getMessage());
        }
    }

    /** Writes {@code spec} in this format (with format and version): what {@link #read} reads back equal. */
    static void write(ModelSpec spec, OutputStream out) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            boolean v2 = !spec.arch().isPlain() || spec.checkpoint() != null;
            g.writeStringField("format", FORMAT);
            g.writeNumberField("version", v2 ? 2 : 1);
            g.writeStringField("name", spec.name());
            g.writeNumberField("vocab", spec.vocab());
            g.writeNumberField("hidden", spec.hidden());
            g.writeNumberField("layers", spec.layers());
            g.writeNumberField("heads", spec.heads());
            g.writeNumberField("kvHeads", spec.kvHeads());
            g.writeNumberField("headDim", spec.headDim());
            g.writeNumberField("ffn", spec.ffn());
            g.writeNumberField("ropeTheta", spec.ropeTheta());
            g.writeNumberField("normEps", spec.normEps());
            g.writeNumberField("seed", spec.seed());
            if (v2) {
                ModelSpecFileV2.write(spec, g);
            }
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    static int intField(Path file, JNode.JObject o, String field) throws ModelSpecException {
        long v = longField(file, o, field);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw at(file, o.fields().get(field).pos(), "field \"" + field + "\" must be a 32-bit integer, not " + v);
        }
        return (int) v;
    }

    static long longField(Path file, JNode.JObject o, String field) throws ModelSpecException {
        JNode v = o.fields().get(field);
        if (!(v instanceof JNode.JNumber n) || !n.integral()) {
            throw at(file, where(o, field), "field \"" + field + "\" must be an integer" + (v == null ? " (it is missing)" : ", not " + v.typeName()));
        }
        try {
            return Long.parseLong(n.text());
        } catch (NumberFormatException e) {
            throw at(file, v.pos(), "field \"" + field + "\" is out of range: " + n.text());
        }
    }

    static double doubleField(Path file, JNode.JObject o, String field) throws ModelSpecException {
        JNode v = o.fields().get(field);
        if (!(v instanceof JNode.JNumber n)) {
            throw at(file, where(o, field), "field \"" + field + "\" must be a number" + (v == null ? " (it is missing)" : ", not " + v.typeName()));
        }
        return Double.parseDouble(n.text());
    }

    static Pos where(JNode.JObject o, String field) {
        JNode v = o.fields().get(field);
        return v == null ? o.pos() : v.pos();
    }

    static ModelSpecException at(Path file, Pos pos, String message) {
        return new ModelSpecException(file + (pos.known() ? ":" + pos : "") + ": " + message);
    }
}
