package org.stagecheck.verifier.algebra;

import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.verifier.adversarial.CorpusRuns;
import org.stagecheck.verifier.fuzz.ClassCase;
import org.stagecheck.verifier.fuzz.SplitClass;

/**
 * Random rings, of two kinds. A ring of chips: {@code y = act(x) w} with the contraction split
 * over 3 to 5 chips, reduced by passing a running sum around a ring of the chips (the IR has no
 * point-to-point transfer, so each hop is a two-chip sum all-reduce of the running sum, on the
 * previous chip, and the next chip's partial); the last chip of the ring stores y. A ring of
 * cache slots: a KV cache of W rows written at slot {@code pos mod W} for a parameter
 * {@code pos} in {@code [0, P)} with {@code W < P <= 2W} (so the ring wraps), its columns split
 * over the chips; the evaluator compares the cache after the write for every value of pos.
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
        A_HOP_BY_MAX(true),
        /** Every chip writes its columns of the new row at slot {@code rem(pos, W)}. */
        KV_RING(false),
        /** The slot written as {@code pos - W} from W on (a select): the same slot for {@code pos < 2W}. */
        KV_RING_BY_SELECT(false),
        /** One chip writes at slot {@code pos}, never wrapping (past the cache from W on). */
        KV_RING_NOT_WRAPPED(true),
        /** One chip writes at slot {@code rem(pos + 1, W)}. */
        KV_RING_OFF_BY_ONE(true);

        final boolean planted;

        Variant(boolean planted) {
            this.planted = planted;
        }
    }

    private RingSplits() {}

    public static ClassCase random(SplittableRandom r) {
        Variant v = Variants.pick(r, Variant.values(), x -> x.planted);
        if (v.ordinal() >= Variant.KV_RING.ordinal()) {
            return cache(v, r);
        }
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

    private static ClassCase cache(Variant v, SplittableRandom r) {
        int chips = 2 + r.nextInt(3);
        int slots = 2 + r.nextInt(3);
        int positions = slots + 1 + r.nextInt(slots);
        int width = 1 + r.nextInt(3);
        int dim = chips * width;
        int odd = r.nextInt(chips);
        String act = r.nextBoolean() ? "tanh(in0)" : "in0";
        String wrapped = "rem(param(pos), " + slots + ")";
        SplitText parent = new SplitText("kv-ring", 1).param("pos", 0, positions - 1).state("cache", 0, slots, dim).input("x", 0, 1, dim)
                .generic(0, "row", new int[] {1, dim}, act, "x").scalar(0, "slot", wrapped).storeAt(0, "cache", "row", "@slot", "0");
        SplitText s = new SplitText("kv-ring-split", chips).param("pos", 0, positions - 1);
        for (int c = 0; c < chips; c++) {
            String slot = switch (v) {
                case KV_RING_BY_SELECT -> "select(ge(param(pos), " + slots + "), sub(param(pos), " + slots + "), param(pos))";
                case KV_RING_NOT_WRAPPED -> c == odd ? "param(pos)" : wrapped;
                case KV_RING_OFF_BY_ONE -> c == odd ? "rem(add(param(pos), 1), " + slots + ")" : wrapped;
                case KV_RING, RING_IN_CHIP_ORDER, RING_IN_ANOTHER_ORDER, STALE_RUNNING_SUM, STORED_ONE_HOP_EARLY, A_HOP_BY_MAX -> wrapped;
            };
            s.state("cache." + c, c, slots, width).shard("cache." + c, "cache", 1, c * width, c * width + width, dim);
            s.input("x." + c, c, 1, width).shard("x." + c, "x", 1, c * width, c * width + width, dim);
            s.generic(c, "row." + c, new int[] {1, width}, act, "x." + c).scalar(c, "slot." + c, slot).storeAt(c, "cache." + c, "row." + c, "@slot." + c, "0");
        }
        return new ClassCase(SplitClass.RING, v.name(), v.planted, s.program(), s.certificate(), parent.program(), CorpusRuns.Inputs.DEFAULT);
    }
}
