package org.stagecheck.spec.rules;

/**
 * Every structural rule of the program language, each with the one diagnostic code it is reported
 * under (the constant's name). The validator reports a broken rule under this code, and a backend
 * that meets the same rule (the reference evaluator, the CUDA lowering, the author's program
 * builder) reports it under the same code: one language, one code per rule. Data faults (values
 * only a run knows) are not rules of the language and are not listed here.
 */
public enum Rule {
    // declarations
    DUPLICATE_ID("a parameter, tensor, buffer, group or stage name is used once"),
    BAD_NAME("a tensor or stage name is a plain identifier; a program name holds no control character"),
    BAD_CHIP("a tensor lives in the DRAM of a chip the machine has"),
    BAD_SITE("a stage or buffer is on a core the machine has"),
    BAD_GROUP("a multicast group is a rectangle of its chip's grid with a sender on it and a receiver"),
    SIZE_TOO_LARGE("a tensor or buffer has at most Validator.MAX_ELEMENTS elements"),
    // references and ports
    UNKNOWN_BUFFER("every buffer a stage names is declared"),
    UNKNOWN_TENSOR("every tensor a stage names is declared"),
    UNKNOWN_GROUP("every group a stage names is declared"),
    UNKNOWN_PARAM("every parameter an offset names is declared"),
    BUFFER_WRONG_SITE("a stage names only buffers of its own core (an AllReduce links chips)"),
    TENSOR_WRONG_CHIP("a Load or Store names a tensor of its own chip's DRAM"),
    PORT_COUNT("a stage has the inputs and outputs its kind takes"),
    // access patterns, Load and Store
    PATTERN_RANK("a pattern's origin and block address every axis of its tensor"),
    PATTERN_AXIS("a streamed pattern streams along an axis of its block"),
    PATTERN_STRIDE("streamed blocks do not overlap: the stride is at least the block's extent"),
    NUM_BLOCKS("only a streamed pattern reads more than one block"),
    INDEX_BUFFER_TYPE("an index buffer is rank-1 i32; an offset buffer is one-element i32"),
    BLOCK_OUT_OF_BOUNDS("a block stays inside its tensor for every parameter value in range"),
    LOAD_SHAPE("a Load's output has the shape of the blocks it reads"),
    STORE_SHAPE("a Store's input has the shape of the region it writes"),
    STORE_READ_ONLY("no Store writes an input or weight tensor"),
    SUBBLOCK_TILING("a Store's sub-blocks tile its block"),
    // links
    MULTICAST_SENDER("a multicasting Load runs on its group's sender"),
    RECV_NOT_RECEIVER("a Recv runs on a receiver of its group"),
    RECV_SHAPE("a Recv's output has the dtype and shape last multicast to its group"),
    ALLREDUCE_SHAPE("an AllReduce's partials and outputs share one dtype and shape"),
    ALLREDUCE_MEMBERS("an AllReduce's partials are on distinct chips"),
    // compute
    DTYPE_MISMATCH("data moves and layout ops keep the dtype; a MatMul is floating; a Reduce keeps its value type (argmax writes i32)"),
    EXPR_TYPE("an expression type-checks and yields its output's value type"),
    BROADCAST("each input of a Generic broadcasts (numpy-style) to its output's shape"),
    MATMUL_SHAPE("a MatMul multiplies rank-2 operands with equal contraction extents into an output of the product's shape"),
    MATMUL_BIAS("a MatMul's bias is floating and broadcasts to the output's shape"),
    MATMUL_SPILL("a MatMul's spill is f32 of the output's shape"),
    REDUCE_AXIS("a Reduce reduces an axis of its input"),
    REDUCE_SHAPE("a Reduce's output is its input with the reduced axis kept at extent 1"),
    EMPTY_REDUCE("an argmax reduces a non-empty axis"),
    LAYOUT_SHAPE("a reshape keeps the element count; a transpose permutes the axes; a slice window lies inside its input; a concat's inputs match off its axis and add up along it"),
    SCALAR_SHAPE("a Scalar stage reads and writes one-element buffers"),
    // limits
    EXPR_TOO_DEEP("an expression nests no deeper than the checker's stack can follow (a limit, not a rule of the brief)");

    private final String summary;

    Rule(String summary) {
        this.summary = summary;
    }

    /** The diagnostic code, the same wherever the rule is checked. */
    public String code() {
        return name();
    }

    /** The rule in one sentence. */
    public String summary() {
        return summary;
    }
}
