package org.stagecheck.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.diag.Diagnostic;

/** The one list of runtime fault codes: printed spellings pinned, each code emitted by some backend. */
class FaultCodeTest {
    /** Every printed code (a broken rule under the validator's code for it): a change here is a visible decision. */
    private static final String SPELLINGS = """
            PORT_COUNT UNKNOWN_BUFFER UNKNOWN_TENSOR UNKNOWN_GROUP TENSOR_WRONG_CHIP READ_BEFORE_WRITE
            MISSING_INPUT PARAM_UNBOUND BUFFER_SHAPE LOAD_SHAPE STORE_SHAPE SUBBLOCK_TILING NUM_BLOCKS
            PATTERN_RANK PATTERN_AXIS INDEX_BUFFER_TYPE RECV_NOT_RECEIVER RECV_WITHOUT_LOAD RECV_SHAPE
            MULTICAST_SENDER ALLREDUCE_MEMBERS MATMUL_SHAPE DTYPE_MISMATCH MATMUL_SPILL MATMUL_BIAS BROADCAST
            EXPR_TYPE REDUCE_AXIS REDUCE_SHAPE EMPTY_REDUCE LAYOUT_SHAPE SCALAR_SHAPE INDEX_OUT_OF_RANGE
            BLOCK_OUT_OF_BOUNDS OFFSET_OVERFLOW DIV_BY_ZERO NON_FINITE EXPR_TOO_DEEP
            OUT_OF_MEMORY INTERNAL CUDA_LOWERING CUDA_COMPILE""";

    @Test
    void thePrintedSpellingsAreUnchanged() {
        List<String> pinned = Arrays.asList(SPELLINGS.strip().split("\\s+"));
        assertThat(Stream.of(FaultCode.values()).map(FaultCode::spelling).toList()).containsExactlyElementsOf(pinned);
    }

    @Test
    void aDiagnosticsCodeIsReadBackAsTheEnumAndOtherCodesAreNone() {
        Diagnostic d = FaultCode.INDEX_OUT_OF_RANGE.atStage(3, "gather", "/stages/3/kind/pattern/indexBuffer", null, "row 9 of 4.");
        assertThat(d.code()).isEqualTo("INDEX_OUT_OF_RANGE");
        assertThat(d.render()).startsWith("INDEX_OUT_OF_RANGE stage #3 'gather' at /stages/3/kind/pattern/indexBuffer: ");
        assertThat(FaultCode.of(d)).isSameAs(FaultCode.INDEX_OUT_OF_RANGE);
        assertThat(FaultCode.of(Diagnostic.atField("PARAM_UNKNOWN", "/params", "x."))).isNull();
        RunResult r = new RunResult(java.util.Map.of(), java.util.Map.of(),
                List.of(d, Diagnostic.atField("CUDA_ERROR_ILLEGAL_ADDRESS", "/", "x.")), "gather");
        assertThat(r.faultCodes()).containsExactly(FaultCode.INDEX_OUT_OF_RANGE, null);
    }

    /**
     * Each code is emitted by the interpreter or the CUDA backend (their sources name it, as a
     * fault code or as the language's rule they hold a stage to, directly or through
     * {@code OpRules} or {@code MoveRules}): no dead code in the list.
     */
    @Test
    void everyCodeIsUsedByABackend() {
        String sources = backendSources();
        assertThat(FaultCode.values()).allSatisfy(c -> assertThat(sources).as(c.spelling())
                .containsAnyOf("FaultCode." + c.name(), "Rule." + c.name() + ")", "Rule." + c.name() + ","));
    }

    /** Every rule a backend holds a stage to while running has its fault code (no rule the run can break is without one). */
    @Test
    void everyRuleABackendChecksHasAFaultCode() {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Rule\\.([A-Z_]+)").matcher(backendSources());
        List<org.stagecheck.spec.rules.Rule> checked = new java.util.ArrayList<>();
        while (m.find()) {
            checked.add(org.stagecheck.spec.rules.Rule.valueOf(m.group(1)));
        }
        assertThat(checked).isNotEmpty().allSatisfy(r -> assertThat(FaultCode.of(r).spelling()).isEqualTo(r.code()));
    }

    private static String backendSources() {
        return sourcesOf(Path.of("..", "interp", "src", "main", "java")) + sourcesOf(Path.of("..", "cuda-backend", "src", "main", "java"))
                + sourcesOf(Path.of("..", "spec", "src", "main", "java", "org", "stagecheck", "spec", "rules", "OpRules.java"))
                + sourcesOf(Path.of("..", "spec", "src", "main", "java", "org", "stagecheck", "spec", "rules", "MoveRules.java"));
    }

    private static String sourcesOf(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            StringBuilder all = new StringBuilder();
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                // comments stripped: a code named only in a comment is not used
                all.append(Files.readString(f).replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", ""));
            }
            return all.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
