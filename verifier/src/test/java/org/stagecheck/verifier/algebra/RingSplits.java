package org.stagecheck.verifier.algebra;

import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.verifier.adversarial.CorpusRuns;
import org.stagecheck.verifier.fuzz.ClassCase;
import org.stagecheck.verifier.fuzz.SplitClass;

/**
 * Random rings: {@code y = act(x) w} with the contraction split over 3 to 5 chips, reduced by
 * passing a running sum around a ring of the chips. The IR has no point-to-point transfer, so
 * each hop is a two-chip sum all-reduce of the running sum (on the previous chip) and the next
 * chip's partial; the last chip of the ring stores y.
 */
public final class RingSplits {
    public enum Variant {
        RING_IN_CHIP_ORDER(false),
        RING_IN_ANOTHER_ORDER(false),
        /** One hop takes the previous chip's own partial instead of the running sum. */
        STALE_RUNNING_SUM(true),
        /** The chip before the last stores its running sum. */
        STORED_ONE_HOP_EARLY(true),
        /** One hop is a max all-reduce. */
        A_HOP_BY_MAX(true);

        final boolean planted;

        Variant(boolean planted) {
            this.planted = planted;
        }
    }

    private RingSplits() {}

    public static ClassCase random(SplittableRandom r) {
        Variant v = Variants.pick(r, Variant.values(), x -> x.planted);
        int chips = 3 + r.nextInt(3);
        int rows = 1 + r.nextInt(3);
        int depth = 1 + r.nextInt(2);
        int cols = 1 + r.nextInt(4);
        String act = r.nextBoolean() ? "tanh(in0)" : "in0";
        int[] order = new int[chips];
        for (int i = 0; i < chips; i++) {
            order[i] = i;
        }
        if (v != Variant.RING_IN_CHIP_ORDER) {
            for (int i = chips - 1; i > 0; i--) {
                int j = r.nextInt(i + 1);
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
        }
        // hop 1's running sum is the first chip's partial: a stale one from hop 2 on
        int oddHop = (v == Variant.STALE_RUNNING_SUM ? 2 : 1) + r.nextInt(v == Variant.STALE_RUNNING_SUM ? chips - 2 : chips - 1);
        int contraction = chips * depth;
        SplitText parent = new SplitText("row-parallel", 1).input("x", 0, rows, contraction).input("w", 0, contraction, cols)
                .generic(0, "a", new int[] {rows, contraction}, act, "x").matmul(0, "y", "a", "w", false, false).output("y", 0, "y");
        SplitText s = new SplitText("ring", chips);
        for (int c = 0; c < chips; c++) {
            s.input("x." + c, c, rows, depth).shard("x." + c, "x", 1, c * depth, c * depth + depth, contraction);
            s.input("w." + c, c, depth, cols).shard("w." + c, "w", 0, c * depth, c * depth + depth, contraction);
            s.generic(c, "a." + c, new int[] {rows, depth}, act, "x." + c).matmul(c, "p." + c, "a." + c, "w." + c, false, false);
        }
        String running = "p." + order[0];
        String before = running;
        for (int k = 1; k < chips; k++) {
            int from = order[k - 1];
            int to = order[k];
            String in = v == Variant.STALE_RUNNING_SUM && k == oddHop ? "p." + from : running;
            String pool = v == Variant.A_HOP_BY_MAX && k == oddHop ? "max" : "sum";
            s.allReduce("hop" + k, pool, "y", List.of(in, "p." + to), List.of("back" + k + "." + from, "run" + k + "." + to), new int[] {from, to});
            before = running;
            running = "run" + k + "." + to;
        }
        int storer = v == Variant.STORED_ONE_HOP_EARLY ? order[chips - 2] : order[chips - 1];
        String stored = v == Variant.STORED_ONE_HOP_EARLY ? before : running;
        s.output("y." + storer, storer, stored).shard("y." + storer, "y", 0, 0, rows, rows);
        return new ClassCase(SplitClass.RING, v.name(), v.planted, s.program(), s.certificate(), parent.program(), CorpusRuns.Inputs.DEFAULT);
    }
}
