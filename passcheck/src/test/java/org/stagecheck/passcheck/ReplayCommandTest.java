package org.stagecheck.passcheck;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * A failing PassCheck prints one replay command; running it reproduces the same failure. The
 * command is run as surefire runs it, in Java: the test method its {@code -Dtest='Class#method'}
 * names, through the JUnit Platform launcher, with every other {@code -Dname=value} it prints set
 * as a system property (surefire hands a command line's properties to the tests the same way).
 */
class ReplayCommandTest {
    private static final Pattern TEST = Pattern.compile("-Dtest='([A-Za-z0-9_$]+)#([A-Za-z0-9_]+)'");
    private static final Pattern PROPERTY = Pattern.compile("-D([A-Za-z0-9_.]+)=(\\S+)");

    /**
     * The failure message of the one test method, run with these system properties set (then
     * restored), and with the planted failure enabled.
     */
    private static String failureOf(String className, String method, Map<String, String> properties) {
        Properties saved = (Properties) System.getProperties().clone();
        System.setProperty(PlantedFailure.ENABLE, "run");
        properties.forEach(System::setProperty);
        try {
            Launcher launcher = LauncherFactory.create();
            SummaryGeneratingListener listener = new SummaryGeneratingListener();
            launcher.execute(LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectMethod(ReplayCommandTest.class.getPackageName() + "." + className + "#" + method)).build(), listener);
            TestExecutionSummary summary = listener.getSummary();
            assertThat(summary.getTestsFoundCount()).as("the command names one test method").isEqualTo(1);
            assertThat(summary.getFailures()).as("the test fails").hasSize(1);
            return summary.getFailures().getFirst().getException().getMessage();
        } finally {
            System.setProperties(saved);
        }
    }

    private static String line(String report, String prefix) {
        return report.lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() -> new AssertionError("no '" + prefix + "' in\n" + report));
    }

    @Test
    void thePrintedReplayCommandReproducesTheSameFailure() throws Exception {
        String first = failureOf("PlantedFailure", "aRenumberingThatForgetsTheSpill", Map.of());
        String command = line(first, "  replay: ").substring("  replay: ".length());
        Path root = Path.of(System.getProperty("basedir")).toAbsolutePath().getParent();
        assertThat(command).startsWith("cd " + root + " && bin/mvn25 test -pl passcheck -am ")
                .contains("-Dtest='PlantedFailure#aRenumberingThatForgetsTheSpill'");

        Matcher test = TEST.matcher(command);
        assertThat(test.find()).isTrue();
        Map<String, String> properties = new LinkedHashMap<>();
        Matcher p = PROPERTY.matcher(command.replace(test.group(), ""));
        while (p.find()) {
            properties.put(p.group(1), p.group(2));
        }
        assertThat(properties).containsKey(PassCheck.REPLAY);
        Path minimal = Path.of(line(first, "  minimal program: ").substring("  minimal program: ".length()).split(" ")[0]);
        String minimalProgram = Files.readString(minimal);

        String again = failureOf(test.group(1), test.group(2), properties);
        long seed = Long.parseLong(properties.get(PassCheck.REPLAY));
        assertThat(first.lines().findFirst().orElseThrow()).contains("seed " + seed);
        assertThat(again.lines().findFirst().orElseThrow())
                .isEqualTo("PassCheck 'planted: remap forgets the spill': law 'well-formed' broken on try 1 of 1, seed " + seed);
        for (String prefix : List.of("  program: ", "  UNKNOWN_BUFFER", "  replay: ")) {
            assertThat(line(again, prefix)).as(prefix).isEqualTo(line(first, prefix));
        }
        // the same shrunk counter-example, still breaking the law the same way (timings aside)
        assertThat(line(again, "  shrunk: ").replaceAll("\\(.*? s\\)", "")).isEqualTo(line(first, "  shrunk: ").replaceAll("\\(.*? s\\)", ""));
        assertThat(Files.readString(minimal)).isEqualTo(minimalProgram);
    }
}
