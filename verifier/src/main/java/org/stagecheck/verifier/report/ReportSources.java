package org.stagecheck.verifier.report;

import java.util.Objects;
import org.stagecheck.spec.json.CertificateFile;
import org.stagecheck.spec.json.ProgramFile;
import org.stagecheck.spec.json.SourceLocator;
import org.stagecheck.spec.json.SourcePosition;

/**
 * The files a verification read, to place its diagnostics: a field starting {@code cert:} (a
 * pointer into the certificate, as the shard and remap checks write them) lies in the
 * certificate's file, every other field in the program's.
 *
 * <pre>{@code
 * ProgramFile program = ProgramFile.read(Path.of("split.json"));
 * CertificateFile cert = CertificateFile.read(Path.of("split.cert.json"));
 * VerifyReport report = new Verifier().verify(program.program(), cert.certificate(), Parent.none());
 * byte[] json = new ReportJson().write(report, ReportSources.of(program, cert));
 * }</pre>
 *
 * @param program     the program's file name, null when it has none
 * @param inProgram   places fields of the program
 * @param inCertificate places {@code cert:} fields (without the prefix)
 */
public record ReportSources(String program, SourceLocator inProgram, SourceLocator inCertificate) implements SourceLocator {
    /** The prefix of a diagnostic field that points into the certificate. */
    public static final String CERT_PREFIX = "cert:";

    /** No files: diagnostics carry no file, line or column. */
    public static final ReportSources NONE = new ReportSources(null, SourceLocator.NONE, SourceLocator.NONE);

    public ReportSources {
        Objects.requireNonNull(inProgram, "inProgram");
        Objects.requireNonNull(inCertificate, "inCertificate");
    }

    /** The program's and (null: none was read) the certificate's files. */
    public static ReportSources of(ProgramFile program, CertificateFile certificate) {
        return new ReportSources(program.file().toString(), program, certificate == null ? program : certificate);
    }

    @Override
    public SourcePosition locate(String field) {
        return field != null && field.startsWith(CERT_PREFIX)
                ? inCertificate.locate(field.substring(CERT_PREFIX.length()))
                : inProgram.locate(field);
    }
}
