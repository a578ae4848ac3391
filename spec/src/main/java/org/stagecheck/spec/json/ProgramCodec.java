package org.stagecheck.spec.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;

/**
 * Reads and writes programs in the stagecheck JSON format (docs/format.md). Writing is
 * canonical: the same program always gives the same bytes (fixed field order, no optional field
 * written at its default, two-space indentation, a final newline), and {@link #hash} is the
 * SHA-256 of those bytes.
 */
public final class ProgramCodec {
    public static final String FORMAT = "stagecheck-program";
    public static final int VERSION = 1;

    private final JsonFactory factory = new JsonFactory();

    // ------------------------------------------------------------------ reading

    /** Decodes a program from its JSON tree; the first format error is thrown. */
    public Program read(JNode root) throws JsonFormatException {
        return new ProgramDecoder().program(root);
    }

    public Program read(String json) throws JsonFormatException {
        return read(new JsonReader().read(json));
    }

    // ------------------------------------------------------------------ writing

    /** The canonical bytes of {@code program}: UTF-8, fixed order, final newline. */
    public byte[] write(Program program) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        writeTo(out, program);
        return out.toByteArray();
    }

    /**
     * Writes the canonical bytes of {@code program} to {@code out}, which stays open: a large
     * program goes to a file without its whole text in memory at once ({@link #write(Program)}
     * holds it twice while it copies).
     */
    public void writeTo(OutputStream out, Program program) {
        try (JsonGenerator g = factory.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.setPrettyPrinter(new CanonicalPrinter());
            writeProgram(g, program);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            out.write('\n');
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String writeString(Program program) {
        return new String(write(program), StandardCharsets.UTF_8);
    }

    /** {@code sha256:} and the hex SHA-256 of the canonical bytes: what golden manifests record. */
    public String hash(Program program) {
        // digested as they are written: a million-stage program's bytes are never held whole
        MessageDigest digest = sha256Digest();
        writeTo(new DigestOutputStream(OutputStream.nullOutputStream(), digest), program);
        return "sha256:" + HexFormat.of().formatHex(digest.digest());
    }

    public static String sha256(byte[] bytes) {
        return "sha256:" + HexFormat.of().formatHex(sha256Digest().digest(bytes));
    }

    private static MessageDigest sha256Digest() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private void writeProgram(JsonGenerator g, Program p) throws IOException {
        g.writeStartObject();
        g.writeStringField("format", FORMAT);
        g.writeNumberField("version", VERSION);
        g.writeStringField("name", p.name());
        g.writeObjectFieldStart("machine");
        g.writeNumberField("chips", p.machine().chips());
        g.writeNumberField("width", p.machine().width());
        g.writeNumberField("height", p.machine().height());
        g.writeEndObject();
        g.writeArrayFieldStart("params");
        for (Param prm : p.params()) {
            g.writeStartObject();
            g.writeStringField("name", prm.name());
            g.writeNumberField("min", prm.min());
            g.writeNumberField("max", prm.max());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("tensors");
        for (TensorDecl t : p.tensors()) {
            g.writeStartObject();
            g.writeStringField("name", t.name());
            g.writeStringField("dtype", t.dtype().jsonName());
            writeInts(g, "shape", t.shape().dims());
            g.writeNumberField("chip", t.chip());
            g.writeStringField("role", t.role().jsonName());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("buffers");
        for (BufferDecl b : p.buffers()) {
            g.writeStartObject();
            g.writeStringField("name", b.name());
            g.writeStringField("dtype", b.dtype().jsonName());
            writeInts(g, "shape", b.shape().dims());
            writeSite(g, "site", b.site());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("groups");
        for (Group gr : p.groups()) {
            g.writeStartObject();
            g.writeStringField("name", gr.name());
            g.writeNumberField("chip", gr.chip());
            g.writeObjectFieldStart("rect");
            g.writeNumberField("x", gr.rect().x());
            g.writeNumberField("y", gr.rect().y());
            g.writeNumberField("width", gr.rect().width());
            g.writeNumberField("height", gr.rect().height());
            g.writeEndObject();
            writeSite(g, "sender", gr.sender());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeArrayFieldStart("stages");
        for (Stage s : p.stages()) {
            writeStage(g, s);
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    private void writeStage(JsonGenerator g, Stage s) throws IOException {
        g.writeStartObject();
        g.writeStringField("id", s.id());
        writeSite(g, "site", s.site());
        writeStrings(g, "ins", s.ins());
        writeStrings(g, "outs", s.outs());
        g.writeObjectFieldStart("kind");
        g.writeStringField("type", s.kind().tag());
        switch (s.kind()) {
            case StageKind.Load l -> {
                g.writeStringField("tensor", l.tensor());
                writePattern(g, l.pattern());
                g.writeNumberField("numBlocks", l.numBlocks());
                if (l.multicast() != null) {
                    g.writeStringField("multicast", l.multicast());
                }
            }
            case StageKind.Store st -> {
                g.writeStringField("tensor", st.tensor());
                writePattern(g, st.pattern());
                g.writeArrayFieldStart("subBlocks");
                g.writeNumber(st.subRows());
                g.writeNumber(st.subCols());
                g.writeEndArray();
            }
            case StageKind.Recv r -> g.writeStringField("group", r.group());
            case StageKind.AllReduce a -> {
                g.writeStringField("pool", a.pool().jsonName());
                g.writeStringField("tensor", a.tensor());
                g.writeStringField("combine", Expr.print(a.combine().expr()));
            }
            case StageKind.Compute c -> writeOp(g, c.op());
            case StageKind.Scalar sc -> {
                g.writeArrayFieldStart("body");
                for (Expr e : sc.body().results()) {
                    g.writeString(Expr.print(e));
                }
                g.writeEndArray();
            }
        }
        g.writeEndObject();
        g.writeEndObject();
    }

    private void writeOp(JsonGenerator g, ComputeOp op) throws IOException {
        g.writeObjectFieldStart("op");
        switch (op) {
            case ComputeOp.Generic ge -> {
                g.writeStringField("type", "generic");
                g.writeStringField("expr", Expr.print(ge.expr()));
            }
            case ComputeOp.MatMul m -> {
                g.writeStringField("type", "matmul");
                g.writeBooleanField("transposeA", m.transposeA());
                g.writeBooleanField("transposeB", m.transposeB());
                if (m.bias() != null) {
                    g.writeStringField("bias", m.bias());
                }
                if (m.spill() != null) {
                    g.writeStringField("spill", m.spill());
                }
            }
            case ComputeOp.Reduce r -> {
                g.writeStringField("type", "reduce");
                g.writeStringField("fn", r.fn().jsonName());
                g.writeNumberField("axis", r.axis());
            }
            case ComputeOp.Reshape r -> g.writeStringField("type", "reshape");
            case ComputeOp.Transpose t -> {
                g.writeStringField("type", "transpose");
                writeInts(g, "perm", t.perm());
            }
            case ComputeOp.Slice sl -> {
                g.writeStringField("type", "slice");
                writeInts(g, "starts", sl.starts());
            }
            case ComputeOp.Concat c -> {
                g.writeStringField("type", "concat");
                g.writeNumberField("axis", c.axis());
            }
        }
        g.writeEndObject();
    }

    private void writePattern(JsonGenerator g, AccessPattern p) throws IOException {
        g.writeObjectFieldStart("pattern");
        switch (p) {
            case AccessPattern.Block b -> {
                g.writeStringField("type", "block");
                writeOffsets(g, b.origin());
                writeInts(g, "block", b.block().dims());
            }
            case AccessPattern.Streamed s -> {
                g.writeStringField("type", "streamed");
                writeOffsets(g, s.origin());
                writeInts(g, "block", s.block().dims());
                g.writeNumberField("axis", s.axis());
                g.writeNumberField("stride", s.stride());
            }
            case AccessPattern.Indirect i -> {
                g.writeStringField("type", "indirect");
                g.writeStringField("indexBuffer", i.indexBuffer());
                writeOffsets(g, i.origin());
                writeInts(g, "block", i.block().dims());
            }
        }
        g.writeEndObject();
    }

    private static void writeOffsets(JsonGenerator g, List<Offset> origin) throws IOException {
        g.writeArrayFieldStart("origin");
        for (Offset o : origin) {
            if (o.isConstant()) {
                g.writeNumber(o.constant());
            } else {
                g.writeString(o.toString());
            }
        }
        g.writeEndArray();
    }

    private static void writeInts(JsonGenerator g, String name, List<Integer> values) throws IOException {
        g.writeArrayFieldStart(name);
        for (int v : values) {
            g.writeNumber(v);
        }
        g.writeEndArray();
    }

    private static void writeStrings(JsonGenerator g, String name, List<String> values) throws IOException {
        g.writeArrayFieldStart(name);
        for (String v : values) {
            g.writeString(v);
        }
        g.writeEndArray();
    }

    private static void writeSite(JsonGenerator g, String name, Site s) throws IOException {
        g.writeArrayFieldStart(name);
        g.writeNumber(s.chip());
        g.writeNumber(s.x());
        g.writeNumber(s.y());
        g.writeEndArray();
    }
}
