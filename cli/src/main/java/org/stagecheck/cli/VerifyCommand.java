package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.verifier.ObligationResult;
import org.stagecheck.verifier.Verifier;
import org.stagecheck.verifier.VerifyReport;
import org.stagecheck.verifier.report.SarifWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck verify}: check a program's certificate. */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Check the obligations of a program and its certificate: well-formedness, UnreducedShard,",
                "buffer remap, multicast and ordering. Trusts no claim of the certificate. --parent on fewer chips",
                "is the unsplit program (the split must compute it); on as many chips, the program it was remapped from.",
                "Exit 0 when every obligation is discharged, 1 with the findings when not, 2 on bad input."})
final class VerifyCommand implements Callable<Integer> {
    private static final String CERT_PREFIX = "cert:";

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PROGRAM", description = "program file (.json)")
    Path programFile;

    @Option(names = "--cert", paramLabel = "CERT", description = "the certificate (.json)")
    Path certFile;

    @Option(names = "--parent", paramLabel = "PARENT",
            description = "the program this one came from: its unsplit program (on fewer chips; every output is compared with it) or the program it was remapped from")
    Path parentFile;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Option(names = "--sarif", paramLabel = "FILE", description = "also write the findings as SARIF 2.1.0")
    Path sarif;

    @Override
    public Integer call() {
        try {
            return verify();
        } catch (BadInputException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage());
        }
    }

    private int verify() throws BadInputException {
        PrintWriter out = spec.commandLine().getOut();
        // the output is checked before the work: a bad --sarif path fails fast, leaving nothing
        OutputPaths.OutputFile sarifOut = sarif == null ? null : OutputPaths.file("--sarif", sarif);
        if (sarifOut != null) {
            InputOverlap.refuse(sarifOut, java.util.Arrays.asList(programFile, certFile, parentFile), List.of());
        }
        LoadedProgram lp = LoadedProgram.read(programFile);
        LoadedProgram parent = parentFile == null ? null : LoadedProgram.read(parentFile);
        JNode certTree = certFile == null ? null : readJson(certFile);
        Certificate cert = certTree == null ? null : readCertificate(certFile, certTree);
        // The verifier points into the certificate with "cert:" pointers, into the program otherwise.
        Locator locator = field -> field != null && field.startsWith(CERT_PREFIX) && certTree != null
                ? new Locator.Where(certFile.toString(), JNode.at(certTree, field.substring(CERT_PREFIX.length())).pos())
                : lp.where(field);
        // The verifier decides every obligation, well-formedness included; this command only renders.
        VerifyReport report = new Verifier().verify(lp.program(), cert, parent == null ? null : parent.program());
        List<ObligationResult> obligations = report.obligations();
        List<Diagnostic> all = report.diagnostics();
        boolean holds = report.holds();
        if (sarifOut != null) {
            sarifOut.write(new SarifWriter().write(report, programFile.toString()));
        }
        if (json) {
            Json.print(out, g -> {
                g.writeStartObject();
                g.writeStringField("command", "verify");
                g.writeStringField("program", programFile.toString());
                g.writeBooleanField("holds", holds);
                g.writeStringField("status", holds ? "verified" : "not-verified");
                g.writeNumberField("exitCode", holds ? ExitCode.OK : ExitCode.CHECK_FAILED);
                g.writeArrayFieldStart("obligations");
                for (ObligationResult o : obligations) {
                    g.writeStartObject();
                    g.writeStringField("obligation", o.obligation().jsonName());
                    g.writeStringField("status", status(o));
                    g.writeBooleanField("claimed", o.claimed());
                    g.writeNumberField("findings", o.findings());
                    g.writeStringField("note", o.note());
                    g.writeEndObject();
                }
                g.writeEndArray();
                DiagnosticOutput.jsonList(g, "diagnostics", all, locator);
                g.writeEndObject();
            });
        } else {
            for (Diagnostic d : all) {
                out.println(DiagnosticOutput.text(d, locator));
            }
            for (ObligationResult o : obligations) {
                out.printf(Locale.ROOT, "%-16s %s%s%n", o.obligation().jsonName(), status(o),
                        o.findings() > 0 ? ", " + o.findings() + " finding(s)" + (o.claimed() ? " (the certificate claimed it holds)" : "") : "");
            }
            out.println(holds ? programFile + ": verified" : programFile + ": NOT verified, " + all.size() + " finding(s)");
            out.flush();
        }
        return holds ? ExitCode.OK : ExitCode.CHECK_FAILED;
    }

    private static String status(ObligationResult o) {
        return o.status().name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static JNode readJson(Path file) throws BadInputException {
        try {
            return new JsonReader().read(file);
        } catch (JsonFormatException e) {
            throw BadInputException.of(file, e);
        }
    }

    private static Certificate readCertificate(Path file, JNode tree) throws BadInputException {
        try {
            return new CertificateCodec().read(tree);
        } catch (JsonFormatException e) {
            throw BadInputException.of(file, e);
        }
    }
}
