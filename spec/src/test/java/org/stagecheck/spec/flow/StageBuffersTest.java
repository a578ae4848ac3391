package org.stagecheck.spec.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.ReduceFn;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.ScalarBody;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * {@link Stage#buffersRead()} and {@link Stage#buffersWritten()} on a stage of every kind and
 * every compute op, against what each kind's meaning says it reads and writes (brief, "Stages"),
 * written out by an exhaustive switch: a new kind or op fails to compile here until it is stated.
 */
class StageBuffersTest {
    private static final Site SITE = Site.of(0, 0, 0);
    private static final List<Offset> AT_INDEX = List.of(new Offset(0, List.of(new Offset.Term.OfBuffer(1, "pos"))), Offset.constant(0));

    private static Stage stage(List<String> ins, List<String> outs, StageKind kind) {
        return new Stage("s", SITE, ins, outs, kind);
    }

    /** One stage of every kind, and a Compute of every op (a matmul with and without its bias and spill). */
    static List<Stage> everyKind() {
        List<Stage> out = new ArrayList<>();
        out.add(stage(List.of(), List.of("x"), new StageKind.Load("t", new AccessPattern.Block(AT_INDEX, Shape.of(1, 4)), 1, null)));
        out.add(stage(List.of(), List.of("x"), new StageKind.Load("t", new AccessPattern.Indirect("idx", List.of(Offset.constant(0), Offset.constant(0)),
                Shape.of(1, 4)), 1, "g")));
        out.add(stage(List.of(), List.of("x"), new StageKind.Load("t", new AccessPattern.Streamed(List.of(Offset.constant(0), Offset.constant(0)),
                Shape.of(1, 4), 0, 1), 2, null)));
        out.add(stage(List.of("y"), List.of(), new StageKind.Store("t", new AccessPattern.Block(AT_INDEX, Shape.of(1, 4)), 1, 4)));
        out.add(stage(List.of(), List.of("r"), new StageKind.Recv("g")));
        out.add(stage(List.of("p0", "p1"), List.of("q0", "q1"), new StageKind.AllReduce(ReducePool.SUM, "w",
                new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1))))));
        out.add(stage(List.of("a", "b"), List.of("c"), new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.MUL, Expr.in(0), Expr.in(1))))));
        out.add(stage(List.of("a", "b"), List.of("c"), new StageKind.Compute(ComputeOp.MatMul.plain())));
        out.add(stage(List.of("a", "b"), List.of("c"), new StageKind.Compute(new ComputeOp.MatMul(false, true, "bias", "acc"))));
        out.add(stage(List.of("a"), List.of("c"), new StageKind.Compute(new ComputeOp.Reduce(ReduceFn.SUM, 1))));
        out.add(stage(List.of("a"), List.of("c"), new StageKind.Compute(new ComputeOp.Reshape())));
        out.add(stage(List.of("a"), List.of("c"), new StageKind.Compute(new ComputeOp.Transpose(List.of(1, 0)))));
        out.add(stage(List.of("a"), List.of("c"), new StageKind.Compute(new ComputeOp.Slice(List.of(0, 1)))));
        out.add(stage(List.of("a", "b"), List.of("c"), new StageKind.Compute(new ComputeOp.Concat(0))));
        out.add(stage(List.of("n"), List.of("m"), new StageKind.Scalar(new ScalarBody(List.of(Expr.in(0))))));
        return out;
    }

    private record Expected(List<String> reads, List<String> writes) {}

    /** What each kind reads and writes, stated from its meaning. */
    private static Expected expected(Stage s) {
        return switch (s.kind()) {
            // a load reads its tensor (not a buffer) and the buffers its pattern names
            case StageKind.Load l -> new Expected(l.pattern() instanceof AccessPattern.Indirect ? List.of("idx")
                    : l.pattern() instanceof AccessPattern.Block ? List.of("pos") : List.of(), s.outs());
            // a store reads its input and its pattern's buffers, and writes a tensor, no buffer
            case StageKind.Store st -> new Expected(List.of("y", "pos"), List.of());
            // the delivery is the group's, not a buffer
            case StageKind.Recv r -> new Expected(List.of(), List.of("r"));
            case StageKind.AllReduce a -> new Expected(List.of("p0", "p1"), List.of("q0", "q1"));
            case StageKind.Compute c -> switch (c.op()) {
                // the spill is read (the accumulators start from it) and written back
                case ComputeOp.MatMul m when m.spill() != null -> new Expected(List.of("a", "b", "bias", "acc"), List.of("c", "acc"));
                case ComputeOp.MatMul m -> new Expected(List.of("a", "b"), List.of("c"));
                case ComputeOp.Generic g -> new Expected(s.ins(), s.outs());
                case ComputeOp.Reduce r -> new Expected(s.ins(), s.outs());
                case ComputeOp.Reshape r -> new Expected(s.ins(), s.outs());
                case ComputeOp.Transpose t -> new Expected(s.ins(), s.outs());
                case ComputeOp.Slice sl -> new Expected(s.ins(), s.outs());
                case ComputeOp.Concat cc -> new Expected(s.ins(), s.outs());
            };
            case StageKind.Scalar sc -> new Expected(List.of("n"), List.of("m"));
        };
    }

    @Test
    void everyKindReadsAndWritesWhatItsMeaningSays() {
        Set<String> kinds = new HashSet<>();
        for (Stage s : everyKind()) {
            Expected e = expected(s);
            assertThat(s.buffersRead()).as(s.kind().toString()).containsExactlyElementsOf(e.reads());
            assertThat(s.buffersWritten()).as(s.kind().toString()).containsExactlyElementsOf(e.writes());
            kinds.add(s.kind().tag());
        }
        assertThat(kinds).containsExactlyInAnyOrder("Load", "Store", "Recv", "AllReduce", "Compute", "Scalar");
    }
}
