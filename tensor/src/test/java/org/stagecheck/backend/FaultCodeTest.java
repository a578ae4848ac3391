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
    /** Every printed code, as reports and JSON have always spelled them: a change here is a visible decision. */
    private static final String SPELLINGS = """
            PORT_COUNT UNKNOWN_BUFFER UNKNOWN_TENSOR UNKNOWN_GROUP WRONG_CHIP READ_BEFORE_WRITE MISSING_INPUT
            PARAM_UNBOUND BUFFER_SHAPE OUTPUT_SHAPE LOAD_SHAPE STORE_SHAPE SUBBLOCK_TILING BLOCK_COUNT PATTERN_RANK
            PATTERN_AXIS OFFSET_BUFFER INDEX_DTYPE RECV_NOT_RECEIVER RECV_WITHOUT_LOAD RECV_SHAPE MULTICAST_SENDER
            ALLREDUCE_MEMBERS MATMUL_SHAPE MATMUL_DTYPE SPILL_DECL BROADCAST_SHAPE EXPR_INPUT EXPR_INDEX EXPR_TYPE
            REDUCE_AXIS REDUCE_SHAPE EMPTY_REDUCE LAYOUT_SHAPE TRANSPOSE_PERM SLICE_BOUNDS CONCAT_AXIS SCALAR_INPUT
            SCALAR_OUTPUT INDEX_OUT_OF_RANGE BLOCK_OUT_OF_BOUNDS OFFSET_OVERFLOW DIV_BY_ZERO NON_FINITE
            BUFFER_TOO_LARGE EXPR_TOO_DEEP OUT_OF_MEMORY INTERNAL CUDA_LOWERING CUDA_COMPILE""";

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

    /** Each code is emitted by the interpreter or the CUDA backend (their sources name it): no dead code in the list. */
    @Test
    void everyCodeIsUsedByABackend() {
        String sources = sourcesOf(Path.of("..", "interp", "src", "main", "java")) + sourcesOf(Path.of("..", "cuda-backend", "src", "main", "java"));
        assertThat(FaultCode.values()).allSatisfy(c -> assertThat(sources).as(c.spelling()).contains("FaultCode." + c.name()));
    }

    private static String sourcesOf(Path root) {
        try (Stream<Path> files = Files.walk(root)) {
            StringBuilder all = new StringBuilder();
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                all.append(Files.readString(f));
            }
            return all.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
