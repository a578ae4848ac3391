package org.stagecheck.api;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.report.ReportJson;
import org.stagecheck.verifier.report.ReportSources;

/**
 * The verifier's report on a program and its certificate (brief, "Certificates";
 * docs/verifier.md), with the files it read so that every finding is placed: a field of the
 * certificate in the certificate's file, any other in the program's.
 *
 * <pre>{@code
 * LoadedProgram split = Stagecheck.load(Path.of("examples/tp2-matmul-allreduce.json"));
 * CertificateFile cert = Stagecheck.loadCertificate(Path.of("examples/certificates/tp2-matmul-allreduce.json"));
 * LoadedProgram unsplit = Stagecheck.load(Path.of("examples/unsplit/tp2-matmul-allreduce.json"));
 * Verification v = split.verify(cert, Parent.unsplit(unsplit.program()));
 * if (!v.holds()) {
 *     v.diagnostics().forEach(d -> System.err.println(d.render()));
 * }
 * String json = v.json(); // exactly what stagecheck verify --json prints
 * }</pre>
 *
 * @param report  the verdict: every finding and one result per obligation
 * @param sources the files read, to place the findings
 */
public record Verification(VerifyReport report, ReportSources sources) {
    public Verification {
        Objects.requireNonNull(report, "report");
        Objects.requireNonNull(sources, "sources");
    }

    /** Whether every obligation is discharged. */
    public boolean holds() {
        return report.holds();
    }

    /** Every finding, placed in its file. */
    public List<PlacedDiagnostic> diagnostics() {
        return report.diagnostics().stream().map(d -> new PlacedDiagnostic(d, sources.locate(d.field()))).toList();
    }

    /** The diagnostics' codes, in order. */
    public List<String> codes() {
        return report.codes();
    }

    /** The report as the one verification document (docs/verifier.md, "JSON report"). */
    public String json() {
        return new String(new ReportJson().write(report, sources), StandardCharsets.UTF_8);
    }
}
