package org.stagecheck.spec.validate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.spec.ir.ProgramBuilder.block;
import static org.stagecheck.spec.ir.ProgramBuilder.load;
import static org.stagecheck.spec.ir.ProgramBuilder.program;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Group;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.spec.json.ProgramCodec;

class ValidatorTest {
    private static final DType F32 = DType.F32;

    /** The validator's findings on the built program, rendered one per line: what the tests pin. */
    private static String validate(org.stagecheck.spec.ir.Program p) {
        return new Validator().validate(p).stream().map(org.stagecheck.spec.diag.Diagnostic::render).collect(Collectors.joining("\n"));
    }
    private static final DType I32 = DType.I32;

    static Stream<Path> examples() throws IOException {
        return Files.list(Path.of("..", "examples")).filter(p -> p.toString().endsWith(".json")).sorted();
    }

    @ParameterizedTest
    @MethodSource("examples")
    void everyExampleIsWellFormed(Path file) throws Exception {
        var program = new ProgramCodec().read(new JsonReader().read(file));
        assertThat(new Validator().validate(program)).isEmpty();
    }

    @Test
    void aDanglingBufferReferenceNamesStageAndPort() {
        String out = validate(program()
                .tensor("x", F32, TensorRole.INPUT, 4).buffer("a", F32, 4)
                .stage("copy", List.of("a"), List.of("b"), new StageKind.Compute(new ComputeOp.Generic(Expr.in(0))))
                .build());
        assertThat(out).isEqualTo("UNKNOWN_BUFFER stage #0 'copy' at /stages/0/outs/0 buffer 'b': names buffer 'b', which is not declared");
    }

    @Test
    void aMatMulWhoseContractionExtentsDifferIsNamed() {
        String out = validate(program()
                .buffer("a", F32, 2, 3).buffer("b", F32, 4, 5).buffer("c", F32, 2, 5)
                .stage("mm", List.of("a", "b"), List.of("c"), new StageKind.Compute(ComputeOp.MatMul.plain()))
                .build());
        assertThat(out).isEqualTo("MATMUL_SHAPE stage #0 'mm' at /stages/0/ins/1 buffer 'b': contraction extents differ: 'a' gives K=3 but 'b' gives K=4");
    }

    @Test
    void transposedOperandsAreMeasuredTransposed() {
        String out = validate(program()
                .buffer("a", F32, 3, 2).buffer("b", F32, 5, 3).buffer("c", F32, 2, 5)
                .stage("mm", List.of("a", "b"), List.of("c"), new StageKind.Compute(new ComputeOp.MatMul(true, true, null, null)))
                .build());
        assertThat(out).isEmpty();
    }

    @Test
    void subBlocksThatDoNotTileTheBlockAreRejected() {
        String out = validate(program()
                .tensor("y", F32, TensorRole.OUTPUT, 4, 8).buffer("a", F32, 4, 8)
                .stage("st", List.of("a"), List.of(), new StageKind.Store("y", block(4, 8), 3, 4))
                .build());
        assertThat(out).isEqualTo("SUBBLOCK_TILING stage #0 'st' at /stages/0/kind/subBlocks: sub-blocks of 3x4 do not tile the 4x8 block");
    }

    @Test
    void aParameterDependentBlockMustFitForEveryValueInRange() {
        var pattern = new AccessPattern.Block(List.of(Offset.param("pos", 1, 0), Offset.constant(0)), Shape.of(1, 8));
        String ok = validate(program().param("pos", 0, 15)
                .tensor("cache", F32, TensorRole.STATE, 16, 8).buffer("row", F32, 1, 8)
                .stage("ld", List.of(), List.of("row"), load("cache", pattern)).build());
        String bad = validate(program().param("pos", 0, 16)
                .tensor("cache", F32, TensorRole.STATE, 16, 8).buffer("row", F32, 1, 8)
                .stage("ld", List.of(), List.of("row"), load("cache", pattern)).build());
        assertThat(ok).isEmpty();
        assertThat(bad).isEqualTo("BLOCK_OUT_OF_BOUNDS stage #0 'ld' at /stages/0/kind/pattern/origin/0: along axis 0 the block covers [0, 17) for some parameter value in range, outside tensor 'cache' of extent 16");
    }

    @Test
    void theLastStreamedBlockMustFitToo() {
        var streamed = new AccessPattern.Streamed(List.of(Offset.constant(0), Offset.constant(0)), Shape.of(4, 8), 0, 4);
        String out = validate(program()
                .tensor("w", F32, TensorRole.WEIGHT, 12, 8).buffer("wb", F32, 16, 8)
                .stage("ld", List.of(), List.of("wb"), new StageKind.Load("w", streamed, 4, null)).build());
        assertThat(out).isEqualTo("BLOCK_OUT_OF_BOUNDS stage #0 'ld' at /stages/0/kind/pattern/origin/0: along axis 0 the block covers [0, 16) for some parameter value in range, outside tensor 'w' of extent 12");
    }

    @Test
    void expressionsMustTypeCheckWithoutImplicitConversions() {
        String out = validate(program()
                .buffer("f", F32, 4).buffer("i", I32, 4).buffer("o", F32, 4)
                .stage("mix", List.of("f", "i"), List.of("o"), new StageKind.Compute(new ComputeOp.Generic(Expr.apply(org.stagecheck.spec.ir.Fn.ADD, Expr.in(0), Expr.in(1)))))
                .build());
        assertThat(out).isEqualTo("EXPR_TYPE stage #0 'mix' at /stages/0/kind/op/expr: operands of different types FLOAT and INT in add(in0, in1) (write an explicit cast)");
    }

    @Test
    void inputsMustBroadcastToTheOutput() {
        String out = validate(program()
                .buffer("a", F32, 4, 8).buffer("b", F32, 3, 1).buffer("o", F32, 4, 8)
                .stage("add", List.of("a", "b"), List.of("o"), new StageKind.Compute(new ComputeOp.Generic(Expr.apply(org.stagecheck.spec.ir.Fn.ADD, Expr.in(0), Expr.in(1)))))
                .build());
        assertThat(out).isEqualTo("BROADCAST stage #0 'add' at /stages/0/ins/1 buffer 'b': input 'b' of shape [3, 1] does not broadcast to the output shape [4, 8]");
    }

    @Test
    void anIndexBufferMustBeRankOneI32() {
        var gather = new AccessPattern.Indirect("ids", List.of(Offset.constant(0)), Shape.of(8));
        String out = validate(program()
                .tensor("table", F32, TensorRole.WEIGHT, 16, 8).buffer("ids", F32, 4).buffer("rows", F32, 4, 8)
                .stage("gather", List.of(), List.of("rows"), load("table", gather)).build());
        assertThat(out).isEqualTo("INDEX_BUFFER_TYPE stage #0 'gather' at /stages/0/kind/pattern/indexBuffer buffer 'ids': index buffer 'ids' must be a rank-1 i32 buffer, not f32[4]");
    }

    @Test
    void matmulBiasAndSpillAreCheckedAgainstTheirRoles() {
        String out = validate(program()
                .buffer("a", F32, 2, 3).buffer("b", F32, 3, 5).buffer("c", DType.BF16, 2, 5)
                .buffer("bias", F32, 3).buffer("acc", DType.BF16, 2, 5)
                .stage("mm", List.of("a", "b"), List.of("c"), new StageKind.Compute(new ComputeOp.MatMul(false, false, "bias", "acc")))
                .build());
        assertThat(out).isEqualTo("""
                MATMUL_BIAS stage #0 'mm' at /stages/0/kind/op/bias buffer 'bias': bias 'bias' (f32[3]) must be floating and broadcast to the output shape [2, 5]
                MATMUL_SPILL stage #0 'mm' at /stages/0/kind/op/spill buffer 'acc': spill 'acc' is the f32 accumulator and must be f32[2, 5], not bf16[2, 5]""");
    }

    @Test
    void aMulticastMustComeFromTheGroupsSenderAndReachOnlyReceivers() {
        Group g = new Group("g", 0, new Rect(0, 0, 2, 1), Site.of(0, 0, 0));
        String out = validate(program().machine(1, 2, 2).group(g)
                .tensor("x", F32, TensorRole.INPUT, 4)
                .bufferAt("x0", F32, Site.of(0, 1, 0), 4).bufferAt("x1", F32, Site.of(0, 1, 1), 4)
                .stageAt("ld", Site.of(0, 1, 0), List.of(), List.of("x0"), new StageKind.Load("x", block(4), 1, "g"))
                .stageAt("rv", Site.of(0, 1, 1), List.of(), List.of("x1"), new StageKind.Recv("g"))
                .build());
        assertThat(out).isEqualTo("""
                MULTICAST_SENDER stage #0 'ld' at /stages/0/kind/multicast: multicasts to group 'g' whose sender is (0,0,0), but the Load runs on (0,1,0)
                RECV_NOT_RECEIVER stage #1 'rv' at /stages/1/site: core (0,1,1) is not a receiver of group 'g'""");
    }

    @Test
    void reduceKeepsTheAxisAndArgmaxWritesIndices() {
        String out = validate(program()
                .buffer("x", F32, 4, 8).buffer("m", F32, 4).buffer("k", F32, 4, 1)
                .stage("max", List.of("x"), List.of("m"), new StageKind.Compute(new ComputeOp.Reduce(ReduceFn.MAX, 1)))
                .stage("arg", List.of("x"), List.of("k"), new StageKind.Compute(new ComputeOp.Reduce(ReduceFn.ARGMAX, 1)))
                .build());
        assertThat(out).isEqualTo("""
                REDUCE_SHAPE stage #0 'max' at /stages/0/outs/0 buffer 'm': reducing axis 1 of [4, 8] gives [4, 1] (the axis is kept with extent 1), not [4]
                DTYPE_MISMATCH stage #1 'arg' at /stages/1/outs/0 buffer 'k': argmax writes i32 indices; 'k' is f32""");
    }

    @Test
    void layoutOpsAreChecked() {
        String out = validate(program()
                .buffer("x", F32, 2, 3).buffer("t", F32, 2, 3).buffer("c", F32, 2, 7).buffer("s", F32, 2, 2)
                .stage("tr", List.of("x"), List.of("t"), new StageKind.Compute(new ComputeOp.Transpose(List.of(1, 0))))
                .stage("cat", List.of("x", "x"), List.of("c"), new StageKind.Compute(new ComputeOp.Concat(1)))
                .stage("sl", List.of("x"), List.of("s"), new StageKind.Compute(new ComputeOp.Slice(List.of(0, 2))))
                .build());
        assertThat(out).isEqualTo("""
                LAYOUT_SHAPE stage #0 'tr' at /stages/0/outs/0 buffer 't': transposing [2, 3] by [1, 0] gives [3, 2], not [2, 3]
                LAYOUT_SHAPE stage #1 'cat' at /stages/1/outs/0 buffer 'c': the inputs add up to 6 along axis 1 but output 'c' has 7
                LAYOUT_SHAPE stage #2 'sl' at /stages/2/kind/op/starts/1: the window [2, 4) leaves axis 1 of extent 3""");
    }

    @Test
    void scalarStagesWorkOnOneElementBuffers() {
        String out = validate(program().param("pos", 0, 7)
                .buffer("slot", I32, 2)
                .stage("sc", List.of(), List.of("slot"), new StageKind.Scalar(new ScalarBody(List.of(Expr.apply(org.stagecheck.spec.ir.Fn.ADD, new Expr.ParamRef("pos"), Expr.f(1.0))))))
                .build());
        assertThat(out).isEqualTo("""
                SCALAR_SHAPE stage #0 'sc' at /stages/0/outs/0 buffer 'slot': a scalar stage writes one-element buffers; 'slot' has shape [2]
                EXPR_TYPE stage #0 'sc' at /stages/0/kind/body/0: operands of different types INT and FLOAT in add(param(pos), 1.0) (write an explicit cast)""");
    }

    @Test
    void allReducePartialsAndOutputsAgree() {
        String out = validate(program().machine(2, 1, 1)
                .bufferAt("p0", F32, Site.of(0, 0, 0), 4).bufferAt("p1", F32, Site.of(1, 0, 0), 5)
                .bufferAt("r0", F32, Site.of(0, 0, 0), 4).bufferAt("r1", F32, Site.of(1, 0, 0), 4)
                .stage("ar", List.of("p0", "p1"), List.of("r0", "r1"), StageKind.AllReduce.of(ReducePool.SUM, "w", 2))
                .build());
        assertThat(out).isEqualTo("ALLREDUCE_SHAPE stage #0 'ar' at /stages/0/ins/1 buffer 'p1': buffer 'p1' is f32[5] but 'p0' is f32[4]; all partials and outputs agree");
    }

    @Test
    void duplicatesOversizeAndReadOnlyStoresAreFoundTogether() {
        String out = validate(program()
                .tensor("w", F32, TensorRole.WEIGHT, 4).tensor("w", F32, TensorRole.WEIGHT, 65536, 65536)
                .buffer("a", F32, 4)
                .stage("st", List.of("a"), List.of(), new StageKind.Store("w", block(4), 1, 1))
                .stage("st", List.of("a"), List.of(), new StageKind.Store("w", block(4), 1, 1))
                .build());
        assertThat(out).isEqualTo("""
                DUPLICATE_ID at /tensors/1/name: tensor 'w' is declared twice
                SIZE_TOO_LARGE at /tensors/1/shape: tensor 'w' has shape [65536, 65536], more than the 2147483639 elements one tensor may hold
                STORE_READ_ONLY stage #0 'st' at /stages/0/kind/tensor: stores into weight tensor 'w', which a program only reads
                DUPLICATE_ID stage #1 'st' at /stages/1/id: stage id 'st' is used by an earlier stage
                STORE_READ_ONLY stage #1 'st' at /stages/1/kind/tensor: stores into weight tensor 'w', which a program only reads""");
    }
    /** Differential fuzzer finding (PORT_DUPLICATE mutant): the evaluator faults ALLREDUCE_MEMBERS, the validator accepted. */
    @Test
    void allReduceMembersOnOneChipAreRejected() {
        String out = validate(program().machine(2, 2, 1)
                .bufferAt("p0", F32, Site.of(0, 0, 0), 4).bufferAt("p1", F32, Site.of(0, 1, 0), 4)
                .bufferAt("r0", F32, Site.of(0, 0, 0), 4).bufferAt("r1", F32, Site.of(0, 1, 0), 4)
                .stage("ar", List.of("p0", "p1"), List.of("r0", "r1"), StageKind.AllReduce.of(ReducePool.SUM, "w", 2))
                .build());
        assertThat(out).isEqualTo("ALLREDUCE_MEMBERS stage #0 'ar' at /stages/0/ins/1 buffer 'p1': partial 'p1' is on chip 0, which already holds partial 'p0'; the partials of an all-reduce are on distinct chips");
    }

    /** Fuzzer review finding: the evaluator faults EMPTY_REDUCE on a declared empty axis, the validator accepted. */
    @Test
    void argmaxOverAnEmptyAxisIsRejectedButSumIsNot() {
        String out = validate(program()
                .buffer("x", F32, 4, 0).buffer("k", I32, 4, 1).buffer("s", F32, 4, 1)
                .stage("arg", List.of("x"), List.of("k"), new StageKind.Compute(new ComputeOp.Reduce(ReduceFn.ARGMAX, 1)))
                .stage("sum", List.of("x"), List.of("s"), new StageKind.Compute(new ComputeOp.Reduce(ReduceFn.SUM, 1)))
                .build());
        assertThat(out).isEqualTo("EMPTY_REDUCE stage #0 'arg' at /stages/0/kind/op/axis: argmax over axis 1 of [4, 0], which is empty, has no answer");
    }

    /** Fuzzer review finding: (numBlocks - 1) x stride wrapped negative and a block far past the tensor passed. */
    @Test
    void aStreamedStrideWhoseLastBlockOverflowsIsOutOfBounds() {
        var streamed = new AccessPattern.Streamed(List.of(Offset.constant(0), Offset.constant(0)), Shape.of(4, 8), 0, 1L << 62);
        String out = validate(program()
                .tensor("w", F32, TensorRole.WEIGHT, 12, 8).buffer("wb", F32, 12, 8)
                .stage("ld", List.of(), List.of("wb"), new StageKind.Load("w", streamed, 3, null)).build());
        assertThat(out).isEqualTo("BLOCK_OUT_OF_BOUNDS stage #0 'ld' at /stages/0/kind/pattern/origin/0: along axis 0 the block covers [0, 9223372036854775807) for some parameter value in range, outside tensor 'w' of extent 12");
    }

    /** Fuzzer finding (ORIGIN_TERM mutant): terms of one parameter were bounded independently, rejecting a block that always fits. */
    @Test
    void anOffsetNamingOneParameterTwiceIsBoundedExactly() {
        var twice = new Offset(0, List.of(new Offset.Term.OfParam(2, "pos"), new Offset.Term.OfParam(-1, "pos")));
        var pattern = new AccessPattern.Block(List.of(twice, Offset.constant(0)), Shape.of(1, 8));
        String out = validate(program().param("pos", 0, 15)
                .tensor("cache", F32, TensorRole.STATE, 16, 8).buffer("row", F32, 1, 8)
                .stage("ld", List.of(), List.of("row"), load("cache", pattern)).build());
        assertThat(out).isEmpty();
    }

    /** The evaluator adds term by term in exact 64-bit arithmetic: cancelling terms that overflow on the way are still rejected. */
    @Test
    void cancellingTermsThatOverflowOnTheWayAreStillOutOfBounds() {
        long huge = Long.MAX_VALUE / 2;
        var cancelling = new Offset(0, List.of(new Offset.Term.OfParam(huge, "pos"), new Offset.Term.OfParam(-huge, "pos")));
        var pattern = new AccessPattern.Block(List.of(cancelling, Offset.constant(0)), Shape.of(1, 8));
        String out = validate(program().param("pos", 0, 4)
                .tensor("cache", F32, TensorRole.STATE, 16, 8).buffer("row", F32, 1, 8)
                .stage("ld", List.of(), List.of("row"), load("cache", pattern)).build());
        assertThat(out).startsWith("BLOCK_OUT_OF_BOUNDS stage #0 'ld' at /stages/0/kind/pattern/origin/0");
    }
}
