package org.stagecheck.verifier.algebra;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.verifier.adversarial.CorpusRuns;
import org.stagecheck.verifier.fuzz.ClassCase;
import org.stagecheck.verifier.fuzz.SplitClass;

/**
 * Random all-gathers built from all-reduces (the pattern of {@link AllGatherByAllReduceTest}, with
 * random sizes, activations and pools): the parent computes {@code y = act(x w)}; chip c computes
 * columns {@code [c*width, (c+1)*width)}, lays them between padding the pool ignores (0 under a
 * sum, -inf under a max, inf under a min) in a buffer as wide as {@code y}, and an all-reduce
 * gives every chip all of {@code y}.
 */
public final class GatherSplits {
    public enum Variant {
        GATHERED(false),
        /** One chip lays its columns at the next chip's place. */
        PLACED_AT_ANOTHER_CHIPS_PLACE(true),
        /** One chip computes the next chip's columns (and its certificate says so) at its own place. */
        ANOTHER_CHIPS_COLUMNS(true),
        /** The padding is one the pool does not ignore (0 under a max or min of values of either sign, 1 under a sum). */
        PADDING_THE_POOL_KEEPS(true),
        /**
         * Zeros under a max, of values that are never negative (exp, sigmoid): right, since
         * {@code max(v, 0) = v} there, but the checker takes only the pool's identity for padding.
         */
        ZERO_PADDING_UNDER_A_MAX_OF_POSITIVE_VALUES(false),
        /** One chip contributes padding only. */
        A_CHIP_SENDS_PADDING_ONLY(true);

        final boolean planted;

        Variant(boolean planted) {
            this.planted = planted;
        }
    }

    private static final String[] ACTIVATIONS = {"in0", "tanh(in0)", "exp(in0)", "sigmoid(in0)", "mul(in0, 0.5)"};
    private static final String[] EITHER_SIGN = {"in0", "tanh(in0)", "mul(in0, 0.5)"};
    private static final String[] POSITIVE = {"exp(in0)", "sigmoid(in0)"};
    private static final String[] POOLS = {"sum", "max", "min"};

    private GatherSplits() {}

    private static String ignoredBy(String pool) {
        return switch (pool) {
            case "sum" -> "0.0";
            case "max" -> "-inf";
            default -> "inf";
        };
    }

    private static String keptBy(String pool) {
        return pool.equals("sum") ? "1.0" : "0.0";
    }

    /** The parent: {@code y = act(x w)}, x of {@code [rows, inner]} and w of {@code [inner, cols]}. */
    static SplitText parent(int rows, int inner, int cols, String act) {
        return new SplitText("column-parallel", 1).input("x", 0, rows, inner).input("w", 0, inner, cols)
                .matmul(0, "h", "x", "w", false, false).generic(0, "y", new int[] {rows, cols}, act, "h").output("y", 0, "y");
    }

    public static ClassCase random(SplittableRandom r) {
        Variant v = Variants.pick(r, Variant.values(), x -> x.planted);
        int chips = 2 + r.nextInt(3);
        int rows = 1 + r.nextInt(3);
        int inner = 2 + r.nextInt(3);
        int width = 1 + r.nextInt(3);
        String pool = v == Variant.ZERO_PADDING_UNDER_A_MAX_OF_POSITIVE_VALUES ? "max" : POOLS[r.nextInt(POOLS.length)];
        String[] acts = switch (v) {
            // zeros under a max or min change values of either sign
            case PADDING_THE_POOL_KEEPS -> pool.equals("sum") ? ACTIVATIONS : EITHER_SIGN;
            case ZERO_PADDING_UNDER_A_MAX_OF_POSITIVE_VALUES -> POSITIVE;
            case GATHERED, PLACED_AT_ANOTHER_CHIPS_PLACE, ANOTHER_CHIPS_COLUMNS, A_CHIP_SENDS_PADDING_ONLY -> ACTIVATIONS;
        };
        String act = acts[r.nextInt(acts.length)];
        int odd = r.nextInt(chips);
        int cols = chips * width;
        SplitText parent = parent(rows, inner, cols, act);
        SplitText s = new SplitText("all-gather", chips);
        List<String> gs = new ArrayList<>();
        List<String> ys = new ArrayList<>();
        for (int c = 0; c < chips; c++) {
            int computed = v == Variant.ANOTHER_CHIPS_COLUMNS && c == odd ? (c + 1) % chips : c;
            int placed = v == Variant.PLACED_AT_ANOTHER_CHIPS_PLACE && c == odd ? (c + 1) % chips : c;
            String padding = switch (v) {
                case PADDING_THE_POOL_KEEPS, ZERO_PADDING_UNDER_A_MAX_OF_POSITIVE_VALUES -> keptBy(pool);
                case GATHERED, PLACED_AT_ANOTHER_CHIPS_PLACE, ANOTHER_CHIPS_COLUMNS, A_CHIP_SENDS_PADDING_ONLY -> ignoredBy(pool);
            };
            s.input("x." + c, c, rows, inner).shard("x." + c, "x", 0, 0, rows, rows);
            s.input("w." + c, c, inner, width).shard("w." + c, "w", 1, computed * width, computed * width + width, cols);
            s.matmul(c, "h." + c, "x." + c, "w." + c, false, false).generic(c, "a." + c, new int[] {rows, width}, act, "h." + c);
            // one block of padding per other chip's place, the chip's own columns at its place
            s.generic(c, "pad." + c, new int[] {rows, width}, padding, "a." + c);
            String[] parts = new String[chips];
            for (int slot = 0; slot < chips; slot++) {
                boolean own = slot == placed && !(v == Variant.A_CHIP_SENDS_PADDING_ONLY && c == odd);
                parts[slot] = own ? "a." + c : "pad." + c;
            }
            s.concat(c, "g." + c, 1, parts);
            gs.add("g." + c);
            ys.add("y." + c);
        }
        s.allReduce("gather", pool, "y", gs, ys);
        for (int c = 0; c < chips; c++) {
            s.output("y." + c, c, "y." + c).shard("y." + c, "y", 0, 0, rows, rows);
        }
        return new ClassCase(SplitClass.GATHER, v.name(), v.planted, s.program(), s.certificate(), parent.program(), CorpusRuns.Inputs.DEFAULT);
    }
}
