package org.stagecheck.conformance;

import static org.stagecheck.conformance.CaseBuilder.at;
import static org.stagecheck.conformance.Tensors.dims;
import static org.stagecheck.conformance.Tensors.f32;

import java.util.List;

import org.stagecheck.spec.ir.AccessPattern;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Expr;
import org.stagecheck.spec.ir.Fn;
import org.stagecheck.spec.ir.Rect;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.Site;
import org.stagecheck.spec.ir.StageKind;

/**
 * Multicast Load and Recv (docs/semantics.md, "Load", "Recv"): every receiver of the group's
 * rectangle gets the sender's value; the sender inside its rectangle is not a receiver; a Recv
 * reads the latest delivery.
 */
final class RecvCases {
    private RecvCases() {
    }

    static List<ConformanceCase> cases() {
        return List.of(everyReceiverOfARectangle(), senderInsideItsRectangle(), latestDeliveryWins());
    }

    private static ConformanceCase everyReceiverOfARectangle() {
        // sender (2,0) is outside the 2x2 rectangle at (0,0): four receivers, each stores [7,8] to its row of out
        Site sender = Site.of(0, 2, 0);
        CaseBuilder b = CaseBuilder.of(Family.RECV, "multicast-2x2", "a multicast Load reaches every core of the group's rectangle")
                .machine(1, 3, 2)
                .input("x", f32(dims(1, 2), 7, 8))
                .output("out", DType.F32, 4, 2)
                .group("g", 0, new Rect(0, 0, 2, 2), sender)
                .buffer("src", DType.F32, sender, 1, 2)
                .stage("mcast", sender, List.of(), List.of("src"), new StageKind.Load("x", new AccessPattern.Block(at(0, 0), Shape.of(1, 2)), 1, "g"));
        List<Site> receivers = new Rect(0, 0, 2, 2).sites(0);
        for (int i = 0; i < receivers.size(); i++) {
            Site s = receivers.get(i);
            b.buffer("rx" + i, DType.F32, s, 1, 2)
                    .stage("recv" + i, s, List.of(), List.of("rx" + i), new StageKind.Recv("g"))
                    .stage("store" + i, s, List.of("rx" + i), List.of(), new StageKind.Store("out", new AccessPattern.Block(at(i, 0), Shape.of(1, 2)), 1, 1));
        }
        return b.expect("out", f32(dims(4, 2), 7, 8, 7, 8, 7, 8, 7, 8)).build();
    }

    private static ConformanceCase senderInsideItsRectangle() {
        // group = the row (0,0)-(1,0) with sender (0,0): the one receiver (1,0) doubles what it gets;
        // the sender stores its own copy: out = [[3,-4],[6,-8]]
        Site sender = Site.of(0, 0, 0);
        Site rx = Site.of(0, 1, 0);
        return CaseBuilder.of(Family.RECV, "sender-inside-rectangle", "a sender inside its rectangle keeps its own copy; the other cores receive")
                .machine(1, 2, 1)
                .input("x", f32(dims(1, 2), 3, -4))
                .output("out", DType.F32, 2, 2)
                .group("g", 0, new Rect(0, 0, 2, 1), sender)
                .buffer("src", DType.F32, sender, 1, 2)
                .buffer("got", DType.F32, rx, 1, 2)
                .buffer("twice", DType.F32, rx, 1, 2)
                .stage("mcast", sender, List.of(), List.of("src"), new StageKind.Load("x", new AccessPattern.Block(at(0, 0), Shape.of(1, 2)), 1, "g"))
                .stage("recv", rx, List.of(), List.of("got"), new StageKind.Recv("g"))
                .generic("double", List.of("got"), "twice", Expr.apply(Fn.MUL, Expr.in(0), Expr.f(2.0)))
                .stage("store-sender", sender, List.of("src"), List.of(), new StageKind.Store("out", new AccessPattern.Block(at(0, 0), Shape.of(1, 2)), 1, 1))
                .stage("store-receiver", rx, List.of("twice"), List.of(), new StageKind.Store("out", new AccessPattern.Block(at(1, 0), Shape.of(1, 2)), 1, 1))
                .expect("out", f32(dims(2, 2), 3, -4, 6, -8))
                .build();
    }

    private static ConformanceCase latestDeliveryWins() {
        // x = [[1],[2]]; the sender multicasts row 0, then row 1; the Recv after both reads 2
        Site sender = Site.of(0, 0, 0);
        Site rx = Site.of(0, 1, 0);
        return CaseBuilder.of(Family.RECV, "latest-delivery", "a Recv reads the latest delivery of its group")
                .machine(1, 2, 1)
                .input("x", f32(dims(2, 1), 1, 2))
                .output("out", DType.F32, 1, 1)
                .group("g", 0, new Rect(1, 0, 1, 1), sender)
                .buffer("first", DType.F32, sender, 1, 1)
                .buffer("second", DType.F32, sender, 1, 1)
                .buffer("got", DType.F32, rx, 1, 1)
                .stage("mcast-0", sender, List.of(), List.of("first"), new StageKind.Load("x", new AccessPattern.Block(at(0, 0), Shape.of(1, 1)), 1, "g"))
                .stage("mcast-1", sender, List.of(), List.of("second"), new StageKind.Load("x", new AccessPattern.Block(at(1, 0), Shape.of(1, 1)), 1, "g"))
                .stage("recv", rx, List.of(), List.of("got"), new StageKind.Recv("g"))
                .stage("store", rx, List.of("got"), List.of(), new StageKind.Store("out", new AccessPattern.Block(at(0, 0), Shape.of(1, 1)), 1, 1))
                .expect("out", f32(dims(1, 1), 2))
                .build();
    }
}
