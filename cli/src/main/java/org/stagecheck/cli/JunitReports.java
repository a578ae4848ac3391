package org.stagecheck.cli;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.stagecheck.api.PlacedDiagnostic;
import org.stagecheck.api.Verification;
import org.stagecheck.golden.report.JunitXml;
import org.stagecheck.spec.cert.Obligation;
import org.stagecheck.verifier.Code;
import org.stagecheck.verifier.ObligationResult;

/**
 * The JUnit XML of {@code validate --junit} and {@code verify --junit}, written by golden's
 * {@link JunitXml} (the conventions of {@code golden check --junit}): for {@code validate} one test
 * per program file with one failure per finding (bad input an error); for {@code verify} one test
 * per obligation, its failure holding the obligation's findings.
 */
final class JunitReports {
    private JunitReports() {
    }

    /** One file's validation: its findings, or the reason it could not be read (then {@code findings} is ignored). */
    record Validated(Path file, List<PlacedDiagnostic> findings, String badInput, Duration time) {}

    static String validate(List<Validated> files) {
        List<JunitXml.TestCase> cases = new ArrayList<>();
        for (Validated v : files) {
            String name = v.file().toString();
            if (v.badInput() != null) {
                cases.add(JunitXml.TestCase.error("validate", name, v.time(), new JunitXml.Finding("BAD_INPUT", v.badInput(), v.badInput())));
            } else if (v.findings().isEmpty()) {
                cases.add(JunitXml.TestCase.passed("validate", name, v.time()));
            } else {
                cases.add(JunitXml.TestCase.failed("validate", name, v.time(), v.findings().stream().map(JunitReports::finding).toList()));
            }
        }
        return JunitXml.of("stagecheck validate", cases);
    }

    static String verify(Path program, Verification v) {
        List<JunitXml.TestCase> cases = new ArrayList<>();
        for (ObligationResult o : v.report().obligations()) {
            String name = o.obligation().jsonName();
            List<PlacedDiagnostic> mine = v.diagnostics().stream().filter(d -> obligationOf(d) == o.obligation()).toList();
            cases.add(switch (o.status()) {
                case DISCHARGED -> JunitXml.TestCase.passed(program.toString(), name, o.elapsed());
                case NOT_CHECKED -> JunitXml.TestCase.skipped(program.toString(), name, o.note());
                case VIOLATED -> JunitXml.TestCase.failed(program.toString(), name, o.elapsed(), List.of(new JunitXml.Finding(
                        mine.isEmpty() ? "VIOLATED" : mine.getFirst().diagnostic().code(),
                        name + " " + o.status().name().toLowerCase(Locale.ROOT) + ", " + o.findings() + " finding(s): "
                                + mine.stream().map(d -> d.diagnostic().code()).distinct().collect(Collectors.joining(", ")),
                        mine.stream().map(PlacedDiagnostic::render).collect(Collectors.joining("\n")))));
            });
        }
        return JunitXml.of("stagecheck verify", cases);
    }

    private static JunitXml.Finding finding(PlacedDiagnostic d) {
        return new JunitXml.Finding(d.diagnostic().code(), d.diagnostic().message(), d.render());
    }

    /** A verifier code's obligation; the spec validator's codes are well-formedness's. */
    private static Obligation obligationOf(PlacedDiagnostic d) {
        Code c = Code.of(d.diagnostic().code());
        return c == null ? Obligation.WELL_FORMED : c.obligation();
    }
}
