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
import org.stagecheck.spec.ir.TensorRole;

/** Hand-worked examples of the stages that link cores and chips: multicast Load + Recv, AllReduce. */
class LinkExamplesTest {

    @Test
    void aTwoChipAllReduceGivesEveryMemberTheSum() {
        Site c0 = Site.of(0, 0, 0);
        Site c1 = Site.of(1, 0, 0);
        RunResult r = Fixtures.program().machine(2, 1, 1)
                .tensor("p0", TensorRole.INPUT, 0, f32(dims(3), 1, 2, 3))
                .tensor("p1", TensorRole.INPUT, 1, f32(dims(3), 10, 20, 30))
                .buffer("a", DType.F32, c0, 3).buffer("b", DType.F32, c1, 3)
                .buffer("r0", DType.F32, c0, 3).buffer("r1", DType.F32, c1, 3)
                .loadAll("l0", "p0", "a", c0).loadAll("l1", "p1", "b", c1)
                .stage("allreduce", c0, List.of("a", "b"), List.of("r0", "r1"), StageKind.AllReduce.of(ReducePool.SUM, "y", 2))
                .run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.trace().get("allreduce")).hasSize(2);
        assertThat(r.trace().get("allreduce").get(0).toFloats()).containsExactly(11, 22, 33);
        assertThat(r.trace().get("allreduce").get(1).toFloats()).containsExactly(11, 22, 33);
    }

    @Test
    void thePortOrderIsTheFoldOrder() {
        // f32: (1e8 + -1e8) + 1 = 1, but (1 + -1e8) + 1e8 = 0 because 1 - 1e8 rounds to -1e8
        assertThat(threeChipSum(1e8f, -1e8f, 1f)).isEqualTo(1f);
        assertThat(threeChipSum(1f, -1e8f, 1e8f)).isEqualTo(0f);
    }

    private static float threeChipSum(float x, float y, float z) {
        Fixtures p = Fixtures.program().machine(3, 1, 1);
        float[] v = {x, y, z};
        for (int c = 0; c < 3; c++) {
            p.tensor("p" + c, TensorRole.INPUT, c, f32(dims(1), v[c]))
                    .buffer("a" + c, DType.F32, Site.of(c, 0, 0), 1)
                    .loadAll("l" + c, "p" + c, "a" + c, Site.of(c, 0, 0));
        }
        p.buffer("r", DType.F32, Site.of(0, 0, 0), 1)
                .stage("ar", Site.of(0, 0, 0), List.of("a0", "a1", "a2"), List.of("r"), StageKind.AllReduce.of(ReducePool.SUM, "y", 3));
        RunResult r = p.run();
        assertThat(r.faults()).isEmpty();
        return r.trace().get("ar").getFirst().getFloat(0);
    }

    @Test
    void twoPartialsOnOneChipAreAFault() {
        Site c0 = Site.of(0, 0, 0);
        RunResult r = Fixtures.program().machine(2, 2, 1)
                .input("p0", f32(dims(1), 1))
                .buffer("a", DType.F32, c0, 1).buffer("b", DType.F32, Site.of(0, 1, 0), 1).buffer("r", DType.F32, c0, 1)
                .loadAll("l0", "p0", "a", c0).loadAll("l1", "p0", "b", c0)
                .stage("ar", c0, List.of("a", "b"), List.of("r"), StageKind.AllReduce.of(ReducePool.SUM, "y", 2))
                .run();
        assertThat(r.faults()).singleElement().satisfies(d -> assertThat(d.code()).isEqualTo("ALLREDUCE_MEMBERS"));
    }

    @Test
    void aMulticastToA2x2RectangleReachesEveryReceiver() {
        Site sender = Site.of(0, 2, 0); // outside the rectangle: four receivers
        Fixtures p = Fixtures.program().machine(1, 3, 2)
                .input("x", f32(dims(1, 2), 7, 8))
                .output("out", DType.F32, 4, 2)
                .group("g", 0, new Rect(0, 0, 2, 2), sender)
                .buffer("src", DType.F32, sender, 1, 2)
                .stage("mcast", sender, List.of(), List.of("src"), new StageKind.Load("x",
                        new AccessPattern.Block(at(0, 0), Shape.of(1, 2)), 1, "g"));
        List<Site> receivers = new Rect(0, 0, 2, 2).sites(0);
        for (int i = 0; i < receivers.size(); i++) {
            Site s = receivers.get(i);
            p.buffer("rx" + i, DType.F32, s, 1, 2)
                    .stage("recv" + i, s, List.of(), List.of("rx" + i), new StageKind.Recv("g"))
                    .stage("store" + i, s, List.of("rx" + i), List.of(), new StageKind.Store("out",
                            new AccessPattern.Block(at(i, 0), Shape.of(1, 2)), 1, 1));
        }
        RunResult r = p.run();
        assertThat(r.faults()).isEmpty();
        assertThat(r.tensor("out").toFloats()).containsExactly(7, 8, 7, 8, 7, 8, 7, 8);
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
