package org.stagecheck.interp.wellformed;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.BufferDecl;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Machine;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;

/**
 * Each disagreement the fuzzer and its review found, as the smallest program that shows it: both
 * sides now reject it (the validator before any run, the evaluator at run time, with the same code
 * except where noted), or, for the rule that was too strict, both accept.
 */
class FuzzerFindingsTest {
    private static final Site C0 = Site.of(0, 0, 0);

    private static Program program(Machine m, List<Param> params, List<TensorDecl> tensors, List<BufferDecl> buffers, List<Stage> stages) {
        return new Program("finding", m, params, tensors, buffers, List.of(), stages);
    }

    private static List<String> codes(List<Diagnostic> ds) {
        return ds.stream().map(Diagnostic::code).distinct().toList();
    }

    @Test
    void allReducePartialsOnOneChip() {
        Site c1 = Site.of(0, 1, 0);
        Program p = program(new Machine(2, 2, 1), List.of(),
                List.of(new TensorDecl("x", DType.F32, Shape.of(4), 0, TensorRole.INPUT)),
                List.of(new BufferDecl("p0", DType.F32, Shape.of(4), C0), new BufferDecl("p1", DType.F32, Shape.of(4), c1),
                        new BufferDecl("r0", DType.F32, Shape.of(4), C0)),
                List.of(new Stage("l0", C0, List.of(), List.of("p0"), load("x", Shape.of(4))),
                        new Stage("l1", c1, List.of(), List.of("p1"), load("x", Shape.of(4))),
                        new Stage("ar", C0, List.of("p0", "p1"), List.of("r0"), StageKind.AllReduce.of(ReducePool.SUM, "w", 2))));
        Agreement.Verdict v = Agreement.judge(p, 7);
        assertThat(codes(v.findings())).containsExactly("ALLREDUCE_MEMBERS");
        assertThat(codes(v.structural())).containsExactly("ALLREDUCE_MEMBERS");
    }

    @Test
    void argmaxOverAnEmptyAxis() {
        Program p = program(new Machine(1, 1, 1), List.of(),
                List.of(new TensorDecl("x", DType.F32, Shape.of(4, 0), 0, TensorRole.INPUT)),
                List.of(new BufferDecl("xb", DType.F32, Shape.of(4, 0), C0), new BufferDecl("k", DType.I32, Shape.of(4, 1), C0)),
                List.of(new Stage("ld", C0, List.of(), List.of("xb"), load("x", Shape.of(4, 0))),
                        new Stage("arg", C0, List.of("xb"), List.of("k"), new StageKind.Compute(new ComputeOp.Reduce(ReduceFn.ARGMAX, 1)))));
        Agreement.Verdict v = Agreement.judge(p, 7);
        assertThat(codes(v.findings())).containsExactly("EMPTY_REDUCE");
        assertThat(codes(v.structural())).containsExactly("EMPTY_REDUCE");
    }

    @Test
    void streamedStrideWhoseLastBlockOverflows() {
        Program p = program(new Machine(1, 1, 1), List.of(),
                List.of(new TensorDecl("w", DType.F32, Shape.of(12, 8), 0, TensorRole.WEIGHT)),
                List.of(new BufferDecl("wb", DType.F32, Shape.of(12, 8), C0)),
                List.of(new Stage("ld", C0, List.of(), List.of("wb"), new StageKind.Load("w",
                        new AccessPattern.Streamed(List.of(Offset.constant(0), Offset.constant(0)), Shape.of(4, 8), 0, 1L << 62), 3, null))));
        Agreement.Verdict v = Agreement.judge(p, 7);
        // block 2's corner, 2 x 2^62, overflows 64 bits: the validator saturates and refuses, and so does the evaluator
        assertThat(codes(v.findings())).containsExactly("BLOCK_OUT_OF_BOUNDS");
        assertThat(codes(v.structural())).containsExactly("BLOCK_OUT_OF_BOUNDS");
    }

    @Test
    void oneParameterNamedTwiceInAnOffsetIsAcceptedByBoth() {
        Offset twice = new Offset(0, List.of(new Offset.Term.OfParam(2, "pos"), new Offset.Term.OfParam(-1, "pos")));
        Program p = program(new Machine(1, 1, 1), List.of(new Param("pos", 0, 15)),
                List.of(new TensorDecl("cache", DType.F32, Shape.of(16, 8), 0, TensorRole.STATE)),
                List.of(new BufferDecl("row", DType.F32, Shape.of(1, 8), C0)),
                List.of(new Stage("ld", C0, List.of(), List.of("row"), new StageKind.Load("cache",
                        new AccessPattern.Block(List.of(twice, Offset.constant(0)), Shape.of(1, 8)), 1, null))));
        Agreement.Verdict v = Agreement.judge(p, 7);
        assertThat(v.findings()).isEmpty();
        assertThat(v.structural()).isEmpty();
        assertThat(v.conclusive()).isTrue();
    }

    private static StageKind.Load load(String tensor, Shape block) {
        List<Offset> origin = block.dims().stream().map(d -> Offset.constant(0)).toList();
        return new StageKind.Load(tensor, new AccessPattern.Block(origin, block), 1, null);
    }
}
