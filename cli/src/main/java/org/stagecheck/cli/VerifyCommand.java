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
                "buffer remap, multicast and ordering. Trusts no claim of the certificate. --parent is the unsplit program",
                "(the split must compute it) or the program it was remapped from, as --parent-kind says.",
                "Exit 0 when every obligation is discharged, 1 with the findings when not, 2 on bad input."})
final class VerifyCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "PROGRAM", description = "program file (.json)")
    Path programFile;

    @Option(names = "--cert", paramLabel = "CERT", description = "the certificate (.json)")
    Path certFile;

    @Option(names = "--parent", paramLabel = "PARENT",
            description = "the program this one came from: its unsplit program (every output is compared with it) or the program it was remapped from")
    Path parentFile;

    @Option(names = "--parent-kind", paramLabel = "KIND", defaultValue = "auto",
            description = "what --parent is: unsplit, remap, or auto (the default: remap when the certificate has a remap; else unsplit when the parent runs on fewer chips or both run on one chip; else remap)")
    String parentKind;

    @Option(names = "--json", description = "print the verification report (docs/verifier.md, \"JSON report\") instead of text")
    boolean json;

    @Option(names = "--sarif", paramLabel = "FILE", description = "also write the findings as SARIF 2.1.0")
    Path sarif;

    @Option(names = "--junit", paramLabel = "FILE", description = "also write a JUnit XML report: each obligation a test, failed with its findings")
    Path junit;

    @Option(names = "--require-parent",
            description = "fail (exit 1, LOGICAL_PROGRAM_NOT_CHECKED) when the logical program was not checked: no unsplit program given as --parent")
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
        ParentKind kind = ParentKind.parse(parentKind);
        if (kind != ParentKind.AUTO && parentFile == null) {
            throw new BadInputException("--parent-kind " + parentKind + " goes with --parent");
        }
        // the output is checked before the work: a bad --sarif path fails fast, leaving nothing
        OutputPaths.OutputFile sarifOut = sarif == null ? null : OutputPaths.file("--sarif", sarif);
        OutputPaths.OutputFile junitOut = junit == null ? null : OutputPaths.file("--junit", junit);
        for (OutputPaths.OutputFile report : java.util.Arrays.asList(sarifOut, junitOut)) {
            if (report != null) {
                InputOverlap.refuse(report, java.util.Arrays.asList(programFile, certFile, parentFile), List.of());
            }
        }
        InputOverlap.distinct(sarifOut, junitOut);
        LoadedProgram lp = Load.program(programFile);
        Program parentProgram = parentFile == null ? null : Load.program(parentFile).program();
        CertificateFile cert = certFile == null ? null : Load.certificate(certFile);
        Parent parent = kind.parent(lp.program(), cert == null ? null : cert.certificate(), parentProgram);
        // The verifier decides every obligation, well-formedness included; this command only renders.
        Verification v = cert == null ? lp.verify((Certificate) null, parent) : lp.verify(cert, parent);
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
            case Parent.Remap _ -> split ? " (as a remap of --parent; the logical program was not checked against an unsplit one)" : "";
            case Parent.None _ -> split ? " (the chips agree; the logical program was NOT checked: give the unsplit program as --parent)" : "";
        };
    }

    /**
     * What {@code --parent} is. {@link #AUTO} keeps the command's meaning from before the choice
     * was explicit: a remap in the certificate makes it the remap parent; otherwise a parent on
     * fewer chips is the unsplit program, and so is a one-chip parent of a one-chip program (there
     * is nothing to remap it from but itself); any other parent is the remap parent.
     */
    enum ParentKind {
        AUTO, UNSPLIT, REMAP;

        static ParentKind parse(String text) throws BadInputException {
            return switch (text) {
                case "auto" -> AUTO;
                case "unsplit" -> UNSPLIT;
                case "remap" -> REMAP;
                default -> throw new BadInputException("--parent-kind must be unsplit, remap or auto, not '" + text + "'");
            };
        }

        Parent parent(Program program, Certificate certificate, Program parent) {
            if (parent == null) {
                return Parent.none();
            }
            return switch (this) {
                case UNSPLIT -> Parent.unsplit(parent);
                case REMAP -> Parent.remap(parent);
                case AUTO -> (certificate == null || certificate.remap() == null) && unsplitByChips(program, parent)
                        ? Parent.unsplit(parent) : Parent.remap(parent);
            };
        }

        private static boolean unsplitByChips(Program program, Program parent) {
            int chips = program.machine().chips();
            int parentChips = parent.machine().chips();
            return parentChips < chips || parentChips == 1 && chips == 1;
        }
    }
}
