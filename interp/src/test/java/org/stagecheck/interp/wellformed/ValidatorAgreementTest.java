package org.stagecheck.interp.wellformed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;

/**
 * The contract between the structural validator and the evaluator : a
 * program the validator accepts never gets a structural fault from the evaluator, and a program
 * the validator rejects is refused by the evaluator with the validator's findings. Checked by {@link DifferentialFuzzer} over a fixed
 * seed set (six generated programs, the five examples, 300 mutants each).
 */
class ValidatorAgreementTest {
    private static final int MUTANTS_PER_SEED = 300;
    private static final long CAMPAIGN_SEED = 0x5eed;

    private static DifferentialFuzzer.Report report;
    private static List<Map.Entry<String, Program>> seeds;

    @BeforeAll
    static void campaign() throws Exception {
        seeds = DifferentialFuzzer.seeds(Path.of("..", "examples"));
        report = DifferentialFuzzer.run(seeds, MUTANTS_PER_SEED, CAMPAIGN_SEED);
    }

    @Test
    void theSeedProgramsAreWellFormedOnBothSides() {
        for (Map.Entry<String, Program> seed : seeds) {
            Agreement.Verdict v = Agreement.judge(seed.getValue(), 1);
            assertThat(v.findings()).as(seed.getKey()).isEmpty();
            assertThat(v.structural()).as(seed.getKey()).isEmpty();
        }
    }

    @Test
    void aProgramTheValidatorAcceptsNeverFaultsStructurally() {
        assertThat(report.unsafe().stream().map(DifferentialFuzzer.Case::describe).toList()).isEmpty();
    }

    /** No lenient path: the evaluator refuses every program the validator rejects, with the validator's findings. */
    @Test
    void aProgramTheValidatorRejectsIsRefusedWithTheValidatorsFindings() {
        assertThat(report.stricter().stream().map(DifferentialFuzzer.Case::describe).toList()).isEmpty();
    }

    /** The campaign is not degenerate: many mutants, some accepted, and rejections for many reasons. */
    @Test
    void theCampaignExercisesBothSides() {
        assertThat(report.mutants()).isGreaterThan(2000);
        assertThat(report.accepted()).isGreaterThan(100);
        assertThat(report.rejectionCodes().keySet()).hasSizeGreaterThan(25)
                .contains("ALLREDUCE_MEMBERS", "BLOCK_OUT_OF_BOUNDS", "LOAD_SHAPE", "MATMUL_SHAPE", "SUBBLOCK_TILING", "EXPR_TYPE");
        System.out.println("validator-agreement: " + report.mutants() + " mutants, " + report.accepted() + " accepted, "
                + report.unsafe().size() + " unsafe, " + report.stricter().size() + " rejected but not refused alike; rejections by code "
                + report.rejectionCodes());
    }

    /** Every classified structural code is a real evaluator code, and the table names them all. */
    @Test
    void theStructuralCodesAreWrittenDown() {
        Set<String> expected = new TreeSet<>(List.of("ALLREDUCE_MEMBERS", "BROADCAST", "BUFFER_SHAPE",
                "DTYPE_MISMATCH", "EMPTY_REDUCE", "EXPR_TYPE", "INDEX_BUFFER_TYPE", "INTERNAL", "LAYOUT_SHAPE", "LOAD_SHAPE",
                "MATMUL_BIAS", "MATMUL_SHAPE", "MATMUL_SPILL", "MULTICAST_SENDER", "NUM_BLOCKS", "PARAM_UNBOUND", "PATTERN_AXIS",
                "PATTERN_RANK", "PORT_COUNT", "RECV_NOT_RECEIVER", "RECV_SHAPE", "REDUCE_AXIS", "REDUCE_SHAPE", "SCALAR_SHAPE",
                "STORE_SHAPE", "SUBBLOCK_TILING", "TENSOR_WRONG_CHIP", "UNKNOWN_BUFFER", "UNKNOWN_GROUP",
                "UNKNOWN_TENSOR"));
        assertThat(FaultClass.structuralCodes()).isEqualTo(expected);
    }
}
