package org.stagecheck.verifier.moe;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * An edit of an authored program and its certificate as JSON documents, the way a hand edit of
 * {@code program.json} and {@code certificate.json} is made: stages are found by id, so the
 * edits read like the mutations they are (docs/verifier.md, "Sums over an index").
 */
final class MoeEdit {
    private static final ObjectMapper JSON = new ObjectMapper();
    final ObjectNode program;
    final ObjectNode certificate;

    MoeEdit(Program p, Certificate c) throws Exception {
        this.program = (ObjectNode) JSON.readTree(new ProgramCodec().write(p));
        // a planted edit changes the program: the certificate's program hash would only ever say that,
        // so it is dropped, as a hand edit that keeps the certificate's claims about the stages would
        this.certificate = (ObjectNode) JSON.readTree(new CertificateCodec().write(c.withProgramHash(null)));
    }

    Program program() throws Exception {
        return new ProgramCodec().read(new String(JSON.writeValueAsBytes(program), StandardCharsets.UTF_8));
    }

    Certificate certificate() throws Exception {
        return new CertificateCodec().read(new String(JSON.writeValueAsBytes(certificate), StandardCharsets.UTF_8));
    }

    ArrayNode stages() {
        return (ArrayNode) program.get("stages");
    }

    int indexOf(String id) {
        for (int i = 0; i < stages().size(); i++) {
            if (stages().get(i).get("id").asText().equals(id)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no stage " + id);
    }

    ObjectNode stage(String id) {
        return (ObjectNode) stages().get(indexOf(id));
    }

    /** A Generic stage's expression. */
    MoeEdit expr(String id, String expr) {
        ((ObjectNode) stage(id).get("kind").get("op")).put("expr", expr);
        return this;
    }

    /** A Scalar stage's one result. */
    MoeEdit body(String id, String expr) {
        ArrayNode b = JSON.createArrayNode().add(expr);
        ((ObjectNode) stage(id).get("kind")).set("body", b);
        return this;
    }

    /** Port {@code port} of a stage reads {@code buffer}. */
    MoeEdit in(String id, int port, String buffer) {
        ((ArrayNode) stage(id).get("ins")).set(port, buffer);
        return this;
    }

    MoeEdit addIn(String id, String buffer) {
        ((ArrayNode) stage(id).get("ins")).add(buffer);
        return this;
    }

    /** Every load of tensor {@code from} loads {@code to} instead. */
    MoeEdit loadsOf(String from, String to) {
        for (JsonNode s : stages()) {
            JsonNode k = s.get("kind");
            if (k.get("type").asText().equals("Load") && k.get("tensor").asText().equals(from)) {
                ((ObjectNode) k).put("tensor", to);
            }
        }
        return this;
    }

    MoeEdit remove(String id) {
        stages().remove(indexOf(id));
        return this;
    }

    /** A copy of stage {@code id} right after it, renamed, reading {@code ins} and writing {@code outs} (declared like the original's). */
    MoeEdit repeat(String id, String newId, java.util.List<String> ins, java.util.List<String> outs) {
        int at = indexOf(id);
        ObjectNode copy = stages().get(at).deepCopy();
        copy.put("id", newId);
        ArrayNode oldOuts = (ArrayNode) copy.get("outs");
        ArrayNode buffers = (ArrayNode) program.get("buffers");
        for (int k = 0; k < outs.size(); k++) {
            String old = oldOuts.get(k).asText();
            for (JsonNode b : buffers) {
                if (b.get("name").asText().equals(old)) {
                    buffers.add(((ObjectNode) b.deepCopy()).put("name", outs.get(k)));
                    break;
                }
            }
        }
        copy.set("ins", JSON.valueToTree(ins));
        copy.set("outs", JSON.valueToTree(outs));
        stages().insert(at + 1, copy);
        return this;
    }

    /** The certificate's declaration of {@code tensor} moved by {@code by} along its axis. */
    MoeEdit shiftDeclaration(String tensor, long by) {
        for (JsonNode d : certificate.get("shards")) {
            if (d.get("tensor").asText().equals(tensor)) {
                ((ObjectNode) d).put("start", d.get("start").asLong() + by).put("end", d.get("end").asLong() + by);
            }
        }
        return this;
    }
}
