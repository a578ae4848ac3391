package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.api.Stagecheck;
import org.stagecheck.verifier.Parent;

class VerifyCommandTest {
    private static final String PROGRAM = "../examples/tp2-matmul-allreduce.json";
    private static final String CERT = "../examples/certificates/tp2-matmul-allreduce.json";

    @TempDir
    Path tmp;

    @Test
    void theTensorParallelExampleVerifiesWithItsCertificate() {
        CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--unsplit", "../examples/unsplit/tp2-matmul-allreduce.json");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("unreduced-shard  discharged").endsWith(": verified" + System.lineSeparator());
    }

    @Test
    void withoutShardDeclarationsTheAllReduceSumsFullValues() {
        CliRunner r = CliRunner.run("verify", PROGRAM);
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).contains("REDUCE_OF_FULL stage #8 'allreduce' at /stages/8/ins/0 buffer 'partial.c0'");
    }

    @Test
    void aBiasAddedBeforeTheReduceIsFoundAndSarifIsWritten() throws IOException {
        // Move the bias add before the all-reduce: every chip adds the bias to its partial.
        String text = Files.readString(Path.of(PROGRAM))
                .replace("\"ins\": [\"partial.c0\", \"partial.c1\"]", "\"ins\": [\"y.c0\", \"y.c1\"]")
                .replace("\"ins\": [\"sum.c0\", \"bias.c0\"], \"outs\": [\"y.c0\"]", "\"ins\": [\"partial.c0\", \"bias.c0\"], \"outs\": [\"y.c0\"]")
                .replace("\"ins\": [\"sum.c1\", \"bias.c1\"], \"outs\": [\"y.c1\"]", "\"ins\": [\"partial.c1\", \"bias.c1\"], \"outs\": [\"y.c1\"]");
        Path f = tmp.resolve("bias-before-reduce.json");
        Files.writeString(f, text);
        Path sarif = tmp.resolve("out.sarif");
        CliRunner r = CliRunner.run("verify", f.toString(), "--cert", CERT, "--sarif", sarif.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("PARTIAL").contains("via #");
        assertThat(Files.readString(sarif)).contains("\"version\" : \"2.1.0\"").contains("\"results\"");
    }

    @Test
    void againstItsUnsplitProgramTheSplitIsComparedAndABiasAddedTwiceIsFound() throws IOException {
        String unsplit = "../examples/unsplit/tp2-matmul-allreduce.json";
        CliRunner ok = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--unsplit", unsplit, "--json");
        assertThat(ok.exit()).as(ok.out() + ok.err()).isZero();
        assertThat(ok.out()).contains("compared with the unsplit parent's");
        CliRunner alone = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--json");
        assertThat(alone.out()).contains("the logical program was NOT checked");
        // the text verdict says it too, on the verdict's own line: a split checked alone is not "verified" plainly
        assertThat(CliRunner.run("verify", PROGRAM, "--cert", CERT).out().lines().toList().getLast())
                .isEqualTo(PROGRAM + ": verified (the chips agree; the logical program was NOT checked: give the unsplit program as --unsplit)");
        assertThat(CliRunner.run("verify", PROGRAM, "--cert", CERT, "--unsplit", unsplit).out().lines().toList().getLast())
                .isEqualTo(PROGRAM + ": verified");
        // every chip adds the bias twice after the all-reduce: consistent, and x W + 2 b
        Path twice = tmp.resolve("bias-twice.json");
        Files.writeString(twice, Files.readString(Path.of(PROGRAM)).replace("\"expr\": \"add(in0, in1)\"", "\"expr\": \"add(add(in0, in1), in1)\""));
        CliRunner r = CliRunner.run("verify", twice.toString(), "--cert", CERT, "--unsplit", unsplit);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("LOGICAL_OUTPUT_DIFFERS").contains("summands the split adds: b_o");
        assertThat(CliRunner.run("verify", twice.toString(), "--cert", CERT).exit()).isZero();
    }

    @Test
    void aCollidingRemapIsPlacedInTheCertificateFile() throws IOException {
        Path child = tmp.resolve("child.json");
        Files.writeString(child, Files.readString(Path.of(PROGRAM)).replace("\"w.c0\"", "\"W0\""));
        Path cert = tmp.resolve("child.cert.json");
        Files.writeString(cert, Files.readString(Path.of(CERT)).replace("\"claims\"",
                "\"remap\": {\"map\": {\"w.c0\": \"W0\", \"w.c1\": \"W0\"}},\n  \"claims\""));
        CliRunner r = CliRunner.run("verify", child.toString(), "--cert", cert.toString(), "--remapped-from", PROGRAM);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).containsPattern("child\\.cert\\.json:\\d+:\\d+: REMAP_NOT_INJECTIVE at cert:/remap/map/w.c1 buffer 'W0'");
    }

    @Test
    void aMalformedCertificateIsBadInput() throws IOException {
        Path f = tmp.resolve("cert.json");
        Files.writeString(f, "{\"format\": \"stagecheck-certificate\", \"version\": 1, \"shards\": [{\"tensor\": 3}]}");
        CliRunner r = CliRunner.run("verify", PROGRAM, "--cert", f.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("cert.json:1:").contains("expected a string, found a number");
    }

    @Test
    void theJsonDocumentIsExactlyTheLibrarysReport() throws Exception {
        String unsplit = "../examples/unsplit/tp2-matmul-allreduce.json";
        Path twice = tmp.resolve("bias-twice.json");
        Files.writeString(twice, Files.readString(Path.of(PROGRAM)).replace("\"expr\": \"add(in0, in1)\"", "\"expr\": \"add(add(in0, in1), in1)\""));
        for (String program : new String[] {PROGRAM, twice.toString()}) {
            CliRunner r = CliRunner.run("verify", program, "--cert", CERT, "--unsplit", unsplit, "--json");
            String library = Stagecheck.load(Path.of(program))
                    .verify(Stagecheck.loadCertificate(Path.of(CERT)), Parent.unsplit(Stagecheck.load(Path.of(unsplit)).program())).json();
            assertThat(r.out()).as(program).isEqualTo(library);
        }
        CliRunner failing = CliRunner.run("verify", twice.toString(), "--cert", CERT, "--unsplit", unsplit, "--json");
        assertThat(failing.exit()).isEqualTo(1);
        assertThat(failing.out()).contains("\"format\" : \"stagecheck-verify-report\"").contains("\"exitCode\" : 1")
                .contains("\"file\" : \"" + twice + "\"").contains("\"line\" : ");
    }

    @Test
    void theParentIsNamedForWhatItIsNeverGuessed() {
        String chain = "../examples/elementwise-chain.json";
        // one chip against one chip: --unsplit compares the outputs, --remapped-from runs the remap proof
        CliRunner unsplit = CliRunner.run("verify", chain, "--unsplit", chain, "--json");
        assertThat(unsplit.exit()).as(unsplit.out() + unsplit.err()).isZero();
        assertThat(unsplit.out()).contains("compared with the unsplit parent's").doesNotContain("compared with the parent under the identity map");
        CliRunner remap = CliRunner.run("verify", chain, "--remapped-from", chain, "--json");
        assertThat(remap.exit()).isZero();
        assertThat(remap.out()).contains("compared with the parent under the identity map").doesNotContain("compared with the unsplit parent's");
        // either satisfies --require-parent for a one-chip program (it is its own logical program)
        assertThat(CliRunner.run("verify", chain, "--remapped-from", chain, "--require-parent").exit()).isZero();
        assertThat(CliRunner.run("verify", chain, "--unsplit", chain, "--require-parent").exit()).isZero();
        // a split against its unsplit program named as the program it was remapped from: not the same program renamed
        CliRunner wrongKind = CliRunner.run("verify", PROGRAM, "--cert", CERT, "--remapped-from", "../examples/unsplit/tp2-matmul-allreduce.json");
        assertThat(wrongKind.exit()).isEqualTo(1);
        assertThat(wrongKind.out()).contains("REMAP_");
        CliRunner both = CliRunner.run("verify", chain, "--unsplit", chain, "--remapped-from", chain);
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err()).contains("give one parent: --unsplit or --remapped-from, not both");
    }

    @Test
    void theFormerParentOptionsAreRefusedNamingTheirReplacements() {
        String chain = "../examples/elementwise-chain.json";
        for (String[] args : List.of(new String[] {"verify", chain, "--parent", chain}, new String[] {"verify", chain, "--parent", chain, "--parent-kind", "remap"},
                new String[] {"verify", chain, "--parent-kind", "unsplit"})) {
            CliRunner r = CliRunner.run(args);
            assertThat(r.exit()).as(String.join(" ", args)).isEqualTo(2);
            assertThat(r.err()).contains("is no longer accepted").contains("--unsplit PARENT").contains("--remapped-from PARENT");
            assertThat(r.out() + r.err()).doesNotContain("Exception");
        }
    }
}
