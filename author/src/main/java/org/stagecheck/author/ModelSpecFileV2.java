package org.stagecheck.author;

import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.nio.file.Path;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.json.JNode;

/**
 * The fields version 2 of the model spec file adds to version 1 (docs/author.md, "Model spec
 * file"): the architecture ({@link Architecture}) and, for a checkpoint's model, where its
 * weights are. Every field is optional; absent, it is the plain generated model's value.
 */
final class ModelSpecFileV2 {
    private ModelSpecFileV2() {
    }

    static Architecture architecture(Path file, JNode.JObject o) throws ModelSpecException {
        // a family name alone (stagecheck, llama, ..., mixtral) with the fields below
        Architecture plain = Architecture.plain();
        Family family = plain.family();
        JNode fam = o.fields().get("family");
        if (fam != null) {
            if (!(fam instanceof JNode.JString s) || Family.ofJsonName(s.value()) == null) {
                throw ModelSpecFile.at(file, fam.pos(), "\"family\" is one of stagecheck, llama, mistral, qwen2, qwen3, qwen2_moe, qwen3_moe, mixtral");
            }
            family = Family.ofJsonName(s.value());
        }
        int window = o.fields().containsKey("slidingWindow") ? ModelSpecFile.intField(file, o, "slidingWindow") : 0;
        if (window < 0) {
            throw ModelSpecFile.at(file, o.fields().get("slidingWindow").pos(), "\"slidingWindow\" is 0 (none) or positive");
        }
        try {
            return new Architecture(family, bool(file, o, "qkvBias"), bool(file, o, "outputBias"), bool(file, o, "mlpBias"),
                    bool(file, o, "qkNorm"), window, scaling(file, o), bool(file, o, "tiedEmbeddings"), moe(file, o));
        } catch (IllegalArgumentException e) {
            // the features together (a family and what it cannot have): at the family, or the spec's object
            throw ModelSpecFile.at(file, ModelSpecFile.where(o, "family"), e.getMessage());
        }
    }

    static CheckpointSource checkpoint(Path file, JNode.JObject o) throws ModelSpecException {
        JNode c = o.fields().get("checkpoint");
        if (c == null) {
            return null;
        }
        if (!(c instanceof JNode.JObject co) || co.fields().size() != 2
                || !(co.fields().get("dir") instanceof JNode.JString dir)
                || !(co.fields().get("dtype") instanceof JNode.JString dtype)) {
            throw ModelSpecFile.at(file, c.pos(), "\"checkpoint\" is {\"dir\": PATH, \"dtype\": \"f32\"|\"bf16\"|\"f16\"}");
        }
        DType d = DType.fromJsonName(dtype.value());
        if (d != DType.F32 && d != DType.BF16 && d != DType.F16) {
            throw ModelSpecFile.at(file, dtype.pos(), "a checkpoint's weights are f32, bf16 or f16, not \"" + dtype.value() + "\"");
        }
        Path p;
        try {
            p = Path.of(dir.value());
        } catch (java.nio.file.InvalidPathException e) {
            throw ModelSpecFile.at(file, dir.pos(), "the checkpoint directory is not a path");
        }
        // relative to the spec file's directory, so that a model.json moved with its checkpoint still works
        Path base = file.toAbsolutePath().getParent();
        return new CheckpointSource(base == null ? p : base.resolve(p), d);
    }

    /** {@code "moe"}: null or absent for a dense model, else the fields of {@link Moe}. */
    private static Moe moe(Path file, JNode.JObject o) throws ModelSpecException {
        JNode v = o.fields().get("moe");
        if (v == null || v instanceof JNode.JNull) {
            return Moe.NONE;
        }
        java.util.List<String> fields = java.util.List.of("experts", "topK", "expertFfn", "normTopK", "sparseStep", "denseLayers", "sharedFfn");
        if (!(v instanceof JNode.JObject mo)) {
            throw ModelSpecFile.at(file, v.pos(), "\"moe\" is null or an object with " + fields);
        }
        for (String k : mo.fields().keySet()) {
            if (!fields.contains(k)) {
                throw ModelSpecFile.at(file, mo.fields().get(k).pos(), "unknown field \"" + k + "\" in \"moe\"; expected " + fields);
            }
        }
        java.util.List<Integer> dense = new java.util.ArrayList<>();
        if (mo.fields().get("denseLayers") instanceof JNode.JArray a) {
            for (JNode n : a.items()) {
                if (!(n instanceof JNode.JNumber num) || !num.integral() || num.text().startsWith("-") || num.text().length() > 9) {
                    throw ModelSpecFile.at(file, n.pos(), "\"denseLayers\" lists layer indices");
                }
                dense.add(Integer.parseInt(num.text()));
            }
        } else if (mo.fields().containsKey("denseLayers")) {
            throw ModelSpecFile.at(file, mo.fields().get("denseLayers").pos(), "\"denseLayers\" is an array of layer indices");
        }
        int experts = ModelSpecFile.intField(file, mo, "experts");
        int topK = ModelSpecFile.intField(file, mo, "topK");
        int expertFfn = ModelSpecFile.intField(file, mo, "expertFfn");
        boolean normTopK = bool(file, mo, "normTopK");
        int sparseStep = ModelSpecFile.intField(file, mo, "sparseStep");
        int sharedFfn = ModelSpecFile.intField(file, mo, "sharedFfn");
        try {
            return new Moe(experts, topK, expertFfn, normTopK, sparseStep, dense, sharedFfn);
        } catch (IllegalArgumentException e) {
            // values that do not fit together (topK over experts, ...): at the "moe" object
            throw ModelSpecFile.at(file, mo.pos(), e.getMessage());
        }
    }

    private static boolean bool(Path file, JNode.JObject o, String field) throws ModelSpecException {
        JNode v = o.fields().get(field);
        if (v == null) {
            return false;
        }
        if (!(v instanceof JNode.JBool b)) {
            throw ModelSpecFile.at(file, v.pos(), "field \"" + field + "\" must be true or false");
        }
        return b.value();
    }

    private static RopeScaling scaling(Path file, JNode.JObject o) throws ModelSpecException {
        JNode v = o.fields().get("ropeScaling");
        if (v == null || v instanceof JNode.JNull) {
            return RopeScaling.NONE;
        }
        if (!(v instanceof JNode.JObject so) || !(so.fields().get("type") instanceof JNode.JString t) || !t.value().equals("llama3")) {
            throw ModelSpecFile.at(file, v.pos(), "\"ropeScaling\" is null or {\"type\": \"llama3\", \"factor\", \"lowFreqFactor\","
                    + " \"highFreqFactor\", \"originalMaxPositions\"}");
        }
        for (String k : so.fields().keySet()) {
            if (!java.util.List.of("type", "factor", "lowFreqFactor", "highFreqFactor", "originalMaxPositions").contains(k)) {
                throw ModelSpecFile.at(file, so.fields().get(k).pos(), "unknown field \"" + k + "\" in \"ropeScaling\"");
            }
        }
        double factor = ModelSpecFile.doubleField(file, so, "factor");
        double low = ModelSpecFile.doubleField(file, so, "lowFreqFactor");
        double high = ModelSpecFile.doubleField(file, so, "highFreqFactor");
        int original = ModelSpecFile.intField(file, so, "originalMaxPositions");
        try {
            return new RopeScaling.Llama3(factor, low, high, original);
        } catch (IllegalArgumentException e) {
            throw ModelSpecFile.at(file, so.pos(), e.getMessage());
        }
    }

    static void write(ModelSpec spec, JsonGenerator g) throws IOException {
        Architecture a = spec.arch();
        g.writeStringField("family", a.family().jsonName());
        g.writeBooleanField("qkvBias", a.qkvBias());
        g.writeBooleanField("outputBias", a.outputBias());
        g.writeBooleanField("mlpBias", a.mlpBias());
        g.writeBooleanField("qkNorm", a.qkNorm());
        g.writeNumberField("slidingWindow", a.slidingWindow());
        switch (a.ropeScaling()) {
            case RopeScaling.None _ -> g.writeNullField("ropeScaling");
            case RopeScaling.Llama3 l -> {
                g.writeObjectFieldStart("ropeScaling");
                g.writeStringField("type", "llama3");
                g.writeNumberField("factor", l.factor());
                g.writeNumberField("lowFreqFactor", l.lowFreqFactor());
                g.writeNumberField("highFreqFactor", l.highFreqFactor());
                g.writeNumberField("originalMaxPositions", l.originalMaxPositions());
                g.writeEndObject();
            }
        }
        g.writeBooleanField("tiedEmbeddings", a.tiedEmbeddings());
        if (a.moe().present()) {
            Moe m = a.moe();
            g.writeObjectFieldStart("moe");
            g.writeNumberField("experts", m.experts());
            g.writeNumberField("topK", m.topK());
            g.writeNumberField("expertFfn", m.expertFfn());
            g.writeBooleanField("normTopK", m.normTopK());
            g.writeNumberField("sparseStep", m.sparseStep());
            g.writeArrayFieldStart("denseLayers");
            for (int l : m.denseLayers()) {
                g.writeNumber(l);
            }
            g.writeEndArray();
            g.writeNumberField("sharedFfn", m.sharedFfn());
            g.writeEndObject();
        }
        if (spec.checkpoint() != null) {
            g.writeObjectFieldStart("checkpoint");
            g.writeStringField("dir", spec.checkpoint().dir().toString());
            g.writeStringField("dtype", spec.checkpoint().dtype().toString());
            g.writeEndObject();
        }
    }
}
