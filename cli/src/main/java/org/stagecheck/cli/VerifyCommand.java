package org.stagecheck.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.stagecheck.api.LoadedProgram;
import org.stagecheck.api.PlacedDiagnostic;
import org.stagecheck.api.Verification;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.CertificateFile;
import org.stagecheck.verifier.ObligationResult;
import org.stagecheck.verifier.Parent;
import org.stagecheck.verifier.ParentRequirement;
import org.stagecheck.verifier.report.SarifWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck verify}: check a program's certificate; the verifier decides, this command renders. */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Check the obligations of a program and its certificate: well-formedness, UnreducedShard,",
                "buffer remap, multicast and ordering. Trusts no claim of the certificate. --unsplit names the program before",
                "splitting (the split must compute it), --remapped-from the program this one renames; nothing is guessed.",
                "Exit 0 when every obligation is discharged, 1 with the findings when not, 2 on bad input."})
final class VerifyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PROGRAM", description = "program file (.json)")
    Path programFile;

    @Option(names = "--cert", paramLabel = "CERT", description = "the certificate (.json)")
    Path certFile;

    @Option(names = "--unsplit", paramLabel = "PARENT",
            description = "the program before splitting: every output and state tensor must hold what PARENT's tensor of that logical name holds")
    Path unsplitFile;

    @Option(names = "--remapped-from", paramLabel = "PARENT",
            description = "the program this one is, its buffers renamed by the certificate's remap (the identity when it has none)")
    Path remappedFromFile;

    /** The former option, whose meaning was guessed from chip counts: refused with a sentence naming the two that replace it. */
    @Option(names = "--parent", paramLabel = "PARENT", hidden = true)
    Path formerParent;

    /** The former option that said what --parent was: refused likewise. */
    @Option(names = "--parent-kind", paramLabel = "KIND", hidden = true)
    String formerParentKind;

    @Option(names = "--json", description = "print the verification report (docs/verifier.md, \"JSON report\") instead of text")
    boolean json;

    @Option(names = "--sarif", paramLabel = "FILE", description = "also write the findings as SARIF 2.1.0")
    Path sarif;

    @Option(names = "--junit", paramLabel = "FILE", description = "also write a JUnit XML report: each obligation a test, failed with its findings")
    Path junit;

    @Option(names = "--require-parent",
            description = "fail (exit 1, LOGICAL_PROGRAM_NOT_CHECKED) when the logical program was not checked: no --unsplit given (a --remapped-from parent counts for a one-chip program only)")
    boolean requireParent;

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
        if (formerParent != null || formerParentKind != null) {
            throw new BadInputException((formerParent != null ? "--parent" : "--parent-kind")
                    + " is no longer accepted: say what the parent is, --unsplit PARENT (the program before splitting) or --remapped-from PARENT"
                    + " (the program whose buffers the certificate's remap renames)");
        }
        if (unsplitFile != null && remappedFromFile != null) {
            throw new BadInputException("give one parent: --unsplit or --remapped-from, not both");
        }
        Path parentFile = unsplitFile != null ? unsplitFile : remappedFromFile;
        // the output is checked before the work: a bad --sarif path fails fast, leaving nothing
        OutputPaths.OutputFile sarifOut = sarif == null ? null : OutputPaths.file("--sarif", sarif);
        OutputPaths.OutputFile junitOut = junit == null ? null : OutputPaths.file("--junit", junit);
        for (OutputPaths.OutputFile report : java.util.Arrays.asList(sarifOut, junitOut)) {
            if (report != null) {
                InputOverlap.refuse(report, java.util.Arrays.asList(programFile, certFile, parentFile), List.of());
            }
        }
        InputOverlap.distinct(sarifOut, junitOut);
        Verification v;
        LoadedProgram lp;
        Parent parent;
        // a phase line each, then one every few seconds while it runs: a program of millions of stages takes a while
        try (var progress = ProgressLines.to(spec.commandLine().getErr(), "verify", json)) {
            progress.phase("reading " + programFile, 0);
            lp = Load.program(programFile);
            if (parentFile != null) {
                progress.phase("reading " + parentFile, 0);
            }
            Program parentProgram = parentFile == null ? null : Load.program(parentFile).program();
            if (certFile != null) {
                progress.phase("reading " + certFile, 0);
            }
            CertificateFile cert = certFile == null ? null : Load.certificate(certFile);
            parent = parentProgram == null ? Parent.none()
                    : unsplitFile != null ? Parent.unsplit(parentProgram) : Parent.remap(parentProgram);
            progress.phase(String.format(java.util.Locale.ROOT, "checking %,d stages on %d chip(s)%s", lp.program().stages().size(),
                    lp.program().machine().chips(), parentProgram == null ? "" : " against " + parentFile), 0);
            // The verifier decides every obligation, well-formedness included; this command only renders.
            v = cert == null ? lp.verify((Certificate) null, parent) : lp.verify(cert, parent);
        }
        if (requireParent) {
            v = new Verification(ParentRequirement.apply(v.report(), lp.program(), parent), v.sources());
        }
        if (sarifOut != null) {
            sarifOut.write(new SarifWriter().write(v.report(), programFile.toString()));
        }
        if (junitOut != null) {
            junitOut.write(JunitReports.verify(programFile, v).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
        if (json) {
            out.print(v.json());
            out.flush();
        } else {
            List<PlacedDiagnostic> all = v.diagnostics();
            for (PlacedDiagnostic d : all) {
                out.println(d.render());
            }
            for (ObligationResult o : v.report().obligations()) {
                out.printf(Locale.ROOT, "%-16s %s%s%n", o.obligation().jsonName(), o.status().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                        o.findings() > 0 ? ", " + o.findings() + " finding(s)" + (o.claimed() ? " (the certificate claimed it holds)" : "") : "");
            }
            out.println(v.holds() ? programFile + ": verified" + unchecked(lp.program(), parent)
                    : programFile + ": NOT verified, " + all.size() + " finding(s)");
            out.flush();
        }
        return v.holds() ? ExitCode.OK : ExitCode.CHECK_FAILED;
    }

    /**
     * What a holding verdict did not cover: a program on several chips checked without its unsplit
     * parent is proven consistent across its chips, not proven to compute the program it was split
     * from (a bias added on every chip passes), and the verdict says so on its own line's end.
     */
    private static String unchecked(Program program, Parent parent) {
        boolean split = program.machine().chips() > 1;
        return switch (parent) {
            case Parent.Unsplit _ -> "";
            case Parent.Remap _ -> split ? " (a remap of the --remapped-from program; the logical program was not checked against an unsplit one)" : "";
            case Parent.None _ -> split ? " (the chips agree; the logical program was NOT checked: give the unsplit program as --unsplit)" : "";
        };
    }
}
