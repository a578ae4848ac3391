package org.stagecheck.golden.report;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * JUnit XML for any list of checks, in the conventions of {@code golden check --junit}
 * ({@link JunitReport}): one {@code <testsuites>} holding one {@code <testsuite>}; each check a
 * {@code <testcase classname name time>}; a failed check holds one {@code <failure type message>}
 * per finding, whose body is the finding's text; bad input is an {@code <error>}; a check not made
 * is {@code <skipped>}. Times are in seconds with six decimals; the suite's (and the root's) is their sum.
 *
 * <pre>{@code
 * String xml = JunitXml.of("stagecheck validate", List.of(
 *         JunitXml.TestCase.passed("validate", "a.json", Duration.ofMillis(3)),
 *         JunitXml.TestCase.failed("validate", "b.json", Duration.ofMillis(2),
 *                 List.of(new JunitXml.Finding("UNKNOWN_BUFFER", "Stage 'mm' reads 'x'", "b.json:4:7: UNKNOWN_BUFFER ...")))));
 * }</pre>
 */
public final class JunitXml {
    private JunitXml() {
    }

    /**
     * One finding of a check: a {@code <failure>} or {@code <error>} element.
     *
     * @param type    the finding's code (the element's {@code type})
     * @param message one line saying what is wrong (the element's {@code message})
     * @param body    the finding's full text (the element's content)
     */
    public record Finding(String type, String message, String body) {
        public Finding {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(message, "message");
            Objects.requireNonNull(body, "body");
        }
    }

    /**
     * One check.
     *
     * @param classname the group the check belongs to
     * @param name      the check's name
     * @param time      how long it took
     * @param failures  what it found (empty: it passed, unless it has an error or was skipped)
     * @param error     why it could not be made (bad input), or null
     * @param skipped   why it was not made, or null
     */
    public record TestCase(String classname, String name, Duration time, List<Finding> failures, Finding error, String skipped) {
        public TestCase {
            Objects.requireNonNull(classname, "classname");
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(time, "time");
            failures = List.copyOf(failures);
        }

        public static TestCase passed(String classname, String name, Duration time) {
            return new TestCase(classname, name, time, List.of(), null, null);
        }

        public static TestCase failed(String classname, String name, Duration time, List<Finding> failures) {
            return new TestCase(classname, name, time, failures, null, null);
        }

        public static TestCase error(String classname, String name, Duration time, Finding error) {
            return new TestCase(classname, name, time, List.of(), error, null);
        }

        public static TestCase skipped(String classname, String name, String why) {
            return new TestCase(classname, name, Duration.ZERO, List.of(), null, why);
        }

        boolean isError() {
            return error != null;
        }

        boolean isFailure() {
            return error == null && !failures.isEmpty();
        }
    }

    /** The document for the suite {@code suite}. */
    public static String of(String suite, List<TestCase> cases) {
        long failures = cases.stream().filter(TestCase::isFailure).count();
        long errors = cases.stream().filter(TestCase::isError).count();
        long skipped = cases.stream().filter(c -> c.skipped() != null).count();
        String time = seconds(cases.stream().map(TestCase::time).reduce(Duration.ZERO, Duration::plus));
        StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        b.append("<testsuites name=\"").append(JunitReport.escape(suite)).append("\" tests=\"").append(cases.size()).append("\" failures=\"").append(failures)
                .append("\" errors=\"").append(errors).append("\" time=\"").append(time).append("\">\n");
        b.append("  <testsuite name=\"").append(JunitReport.escape(suite)).append("\" tests=\"").append(cases.size())
                .append("\" failures=\"").append(failures).append("\" errors=\"").append(errors)
                .append("\" skipped=\"").append(skipped).append("\" time=\"").append(time).append("\">\n");
        for (TestCase c : cases) {
            b.append("    <testcase classname=\"").append(JunitReport.escape(c.classname())).append("\" name=\"")
                    .append(JunitReport.escape(c.name())).append("\" time=\"").append(seconds(c.time())).append("\"");
            if (c.error() == null && c.failures().isEmpty() && c.skipped() == null) {
                b.append("/>\n");
                continue;
            }
            b.append(">\n");
            if (c.skipped() != null) {
                b.append("      <skipped message=\"").append(JunitReport.escape(c.skipped())).append("\"/>\n");
            }
            if (c.error() != null) {
                element(b, "error", c.error());
            }
            for (Finding f : c.failures()) {
                element(b, "failure", f);
            }
            b.append("    </testcase>\n");
        }
        b.append("  </testsuite>\n</testsuites>\n");
        return b.toString();
    }

    private static void element(StringBuilder b, String tag, Finding f) {
        b.append("      <").append(tag).append(" type=\"").append(JunitReport.escape(f.type())).append("\" message=\"")
                .append(JunitReport.escape(f.message())).append("\">").append(JunitReport.escape(f.body()))
                .append("</").append(tag).append(">\n");
    }

    /** Seconds with six decimals, as {@link JunitReport} writes them. */
    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.6f", d.toNanos() / 1e9);
    }
}
