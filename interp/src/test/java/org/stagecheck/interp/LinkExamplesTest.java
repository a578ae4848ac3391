package org.stagecheck.interp;

import org.stagecheck.backend.RunResult;
import static org.assertj.core.api.Assertions.assertThat;
import static org.stagecheck.interp.Fixtures.at;
import static org.stagecheck.interp.Fixtures.dims;
import static org.stagecheck.interp.Fixtures.f32;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.ReducePool;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;

/**
 * Interpreter-only behaviour beside the conformance suite (module {@code conformance}, run by
 * {@code InterpreterConformanceTest}, holds the hand-worked values every backend must produce):
 * the faults of multicast and all-reduce stages.
 */
class LinkExamplesTest {

    @Test
    void twoPartialsOnOneChipAreAFault() {
        Site c0 = Site.of(0, 0, 0);
        RunResult r = Fixtures.program().machine(2, 2, 1)
                .input("p0", f32(dims(1), 1))
                .buffer("a", DType.F32, c0, 1).buffer("b", DType.F32, Site.of(0, 1, 0), 1).buffer("r", DType.F32, c0, 1)
                .loadAll("l0", "p0", "a", c0).loadAll("l1", "p0", "b", Site.of(0, 1, 0))
                .stage("ar", c0, List.of("a", "b"), List.of("r"), StageKind.AllReduce.of(ReducePool.SUM, "y", 2))
                .run();
        assertThat(r.faults()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo("ALLREDUCE_MEMBERS"));
    }

    @Test
    void theSenderInsideItsRectangleIsNotAReceiver() {
        Site sender = Site.of(0, 0, 0);
        RunResult r = Fixtures.program().machine(1, 2, 2)
                .input("x", f32(dims(1), 7))
                .group("g", 0, new Rect(0, 0, 2, 2), sender)
                .buffer("src", DType.F32, sender, 1).buffer("rx", DType.F32, sender, 1)
                .stage("mcast", sender, List.of(), List.of("src"), new StageKind.Load("x",
                        new AccessPattern.Block(at(0), Shape.of(1)), 1, "g"))
                .stage("recv", sender, List.of(), List.of("rx"), new StageKind.Recv("g"))
                .run();
        assertThat(r.faults()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo("RECV_NOT_RECEIVER"));
    }

    @Test
    void aRecvWithNothingDeliveredIsAFault() {
        Site rx = Site.of(0, 1, 0);
        RunResult r = Fixtures.program().machine(1, 2, 1)
                .input("x", f32(dims(1), 7))
                .group("g", 0, new Rect(1, 0, 1, 1), Site.of(0, 0, 0))
                .buffer("src", DType.F32, Site.of(0, 0, 0), 1).buffer("rx", DType.F32, rx, 1)
                .stage("recv-too-early", rx, List.of(), List.of("rx"), new StageKind.Recv("g"))
                .stage("mcast", Site.of(0, 0, 0), List.of(), List.of("src"), new StageKind.Load("x",
                        new AccessPattern.Block(at(0), Shape.of(1)), 1, "g"))
                .run();
        assertThat(r.stoppedAtStage()).isEqualTo("recv-too-early");
        assertThat(r.faults()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo("RECV_WITHOUT_LOAD"));
    }
}
