package org.stagecheck.backend;

import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.rules.Rule;

/**
 * The codes of the runtime faults a backend reports in {@link RunResult#faults()} (brief,
 * "Reference semantics": faults are diagnostics naming the stage), one list for every backend,
 * so the reference and the CUDA backend cannot spell one fault two ways. A code's
 * {@link #spelling()} is its constant's name, the string printed in reports and JSON and matched
 * by tests and CI scripts: it never changes. The validator's findings, the binding and parameter
 * checks and a driver's own error names ({@code CUDA_ERROR_*}) have codes of their own.
 */
public enum FaultCode {
    // a stage that does not fit its declarations (found by the run, naming the stage)
    /** A port count the stage kind does not allow. */
    PORT_COUNT,
    /** A port names a buffer the program does not declare. */
    UNKNOWN_BUFFER,
    /** A stage names a tensor the program does not declare. */
    UNKNOWN_TENSOR,
    /** A stage names a multicast group the program does not declare. */
    UNKNOWN_GROUP,
    /** A tensor read or written from a core of another chip. */
    TENSOR_WRONG_CHIP,
    /** A buffer read before any stage wrote it. */
    READ_BEFORE_WRITE,
    /** A tensor of role input, weight or state with no value when a stage reads it. */
    MISSING_INPUT,
    /** A parameter with no value when an expression or pattern reads it. */
    PARAM_UNBOUND,
    /** A value whose shape differs from its buffer's declaration. */
    BUFFER_SHAPE,
    /** A Load whose blocks do not fit its output buffer. */
    LOAD_SHAPE,
    /** A Store whose input does not fit the tensor region. */
    STORE_SHAPE,
    /** Store sub-blocks that do not tile the block exactly. */
    SUBBLOCK_TILING,
    /** A streamed pattern's block count that does not fit. */
    NUM_BLOCKS,
    /** An access pattern whose rank differs from its tensor's. */
    PATTERN_RANK,
    /** An access pattern's axis outside its tensor's rank. */
    PATTERN_AXIS,
    /** An indirect pattern's index buffer, or an offset buffer, that is not a one-element (offset) or integer buffer. */
    INDEX_BUFFER_TYPE,
    /** A Recv on a core that is not a receiver of its group. */
    RECV_NOT_RECEIVER,
    /** A Recv with no multicast Load of its group before it. */
    RECV_WITHOUT_LOAD,
    /** A Recv whose output differs from what the group's sender loaded. */
    RECV_SHAPE,
    /** A multicast Load on a core that is not its group's sender. */
    MULTICAST_SENDER,
    /** An AllReduce whose partials are not on distinct chips. */
    ALLREDUCE_MEMBERS,
    /** MatMul operands whose shapes do not multiply. */
    MATMUL_SHAPE,
    /** MatMul operands or result of dtypes that do not go together. */
    DTYPE_MISMATCH,
    /** A MatMul spill buffer that is not an f32 buffer of the output's shape. */
    MATMUL_SPILL,
    /** A MatMul bias that is not a vector of the output's last axis. */
    MATMUL_BIAS,
    /** Generic inputs that do not broadcast to the output. */
    BROADCAST,
    /** An expression that does not type-check: a function on values it does not take, an input or element index the stage lacks. */
    EXPR_TYPE,
    /** A Reduce axis outside its input's rank. */
    REDUCE_AXIS,
    /** A Reduce output that is not its input with the axis removed. */
    REDUCE_SHAPE,
    /** A reduction over an empty axis that has no identity. */
    EMPTY_REDUCE,
    /** A layout op (reshape, transpose, slice, concat) whose shapes, permutation, window or axis do not correspond. */
    LAYOUT_SHAPE,
    /** A Scalar stage port that is not a one-element buffer. */
    SCALAR_SHAPE,

    // the data (only a run can know)
    /** An index buffer element outside the indexed tensor's axis 0. */
    INDEX_OUT_OF_RANGE,
    /** A block placed past the tensor's end by a parameter or offset buffer. */
    BLOCK_OUT_OF_BOUNDS,
    /** An offset computation that overflows 64 bits. */
    OFFSET_OVERFLOW,
    /** An integer division or remainder by zero. */
    DIV_BY_ZERO,
    /** The first stage that wrote a NaN or infinity, when the run was asked to stop there. */
    NON_FINITE,

    // the evaluator's own limits
    /** An expression nested too deeply for the evaluator's stack. */
    EXPR_TOO_DEEP,
    /** The Java heap ran out while evaluating a stage. */
    OUT_OF_MEMORY,
    /** A defect of the backend itself, still reported as a fault naming the stage. */
    INTERNAL,

    // the CUDA backend's setup
    /** The program could not be lowered to kernels. */
    CUDA_LOWERING,
    /** The generated source did not compile. */
    CUDA_COMPILE;

    /** The printed code: the constant's name, e.g. {@code INDEX_OUT_OF_RANGE}. */
    public String spelling() {
        return name();
    }

    /** The code {@code d} carries, or null when it is not a runtime fault code (a validator finding, a binding fault, a driver error). */
    /**
     * The fault of a broken rule of the language found at run time: the rule's one code (the
     * validator's). Every rule a backend checks while running has a code here; a backend behind
     * the seam validates first, so these faults are reached only by a caller of the evaluator
     * that skipped validation.
     *
     * @throws IllegalArgumentException for a rule only the validator checks (a defect of the caller)
     */
    public static FaultCode of(Rule rule) {
        return valueOf(rule.code());
    }

    public static FaultCode of(Diagnostic d) {
        for (FaultCode c : values()) {
            if (c.spelling().equals(d.code())) {
                return c;
            }
        }
        return null;
    }

    /** A fault of this code at stage {@code index} (see {@link Diagnostic#atStage}). */
    public Diagnostic atStage(int index, String stageId, String field, String buffer, String message) {
        return Diagnostic.atStage(spelling(), index, stageId, field, buffer, message);
    }

    /** A fault of this code about a declaration or the program (see {@link Diagnostic#atField}). */
    public Diagnostic atField(String field, String message) {
        return Diagnostic.atField(spelling(), field, message);
    }
}
