package org.stagecheck.verifier.algebra;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.stagecheck.verifier.adversarial.CorpusRuns;
import org.stagecheck.verifier.fuzz.ClassCase;
import org.stagecheck.verifier.fuzz.SplitClass;

/**
 * Random two-level meshes: {@code y = act(x) w} with the contraction split over
 * {@code groups * size} chips (2x2, 2x4, 4x2), chip {@code g*size + j} being position j of group g;
 * the partials are all-reduced within each group, then across the groups (one all-reduce per
 * position), as a hierarchical all-reduce on a mesh of chips does.
 */
public final class MeshSplits {
    public enum Variant {
        WITHIN_THEN_ACROSS(false),
        ACROSS_THEN_WITHIN(false),
        /** The second step pairs position j of group g with position {@code (j + g) mod size}: any chip of a group holds its sum. */
        ACROSS_ROTATED(false),
        /** The second step all-reduces within the groups again. */
        SECOND_STEP_WITHIN_AGAIN(true),
        /** One chip stores its first step's sum instead of the second's. */
        ONE_CHIP_STORES_ITS_GROUP_SUM(true),
        /** Only the first step: every chip stores its group's sum. */
        FIRST_STEP_ONLY(true),
        /** The second step is a max all-reduce. */
        SECOND_STEP_BY_MAX(true);

        final boolean planted;

        Variant(boolean planted) {
            this.planted = planted;
        }
    }

    private MeshSplits() {}

    public static ClassCase random(SplittableRandom r) {
        Variant v = Variants.pick(r, Variant.values(), x -> x.planted);
        int[][] shapes = {{2, 2}, {2, 4}, {4, 2}};
        int[] shape = shapes[r.nextInt(shapes.length)];
        int groups = shape[0];
        int size = shape[1];
        int chips = groups * size;
        int rows = 1 + r.nextInt(3);
        int depth = 1 + r.nextInt(2);
        int cols = 1 + r.nextInt(4);
        String act = r.nextBoolean() ? "tanh(in0)" : "in0";
        int odd = r.nextInt(chips);
        int contraction = chips * depth;
        SplitText parent = new SplitText("row-parallel", 1).input("x", 0, rows, contraction).input("w", 0, contraction, cols)
                .generic(0, "a", new int[] {rows, contraction}, act, "x").matmul(0, "y", "a", "w", false, false).output("y", 0, "y");
        SplitText s = new SplitText("two-level", chips);
        for (int c = 0; c < chips; c++) {
            s.input("x." + c, c, rows, depth).shard("x." + c, "x", 1, c * depth, c * depth + depth, contraction);
            s.input("w." + c, c, depth, cols).shard("w." + c, "w", 0, c * depth, c * depth + depth, contraction);
            s.generic(c, "a." + c, new int[] {rows, depth}, act, "x." + c).matmul(c, "p." + c, "a." + c, "w." + c, false, false);
        }
        List<int[]> within = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            int[] members = new int[size];
            for (int j = 0; j < size; j++) {
                members[j] = g * size + j;
            }
            within.add(members);
        }
        List<int[]> across = new ArrayList<>();
        for (int j = 0; j < size; j++) {
            int[] members = new int[groups];
            for (int g = 0; g < groups; g++) {
                members[g] = g * size + (v == Variant.ACROSS_ROTATED ? (j + g) % size : j);
            }
            across.add(members);
        }
        List<int[]> first = v == Variant.ACROSS_THEN_WITHIN ? across : within;
        List<int[]> second = switch (v) {
            case ACROSS_THEN_WITHIN, SECOND_STEP_WITHIN_AGAIN -> within;
            case WITHIN_THEN_ACROSS, ACROSS_ROTATED, ONE_CHIP_STORES_ITS_GROUP_SUM, FIRST_STEP_ONLY, SECOND_STEP_BY_MAX -> across;
        };
        step(s, "first", "sum", first, "p.", "h.");
        String last = "h.";
        if (v != Variant.FIRST_STEP_ONLY) {
            step(s, "second", v == Variant.SECOND_STEP_BY_MAX ? "max" : "sum", second, "h.", "y.");
            last = "y.";
        }
        for (int c = 0; c < chips; c++) {
            String stored = v == Variant.ONE_CHIP_STORES_ITS_GROUP_SUM && c == odd ? "h." + c : last + c;
            s.output("y." + c, c, stored).shard("y." + c, "y", 0, 0, rows, rows);
        }
        return new ClassCase(SplitClass.TWO_LEVEL_MESH, v.name(), v.planted, s.program(), s.certificate(), parent.program(), CorpusRuns.Inputs.DEFAULT);
    }

    /** One all-reduce per set of chips, of {@code from + chip} into {@code to + chip}. */
    private static void step(SplitText s, String id, String pool, List<int[]> sets, String from, String to) {
        for (int i = 0; i < sets.size(); i++) {
            List<String> ins = new ArrayList<>();
            List<String> outs = new ArrayList<>();
            for (int c : sets.get(i)) {
                ins.add(from + c);
                outs.add(to + c);
            }
            s.allReduce(id + "_" + i, pool, "y", ins, outs, sets.get(i));
        }
    }
}
