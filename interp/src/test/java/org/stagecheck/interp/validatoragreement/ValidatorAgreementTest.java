package org.stagecheck.interp.validatoragreement;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.Program;

/**
 * The contract between the structural validator and the evaluator (issue #2/#3 follow-up): a
 * program the validator accepts never gets a structural fault from the evaluator, and a program
 * the validator rejects is really ill-formed. Checked by {@link DifferentialFuzzer} over a fixed
 * seed set.
 */
class ValidatorAgreementTest {
    private static final int MUTANTS_PER_SEED = 300;

    @Test
    void campaign() throws Exception {
        List<Map.Entry<String, Program>> seeds = DifferentialFuzzer.seeds(Path.of("..", "examples"));
        DifferentialFuzzer.Report report = DifferentialFuzzer.run(seeds, MUTANTS_PER_SEED, 0x5eed);
        System.out.println("mutants " + report.mutants() + " accepted " + report.accepted() + " codes " + report.rejectionCodes());
        System.out.println("UNSAFE " + report.unsafe().size());
        report.unsafe().stream().limit(400).forEach(c -> System.out.println(c.describe()));
        System.out.println("STRICTER " + report.stricter().size());
        Map<String, Long> byCode = report.stricter().stream()
                .flatMap(c -> c.verdict().findings().stream().map(d -> d.code()).distinct())
                .collect(Collectors.groupingBy(x -> x, Collectors.counting()));
        System.out.println(byCode);
        
        assertThat(report.unsafe().stream().map(DifferentialFuzzer.Case::describe).toList()).isEmpty();
    }
}
