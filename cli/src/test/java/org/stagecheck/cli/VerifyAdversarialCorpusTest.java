package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;

/**
 * {@code stagecheck verify} on the verifier's adversarial corpus (docs/verifier.md, "Adversarial
 * corpus") and on hostile certificates and parents: text and {@code --json}, with and without
 * {@code --unsplit}, give the library's verdict and codes, exit 0 when it holds, 1 when not, 2 on
 * bad input, one JSON document on every outcome and never a stack trace.
 */
@Tag("slow")
class VerifyAdversarialCorpusTest {
    private static final Path CORPUS = Path.of("..", "verifier", "src", "test", "resources", "adversarial");
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

    @TempDir
    Path tmp;

    static Stream<String> cases() throws Exception {
        try (Stream<Path> s = Files.walk(CORPUS)) {
            List<String> names = s.filter(p -> Files.exists(p.resolve("program.json"))).map(p -> CORPUS.relativize(p).toString()).sorted().toList();
            assertThat(names).hasSizeGreaterThan(70);
            return names.stream();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void the_command_gives_the_checkers_verdict_in_text_and_json_with_and_without_the_parent(String name) throws Exception {
        Path dir = CORPUS.resolve(name);
        var program = new ProgramCodec().read(Files.readString(dir.resolve("program.json")));
        var cert = new CertificateCodec().read(Files.readString(dir.resolve("certificate.json")));
        var parent = new ProgramCodec().read(Files.readString(dir.resolve("parent.json")));
        for (boolean withParent : new boolean[] {false, true}) {
            VerifyReport expected = new Verifier().verify(program, cert, withParent ? Parent.unsplit(parent) : Parent.none());
            List<String> args = new ArrayList<>(List.of("verify", dir.resolve("program.json").toString(), "--cert", dir.resolve("certificate.json").toString()));
            if (withParent) {
                args.addAll(List.of("--unsplit", dir.resolve("parent.json").toString()));
            }
            CliRunner text = CliRunner.run(args.toArray(String[]::new));
            args.add("--json");
            CliRunner json = CliRunner.run(args.toArray(String[]::new));
            int exit = expected.holds() ? 0 : 1;
            String what = name + (withParent ? " with its parent" : " alone");
            assertThat(text.exit()).as(what + "\n" + text.out() + text.err()).isEqualTo(exit);
            assertThat(json.exit()).as(what).isEqualTo(exit);
            assertThat(text.out() + text.err()).as(what).doesNotContain("Exception").doesNotContain("\tat ");
            expected.codes().forEach(code -> assertThat(text.out()).as(what).contains(code));
            JsonNode doc = oneDocument(json.out());
            assertThat(doc.get("exitCode").asInt()).as(what).isEqualTo(exit);
            assertThat(doc.get("holds").asBoolean()).as(what).isEqualTo(expected.holds());
            TreeSet<String> codes = new TreeSet<>();
            doc.get("diagnostics").forEach(d -> codes.add(d.get("code").asText()));
            assertThat(codes).as(what).isEqualTo(new TreeSet<>(expected.codes()));
        }
    }

    @Test
    void hostile_certificates_and_parents_are_bad_input_or_findings_never_a_crash() throws Exception {
        Path base = CORPUS.resolve("right/base");
        Path program = base.resolve("program.json");
        Path cert = base.resolve("certificate.json");
        Path parent = base.resolve("parent.json");
        String certText = Files.readString(cert);
        Path garbled = write("garbled.json", certText.substring(0, certText.length() / 2));
        Path deep = write("deep.json", "[".repeat(100_000) + "]".repeat(100_000));
        Path wrongType = write("wrong-type.json", certText.replaceFirst("\"start\": 0", "\"start\": \"zero\""));
        Path negative = write("negative.json", certText.replaceFirst("\"start\": 0", "\"start\": -1"));
        Path huge = write("huge-axis.json", certText.replaceFirst("\"axis\": 0", "\"axis\": 4294967296"));
        Path binary = write("binary.json", "\u00ff\u00fe\u0000");
        Path empty = write("empty.json", "");
        Path remapNowhere = write("remap-nowhere.json", certText.replaceFirst("\"shards\"",
                "\"remap\": {\"parentHash\": \"sha256:00\", \"map\": {\"x.0\": \"no-such-buffer\"}}, \"shards\""));
        Path parentWithoutY = write("parent-without-y.json", Files.readString(parent)
                .replace(",\n  {\"name\": \"y\", \"dtype\": \"f32\", \"shape\": [2, 8], \"chip\": 0, \"role\": \"output\"}", "")
                .replace(",\n  {\"id\": \"sy\", \"site\": [0, 0, 0], \"ins\": [\"y\"], \"outs\": [], \"kind\": {\"type\": \"Store\", \"tensor\": \"y\", \"pattern\": {\"type\": \"block\", \"origin\": [0, 0], \"block\": [2, 8]}, \"subBlocks\": [2, 8]}}", ""));
        Path otherProgram = Path.of("..", "examples", "tp2-matmul-allreduce.json");
        record Hostile(int exit, String code, String... args) {}
        List<Hostile> rows = List.of(
                new Hostile(2, null, "verify", program.toString(), "--cert", garbled.toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", deep.toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", wrongType.toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", negative.toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", huge.toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", binary.toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", empty.toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", program.toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", tmp.resolve("missing.json").toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", cert.toString(), "--unsplit", tmp.resolve("missing.json").toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", cert.toString(), "--unsplit", cert.toString()),
                new Hostile(2, null, "verify", program.toString(), "--cert", cert.toString(), "--unsplit", garbled.toString()),
                // a certificate for another program: its shards name tensors this program does not have
                new Hostile(1, "SHARD_DECL_UNKNOWN_TENSOR", "verify", otherProgram.toString(), "--cert", cert.toString()),
                new Hostile(1, "SHARD_DECL_UNKNOWN_TENSOR", "verify", otherProgram.toString(), "--cert", cert.toString(), "--unsplit", parent.toString()),
                // a remap to a buffer this program does not declare, with no parent to compare
                new Hostile(1, "REMAP_DECLS_DIFFER", "verify", program.toString(), "--cert", remapNowhere.toString()),
                // a parent whose tensors are not the split's: y has no unsplit counterpart
                new Hostile(1, "LOGICAL_OUTPUT_DIFFERS", "verify", program.toString(), "--cert", cert.toString(), "--unsplit", parentWithoutY.toString()),
                // another program given as the one this was remapped from: it is not this one renamed
                new Hostile(1, "REMAP_DECLS_DIFFER", "verify", program.toString(), "--cert", cert.toString(), "--remapped-from", otherProgram.toString()));
        for (Hostile h : rows) {
            String what = String.join(" ", h.args());
            CliRunner text = CliRunner.run(h.args());
            List<String> withJson = new ArrayList<>(List.of(h.args()));
            withJson.add("--json");
            CliRunner json = CliRunner.run(withJson.toArray(String[]::new));
            assertThat(text.exit()).as(what + "\n" + text.out() + text.err()).isEqualTo(h.exit());
            assertThat(json.exit()).as(what).isEqualTo(h.exit());
            assertThat(text.out() + text.err() + json.out() + json.err()).as(what).doesNotContain("Exception").doesNotContain("\tat ");
            JsonNode doc = oneDocument(json.out());
            assertThat(doc.get("exitCode").asInt()).as(what).isEqualTo(h.exit());
            if (h.code() != null) {
                assertThat(text.out()).as(what).contains(h.code());
                assertThat(doc.toString()).as(what).contains("\"code\":\"" + h.code() + "\"");
            } else {
                assertThat(doc.get("error").asText()).as(what).isNotBlank();
            }
        }
    }

    private Path write(String name, String text) throws Exception {
        Path f = tmp.resolve(name);
        Files.writeString(f, text, java.nio.charset.StandardCharsets.ISO_8859_1);
        return f;
    }

    /** The output is exactly one JSON object (nothing before or after it). */
    private static JsonNode oneDocument(String out) throws Exception {
        try (JsonParser p = JSON.createParser(out)) {
            JsonNode doc = JSON.readTree(p);
            assertThat(doc.isObject()).as(out).isTrue();
            assertThat(p.nextToken()).as("a second document after the first in: " + out).isNull();
            return doc;
        }
    }
}
