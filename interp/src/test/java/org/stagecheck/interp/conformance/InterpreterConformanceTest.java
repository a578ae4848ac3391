package org.stagecheck.interp.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.stagecheck.conformance.CaseResult;
import org.stagecheck.conformance.Conformance;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;

/**
 * The reference interpreter passes the whole conformance suite through the {@code Backend}
 * interface: one dynamic test per case, named after it.
 */
class InterpreterConformanceTest {
    private final Interpreter interpreter = new Interpreter(RunOptions.defaults());

    @TestFactory
    Stream<DynamicTest> everyCasePasses() {
        return Conformance.suite().cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            CaseResult r = Conformance.check(interpreter, c);
            assertThat(r.passed()).as(r.message()).isTrue();
        }));
    }

    @Test
    void theWholeRunPassesOnOneAndFourThreads() {
        for (int threads : new int[] {1, 4}) {
            List<CaseResult> results = Conformance.suite().run(new Interpreter(RunOptions.defaults().withThreads(threads)));
            assertThat(results).as(Conformance.summary(results)).allMatch(CaseResult::passed);
        }
    }
}
