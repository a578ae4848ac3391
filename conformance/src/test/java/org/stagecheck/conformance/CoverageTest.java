package org.stagecheck.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;

/** The suite covers every kind, op, access pattern, offset, expression node, function and dtype. */
class CoverageTest {

    @Test
    void nothingTheIrOffersIsUncovered() {
        assertThat(Coverage.missing(Conformance.allCases())).as("features no case exercises").isEmpty();
    }

    @Test
    void theRequiredSetNamesEveryKindFunctionAndDtype() {
        // a sanity check on the walker's vocabulary: these come from the IR's sealed types and enums
        assertThat(Coverage.required()).contains("kind/Load", "kind/Store", "kind/Recv", "kind/AllReduce", "kind/Compute", "kind/Scalar",
                "op/Generic", "op/MatMul", "op/Reduce", "op/Reshape", "op/Transpose", "op/Slice", "op/Concat",
                "pattern/load/Indirect", "pattern/store/Streamed", "offset/OfBuffer", "offset/OfParam", "expr/Index", "expr/Cast",
                "fn/exp", "fn/select", "reduce/argmax", "pool/min", "dtype/cast/e4m3", "dtype/tensor/e5m2", "dtype/buffer/i32");
    }

    @Test
    void aSuiteWithoutTheRecvCasesIsReportedIncomplete() {
        List<ConformanceCase> withoutRecv = Conformance.allCases().stream().filter(c -> c.family() != Family.RECV).toList();
        assertThat(Coverage.missing(withoutRecv)).contains("kind/Recv", "load/multicast");
    }

    @Test
    void aSuiteWithoutTheFunctionCasesMissesEachTranscendental() {
        List<ConformanceCase> without = Conformance.allCases().stream().filter(c -> c.family() != Family.FUNCTION).toList();
        assertThat(Coverage.missing(without)).contains("fn/exp", "fn/log", "fn/sqrt", "fn/rsqrt", "fn/tanh", "fn/sigmoid", "fn/recip", "fn/sin", "fn/cos");
    }
}
