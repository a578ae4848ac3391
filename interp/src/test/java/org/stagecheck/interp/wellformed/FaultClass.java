package org.stagecheck.interp.wellformed;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * What an evaluator fault says about a program (docs/semantics.md): a STRUCTURAL fault is decided
 * by the declarations alone, so the validator must have rejected the program; a DATA fault depends
 * on values only a run knows (bound tensors, parameters, buffer contents, the order stages ran in),
 * so a valid program may still meet it; a RESOURCE fault is the JVM's limit; HARNESS is a binding
 * or parameter fault of the fuzzer itself and must never occur. Every code the evaluator can emit
 * is listed: a new code makes {@link #of} fail loudly instead of being silently tolerated.
 */
enum FaultClass {
    STRUCTURAL, DATA, RESOURCE, HARNESS;

    /** The classification of every evaluator code. Two codes are DATA only where a buffer feeds the offset. */
    private static final Map<String, FaultClass> BY_CODE = Map.ofEntries(
            // references and ports
            Map.entry("PORT_COUNT", STRUCTURAL), Map.entry("UNKNOWN_BUFFER", STRUCTURAL),
            Map.entry("UNKNOWN_TENSOR", STRUCTURAL), Map.entry("UNKNOWN_GROUP", STRUCTURAL),
            Map.entry("PARAM_UNBOUND", STRUCTURAL), Map.entry("TENSOR_WRONG_CHIP", STRUCTURAL),
            Map.entry("BUFFER_SHAPE", STRUCTURAL),
            // access patterns
            Map.entry("PATTERN_RANK", STRUCTURAL), Map.entry("PATTERN_AXIS", STRUCTURAL),
            Map.entry("NUM_BLOCKS", STRUCTURAL), Map.entry("LOAD_SHAPE", STRUCTURAL),
            Map.entry("STORE_SHAPE", STRUCTURAL), Map.entry("SUBBLOCK_TILING", STRUCTURAL),
            Map.entry("INDEX_BUFFER_TYPE", STRUCTURAL),
            // links
            Map.entry("MULTICAST_SENDER", STRUCTURAL), Map.entry("RECV_NOT_RECEIVER", STRUCTURAL),
            Map.entry("RECV_SHAPE", STRUCTURAL), Map.entry("ALLREDUCE_MEMBERS", STRUCTURAL),
            // compute
            Map.entry("BROADCAST", STRUCTURAL), Map.entry("EXPR_TYPE", STRUCTURAL),
            Map.entry("MATMUL_SHAPE", STRUCTURAL), Map.entry("DTYPE_MISMATCH", STRUCTURAL),
            Map.entry("MATMUL_BIAS", STRUCTURAL), Map.entry("MATMUL_SPILL", STRUCTURAL),
            Map.entry("REDUCE_AXIS", STRUCTURAL), Map.entry("REDUCE_SHAPE", STRUCTURAL),
            Map.entry("EMPTY_REDUCE", STRUCTURAL), // the axis extent is declared: no data decides it
            Map.entry("LAYOUT_SHAPE", STRUCTURAL), Map.entry("SCALAR_SHAPE", STRUCTURAL),
            // an evaluator defect is never acceptable: counted with the structural faults so it fails the test
            Map.entry("INTERNAL", STRUCTURAL),
            // values only a run knows
            Map.entry("INDEX_OUT_OF_RANGE", DATA), Map.entry("DIV_BY_ZERO", DATA),
            Map.entry("NON_FINITE", DATA), Map.entry("READ_BEFORE_WRITE", DATA),
            Map.entry("RECV_WITHOUT_LOAD", DATA),
            Map.entry("BLOCK_OUT_OF_BOUNDS", DATA), Map.entry("OFFSET_OVERFLOW", DATA),
            Map.entry("OUT_OF_MEMORY", RESOURCE), Map.entry("EXPR_TOO_DEEP", RESOURCE),
            Map.entry("PARAM_OUT_OF_RANGE", HARNESS), Map.entry("PARAM_UNKNOWN", HARNESS),
            Map.entry("MISSING_INPUT", HARNESS), Map.entry("BINDING_DTYPE", HARNESS),
            Map.entry("BINDING_SHAPE", HARNESS), Map.entry("BINDING_UNKNOWN", HARNESS));

    /** The codes classified STRUCTURAL (what the validator must rule out). */
    static Set<String> structuralCodes() {
        Set<String> out = new TreeSet<>();
        BY_CODE.forEach((code, c) -> {
            if (c == STRUCTURAL) {
                out.add(code);
            }
        });
        return out;
    }

    /**
     * The class of fault {@code d} of a run of {@code p}. A block out of bounds, or an offset that
     * overflows, is DATA only when an origin offset of the stage's pattern reads a buffer (its value
     * is known at run time only); with parameters alone the validator bounds it over the whole
     * declared range, so it is STRUCTURAL.
     *
     * @throws IllegalStateException for a code this table does not know
     */
    static FaultClass of(Diagnostic d, Program p) {
        FaultClass c = BY_CODE.get(d.code());
        if (c == null) {
            throw new IllegalStateException("the evaluator emitted " + d.code() + ", which FaultClass does not classify: " + d.render());
        }
        if ((d.code().equals("BLOCK_OUT_OF_BOUNDS") || d.code().equals("OFFSET_OVERFLOW")) && !readsOffsetBuffer(d, p)) {
            return STRUCTURAL;
        }
        return c;
    }

    private static boolean readsOffsetBuffer(Diagnostic d, Program p) {
        if (d.stageIndex() < 0 || d.stageIndex() >= p.stages().size()) {
            return false;
        }
        Stage s = p.stages().get(d.stageIndex());
        AccessPattern pattern = switch (s.kind()) {
            case StageKind.Load l -> l.pattern();
            case StageKind.Store st -> st.pattern();
            case StageKind.Recv r -> null;
            case StageKind.AllReduce a -> null;
            case StageKind.Compute c -> null;
            case StageKind.Scalar sc -> null;
        };
        if (pattern == null) {
            return false;
        }
        for (Offset o : pattern.originOffsets()) {
            if (!o.buffers().isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
