package org.stagecheck.verifier;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.ProgramCodec;

/** No false alarms: every example program of the repository verifies, with its certificate when it has one. */
class ValidExamplesTest {

    @Test
    void every_example_verifies() throws Exception {
        Path dir = Path.of("..", "examples");
        List<Path> programs;
        try (Stream<Path> s = Files.list(dir)) {
            programs = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        assertThat(programs).isNotEmpty();
        for (Path p : programs) {
            Program program = new ProgramCodec().read(Files.readString(p));
            Path certPath = dir.resolve("certificates").resolve(p.getFileName());
            Certificate cert = Files.exists(certPath) ? new CertificateCodec().read(Files.readString(certPath)) : null;
            VerifyReport r = new Verifier().verify(program, cert, Parent.none());
            assertThat(r.diagnostics()).as(p.toString()).isEmpty();
            // a program is its own identity remap
            assertThat(new Verifier().verify(program, cert, Parent.remap(program)).diagnostics()).as(p + " against itself").isEmpty();
        }
    }

    @Test
    void the_tp2_example_loses_its_verdict_when_a_shard_is_dropped_from_the_reduce() throws IOException, Exception {
        Path dir = Path.of("..", "examples");
        Program program = new ProgramCodec().read(Files.readString(dir.resolve("tp2-matmul-allreduce.json")));
        Certificate cert = new CertificateCodec().read(Files.readString(dir.resolve("certificates/tp2-matmul-allreduce.json")));
        Certificate oneShard = new Certificate(cert.shards().subList(0, 1), null, cert.claims());
        // chip 1's weight is now (as far as the certificate says) a tensor of its own: its product completes
        // nothing and is no slice of w_o, so the sum is of different values
        assertThat(new Verifier().verify(program, oneShard, Parent.none()).codes()).containsExactly("ALLREDUCE_VIEW_MISMATCH");
    }

    @Test
    void a_one_chip_parent_of_a_one_chip_program_is_what_the_caller_says_it_is() throws Exception {
        Path chain = Path.of("..", "examples", "elementwise-chain.json");
        Program original = new ProgramCodec().read(Files.readString(chain));
        Program clampedHigher = new ProgramCodec().read(Files.readString(chain).replace("min(add(in0, in1), 4.0)", "min(add(in0, in1), 5.0)"));
        assertThat(new Verifier().verify(clampedHigher, null, Parent.none()).codes()).as("alone").isEmpty();
        // as its unsplit program: compared output by output, and y is clamped elsewhere
        assertThat(new Verifier().verify(clampedHigher, null, Parent.unsplit(original)).codes()).containsOnly("LOGICAL_OUTPUT_DIFFERS");
        assertThat(new Verifier().verify(original, null, Parent.unsplit(original)).obligations())
                .filteredOn(o -> o.obligation() == org.stagecheck.spec.cert.Obligation.UNREDUCED_SHARD).singleElement()
                .extracting(ObligationResult::note).asString().contains("compared with the unsplit parent's");
        // as the program it was remapped from: the stages must be the parent's, renamed
        assertThat(new Verifier().verify(clampedHigher, null, Parent.remap(original)).codes()).isNotEmpty().allMatch(c -> c.startsWith("REMAP_"));
    }
}
