package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.cert.BufferRemap;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.cert.HeadLayout;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.spec.cert.ShardDecl;

/** Reads and writes certificates (docs/format.md, "Certificates"); writing is canonical. */
public final class CertificateCodec {
    public static final String FORMAT = "stagecheck-certificate";
    public static final int VERSION = 1;

    public Certificate read(JNode root) throws JsonFormatException {
        Fields f = new Fields(root, Pointer.ROOT);
        String format = f.string("format");
        if (!format.equals(FORMAT)) {
            throw new JsonFormatException("/format", f.required("format").pos(),
                    "expected format \"" + FORMAT + "\", found \"" + format + "\"");
        }
        int version = f.int32("version");
        if (version != VERSION) {
            throw new JsonFormatException("/version", f.required("version").pos(),
                    "unsupported version " + version + "; this stagecheck reads version " + VERSION);
        }
        String programHash = f.optionalString("programHash");
        if (programHash != null && !programHash.matches("sha256:[0-9a-f]{64}")) {
            throw new JsonFormatException("/programHash", f.required("programHash").pos(),
                    "programHash must be \"sha256:\" and 64 lowercase hex digits (ProgramCodec.hash), found \"" + programHash + "\"");
        }
        List<ShardDecl> shards = ProgramDecoder.list(f.optional("shards"), f.path("shards"), this::shard);
        JNode remapNode = f.optional("remap");
        BufferRemap remap = remapNode == null ? null : remap(remapNode, f.path("remap"));
        JNode headsNode = f.optional("heads");
        HeadLayout heads = headsNode == null ? null : heads(headsNode, f.path("heads"));
        List<Obligation> claims = ProgramDecoder.list(f.optional("claims"), f.path("claims"), (n, p) -> {
            String s = Fields.string(n, p);
            Obligation o = Obligation.fromJsonName(s);
            if (o == null) {
                throw Fields.invalid(n, p, "unknown obligation \"" + s + "\"; expected one of well-formed, unreduced-shard, buffer-remap, multicast");
            }
            return o;
        });
        f.done();
        return new Certificate(shards, remap, claims, programHash, heads);
    }

    public Certificate read(String json) throws JsonFormatException {
        return read(new JsonReader().read(json));
    }

    private ShardDecl shard(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String tensor = f.string("tensor");
        String logical = f.string("logical");
        int axis = f.int32("axis");
        long start = f.int64("start");
        long end = f.int64("end");
        long extent = f.int64("extent");
        f.done();
        return ProgramDecoder.construct(n, path, () -> new ShardDecl(tensor, logical, axis, start, end, extent));
    }

    private HeadLayout heads(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        JNode layoutNode = f.required("layout");
        String layout = Fields.string(layoutNode, f.path("layout"));
        HeadLayout.Order order = HeadLayout.Order.fromJsonName(layout);
        if (order == null) {
            throw Fields.invalid(layoutNode, f.path("layout"), "unknown head layout \"" + layout + "\"; expected contiguous or interleaved");
        }
        int queryHeads = f.int32("queryHeads");
        int kvHeads = f.int32("kvHeads");
        f.done();
        return ProgramDecoder.construct(n, path, () -> new HeadLayout(order, queryHeads, kvHeads));
    }

    private BufferRemap remap(JNode n, Pointer path) throws JsonFormatException {
        Fields f = new Fields(n, path);
        String parentHash = f.optionalString("parentHash");
        JNode.JObject mapNode = Fields.object(f.required("map"), f.path("map"));
        Map<String, String> map = new LinkedHashMap<>();
        for (var e : mapNode.fields().entrySet()) {
            map.put(e.getKey(), Fields.string(e.getValue(), f.path("map").key(e.getKey())));
        }
        f.done();
        return new BufferRemap(parentHash, map);
    }

    public byte[] write(Certificate c) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator g = new JsonFactory().createGenerator(out)) {
            g.setPrettyPrinter(new CanonicalPrinter());
            g.writeStartObject();
            g.writeStringField("format", FORMAT);
            g.writeNumberField("version", VERSION);
            if (c.programHash() != null) {
                g.writeStringField("programHash", c.programHash());
            }
            g.writeArrayFieldStart("shards");
            for (ShardDecl s : c.shards()) {
                g.writeStartObject();
                g.writeStringField("tensor", s.tensor());
                g.writeStringField("logical", s.logical());
                g.writeNumberField("axis", s.axis());
                g.writeNumberField("start", s.start());
                g.writeNumberField("end", s.end());
                g.writeNumberField("extent", s.extent());
                g.writeEndObject();
            }
            g.writeEndArray();
            if (c.heads() != null) {
                g.writeObjectFieldStart("heads");
                g.writeStringField("layout", c.heads().order().jsonName());
                g.writeNumberField("queryHeads", c.heads().queryHeads());
                g.writeNumberField("kvHeads", c.heads().kvHeads());
                g.writeEndObject();
            }
            if (c.remap() != null) {
                g.writeObjectFieldStart("remap");
                if (c.remap().parentHash() != null) {
                    g.writeStringField("parentHash", c.remap().parentHash());
                }
                g.writeObjectFieldStart("map");
                for (var e : c.remap().map().entrySet()) {
                    g.writeStringField(e.getKey(), e.getValue());
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeArrayFieldStart("claims");
            for (Obligation o : c.claims()) {
                g.writeString(o.jsonName());
            }
            g.writeEndArray();
            g.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        out.write('\n');
        return out.toByteArray();
    }
}
