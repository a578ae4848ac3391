package org.stagecheck.interp.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.stagecheck.conformance.Conformance;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.spec.validate.Validator;

/**
 * One language: on every conformance case, none skipped, the validator and the evaluator give the
 * same answer. The validator accepts the program and the evaluator runs it without a fault; there
 * is no case only one of them takes.
 */
class ValidatorEvaluatorSuiteAgreementTest {
    private final Interpreter interpreter = new Interpreter(RunOptions.defaults());

    @TestFactory
    Stream<DynamicTest> theValidatorAcceptsAndTheEvaluatorRunsEveryCase() {
        return Conformance.suite().cases().stream().map(c -> DynamicTest.dynamicTest(c.name(), () -> {
            assertThat(new Validator().validate(c.program())).as("validator findings").isEmpty();
            RunResult r = interpreter.run(c.program(), c.bound(), c.params());
            assertThat(r.faults()).as("evaluator faults").isEmpty();
        }));
    }
}
