package org.stagecheck.interp.wellformed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;

/**
 * The contract between the structural validator and the evaluator : a
 * program the validator accepts never gets a structural fault from the evaluator, and a program
 * the validator rejects is really ill-formed. Checked by {@link DifferentialFuzzer} over a fixed
 * seed set (six generated programs, the five examples, 300 mutants each).
 */
class ValidatorAgreementTest {
    private static final int MUTANTS_PER_SEED = 300;
    private static final long CAMPAIGN_SEED = 0x5eed;

    /**
     * Validator rules that reject programs the evaluator runs without a structural fault, each
     * with the reason the program is nevertheless ill-formed. The evaluator's stage code below the
     * backend seam does not re-check these (it does not model core placement, and a Load, Store or
     * Recv converts dtypes and reshapes where the IR's javadoc asks for equality); every backend
     * validates first, so none of it is reachable through one. The shape and dtype rules of the
     * Compute ops (OpRules) are held by the evaluator and are not listed; typing an expression is.
     * The list is the precise record of that asymmetry. A rejection by any
     * other rule of a program the evaluator runs cleanly fails the campaign.
     */
    static final Map<String, String> STRICTER_BY_RULE = new TreeMap<>(Map.ofEntries(
            Map.entry("BUFFER_WRONG_SITE", "a core names another core's local memory: the evaluator has one flat buffer namespace and does not model placement"),
            Map.entry("BAD_SITE", "a stage or buffer on a core the machine does not have"),
            Map.entry("BAD_GROUP", "a multicast group off its chip's grid, or with no receiver"),
            Map.entry("BAD_CHIP", "a tensor in the DRAM of a chip the machine does not have"),
            Map.entry("DUPLICATE_ID", "two declarations or stages share a name: references and traces are ambiguous"),
            Map.entry("DTYPE_MISMATCH", "Load/Store/Recv between different dtypes: the evaluator's stage code converts silently (docs/semantics.md, Dtypes), the validator asks for an explicit cast stage"),
            Map.entry("EXPR_TYPE", "an expression whose type is not its output's (or a combine's not its partials'): the evaluator converts on write"),
            Map.entry("RECV_SHAPE", "a Recv into a buffer of another shape or dtype than the multicast one: the evaluator compares element counts only and converts"),
            Map.entry("LOAD_SHAPE", "a Load into a buffer of the selection's element count but another shape: the evaluator reshapes"),
            Map.entry("STORE_SHAPE", "a Store from a buffer of the region's element count but another shape: the evaluator reshapes"),
            Map.entry("ALLREDUCE_SHAPE", "partials and outputs of different shapes or dtypes: the evaluator broadcasts and converts"),
            Map.entry("SCALAR_SHAPE", "a Scalar stage port that is not one element: the evaluator checks only the inputs its body reads"),
            Map.entry("PORT_COUNT", "ports a Load, Store, Recv or Scalar does not have: the evaluator ignores the extra ones"),
            Map.entry("NUM_BLOCKS", "numBlocks > 1 on an indirect pattern, whose block count is the index buffer's length: the evaluator ignores it"),
            Map.entry("INDEX_BUFFER_TYPE", "an index buffer that is not rank 1 (AccessPattern.Indirect: shape [n]): the evaluator flattens it"),
            Map.entry("STORE_READ_ONLY", "a Store into an input or weight tensor, which a program only reads"),
            Map.entry("PATTERN_STRIDE", "a stride below the block's extent (AccessPattern.Streamed: blocks that overlap)"),
            Map.entry("UNKNOWN_PARAM", "an offset naming an undeclared parameter in a stage the runs did not reach with it")));

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

    @Test
    void aProgramTheValidatorRejectsButTheEvaluatorRunsBreaksOnlyADocumentedRule() {
        List<String> undocumented = report.stricter().stream()
                .filter(c -> !c.verdict().findings().stream().map(Diagnostic::code).allMatch(STRICTER_BY_RULE::containsKey))
                .map(DifferentialFuzzer.Case::describe)
                .toList();
        assertThat(undocumented).isEmpty();
    }

    /** The campaign is not degenerate: many mutants, some accepted, and rejections for many reasons. */
    @Test
    void theCampaignExercisesBothSides() {
        assertThat(report.mutants()).isGreaterThan(2000);
        assertThat(report.accepted()).isGreaterThan(100);
        assertThat(report.rejectionCodes().keySet()).hasSizeGreaterThan(25)
                .contains("ALLREDUCE_MEMBERS", "BLOCK_OUT_OF_BOUNDS", "LOAD_SHAPE", "MATMUL_SHAPE", "SUBBLOCK_TILING", "EXPR_TYPE");
        System.out.println("validator-agreement: " + report.mutants() + " mutants, " + report.accepted() + " accepted, "
                + report.unsafe().size() + " unsafe, " + report.stricter().size() + " rejected though the evaluator ran them; rejections by code "
                + report.rejectionCodes());
    }

    /** Every classified structural code is a real evaluator code, and the table names them all. */
    @Test
    void theStructuralCodesAreWrittenDown() {
        Set<String> expected = new TreeSet<>(List.of("ALLREDUCE_MEMBERS", "BROADCAST", "BUFFER_SHAPE", "BUFFER_TOO_LARGE",
                "DTYPE_MISMATCH", "EMPTY_REDUCE", "EXPR_TYPE", "INDEX_BUFFER_TYPE", "INTERNAL", "LAYOUT_SHAPE", "LOAD_SHAPE",
                "MATMUL_BIAS", "MATMUL_SHAPE", "MATMUL_SPILL", "MULTICAST_SENDER", "NUM_BLOCKS", "PARAM_UNBOUND", "PATTERN_AXIS",
                "PATTERN_RANK", "PORT_COUNT", "RECV_NOT_RECEIVER", "RECV_SHAPE", "REDUCE_AXIS", "REDUCE_SHAPE", "SCALAR_SHAPE",
                "STORE_SHAPE", "SUBBLOCK_TILING", "TENSOR_TOO_LARGE", "TENSOR_WRONG_CHIP", "UNKNOWN_BUFFER", "UNKNOWN_GROUP",
                "UNKNOWN_TENSOR"));
        assertThat(FaultClass.structuralCodes()).isEqualTo(expected);
    }
}
