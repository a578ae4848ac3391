package org.stagecheck.spec.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Offset;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/** The facts {@link Dataflow} derives: last writers, reads before write, stores and group loads. */
class DataflowTest {
    private static final Site SITE = Site.of(0, 0, 0);
    private static final AccessPattern ROW = new AccessPattern.Block(List.of(Offset.constant(0), Offset.constant(0)), Shape.of(1, 4));

    private static Stage stage(String id, List<String> ins, List<String> outs, StageKind kind) {
        return new Stage(id, SITE, ins, outs, kind);
    }

    private static Stage load(String id, String tensor, String out) {
        return stage(id, List.of(), List.of(out), new StageKind.Load(tensor, ROW, 1, null));
    }

    private static Stage matmul(String id, String out, String spill) {
        return stage(id, List.of("a", "b"), List.of(out), new StageKind.Compute(new ComputeOp.MatMul(false, false, null, spill)));
    }

    /**
     * The spill question, decided once: a MatMul reads its spill (each accumulator starts from its
     * value) and writes it back; a spill no stage wrote reads as +0, so it is no read before write.
     * A second MatMul accumulating into the same spill therefore reads the first one's result.
     */
    @Test
    void aMatMulReadsAndWritesItsSpillAndMayReadItUnwritten() {
        Dataflow f = Dataflow.of(List.of(load("la", "A", "a"), load("lb", "B", "b"), matmul("m1", "c1", "acc"), matmul("m2", "c2", "acc")));
        Dataflow.Read first = f.reads(2).getLast();
        assertThat(first.buffer()).isEqualTo("acc");
        assertThat(first.path()).isEqualTo("kind/op/spill");
        assertThat(first.writer()).isEqualTo(Dataflow.NONE);
        assertThat(first.beforeWrite()).isFalse();
        assertThat(f.readsBeforeWrite(2)).isEmpty();
        assertThat(f.writes(2)).containsExactly("c1", "acc");
        assertThat(f.reads(3).getLast().writer()).isEqualTo(2);
        assertThat(f.producers(3)).containsExactly(0, 1, 2);
        assertThat(f.producers(2)).containsExactly(0, 1);
    }

    @Test
    void aPortOrABiasNoStageWroteIsReadBeforeWrite() {
        Stage add = stage("add", List.of("a", "z"), List.of("c"), new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.ADD, Expr.in(0), Expr.in(1)))));
        Stage biased = stage("mm", List.of("a", "c"), List.of("d"), new StageKind.Compute(new ComputeOp.MatMul(false, false, "bias", "acc")));
        Dataflow f = Dataflow.of(List.of(load("la", "A", "a"), add, biased));
        assertThat(f.readsBeforeWrite(1)).containsExactly("z");
        assertThat(f.reads(1).get(1).path()).isEqualTo("ins/1");
        assertThat(f.readsBeforeWrite(2)).containsExactly("bias");
        assertThat(f.reads(2).get(2).path()).isEqualTo("kind/op/bias");
        assertThat(f.producers(2)).containsExactly(0, 1);
    }

    @Test
    void aLoadReadsTheEarlierStoresIntoItsTensorAndARecvItsGroupsLatestLoad() {
        Stage store = stage("st", List.of("a"), List.of(), new StageKind.Store("T", ROW, 1, 4));
        Stage mcast1 = stage("m1", List.of(), List.of("x"), new StageKind.Load("A", ROW, 1, "g"));
        Stage mcast2 = stage("m2", List.of(), List.of("x"), new StageKind.Load("A", ROW, 1, "g"));
        Stage recv = stage("r", List.of(), List.of("y"), new StageKind.Recv("g"));
        Stage early = stage("r0", List.of(), List.of("y"), new StageKind.Recv("h"));
        Dataflow f = Dataflow.of(List.of(load("la", "A", "a"), load("before", "T", "u"), store, load("after", "T", "v"), mcast1, mcast2, recv, early));
        assertThat(f.storesBefore(1)).isEmpty();
        assertThat(f.storesBefore(3)).containsExactly(2);
        assertThat(f.producers(3)).containsExactly(2);
        assertThat(f.storesInto("T")).containsExactly(2);
        assertThat(f.groupLoad(6)).isEqualTo(5);
        assertThat(f.producers(6)).containsExactly(5);
        assertThat(f.groupLoad(7)).isEqualTo(Dataflow.NONE);
        assertThat(f.groupLoad(5)).isEqualTo(Dataflow.NONE);
    }

    @Test
    void aWriteAfterTheReadIsNotItsProducer() {
        Stage add = stage("add", List.of("a"), List.of("a"), new StageKind.Compute(new ComputeOp.Generic(Expr.in(0))));
        Dataflow f = Dataflow.of(List.of(load("la", "A", "a"), add, stage("neg", List.of("a"), List.of("b"),
                new StageKind.Compute(new ComputeOp.Generic(Expr.apply(Fn.NEG, Expr.in(0)))))));
        assertThat(f.reads(1).getFirst().writer()).isEqualTo(0);
        assertThat(f.reads(2).getFirst().writer()).isEqualTo(1);
    }
}
