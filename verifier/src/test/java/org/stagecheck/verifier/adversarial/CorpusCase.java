package org.stagecheck.verifier.adversarial;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * One case of the adversarial corpus on disk ({@code src/test/resources/adversarial/NAME/}): the
 * split program, its certificate, and the unsplit parent it claims to compute (absent when the
 * case has none). The files are written by {@code generate.py} beside them.
 */
public record CorpusCase(String name, Path dir, Program program, Certificate certificate, Program parent) {
    static final Path ROOT = Path.of("src", "test", "resources", "adversarial");

    static CorpusCase load(String name) throws IOException, JsonFormatException {
        Path dir = ROOT.resolve(name);
        Program program = new ProgramCodec().read(Files.readString(dir.resolve("program.json")));
        Certificate cert = new CertificateCodec().read(Files.readString(dir.resolve("certificate.json")));
        Path parentFile = dir.resolve("parent.json");
        Program parent = Files.exists(parentFile) ? new ProgramCodec().read(Files.readString(parentFile)) : null;
        return new CorpusCase(name, dir, program, cert, parent);
    }
}
