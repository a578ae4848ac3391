package org.stagecheck.golden;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;

/**
 * One part of a suite split over {@code count} machines (docs/golden.md, "Sharding"): shard
 * {@code number} (counted from 1) takes the cases whose position in the sorted list of the
 * suite's distinct case paths, counted from 0, is {@code number - 1} modulo {@code count}. Every
 * machine given the same case arguments computes the same split, the shards are disjoint, and
 * together they cover the suite exactly once.
 *
 * @param number this shard, 1 to {@code count}
 * @param count  the number of shards, at least 1
 */
public record Shard(int number, int count) {
    public Shard {
        if (count < 1 || number < 1 || number > count) {
            throw new IllegalArgumentException("shard " + number + "/" + count + ": needs 1 <= K <= N");
        }
    }

    /** This shard's cases of {@code suite}, in the suite's order. */
    public Selection select(List<Path> suite) {
        Map<String, Integer> position = new HashMap<>();
        for (String k : new TreeSet<>(suite.stream().map(Shard::key).toList())) {
            position.put(k, position.size());
        }
        List<Path> mine = new ArrayList<>();
        for (Path p : suite) {
            if (position.get(key(p)) % count == number - 1) {
                mine.add(p);
            }
        }
        return new Selection(this, mine, suite.size());
    }

    /** A case's place in the order: its path as given, normalised (the same on every machine running the same command line). */
    private static String key(Path p) {
        return p.normalize().toString();
    }

    /** {@code 2/4}. */
    @Override
    public String toString() {
        return number + "/" + count;
    }

    /**
     * The cases a shard took.
     *
     * @param shard      the shard
     * @param cases      its cases, in the suite's order
     * @param suiteCases the number of cases in the whole suite
     */
    public record Selection(Shard shard, List<Path> cases, int suiteCases) {
        public Selection {
            cases = List.copyOf(cases);
        }

        /** {@code shard 2/4: 3 of 10 case(s)}. */
        public String describe() {
            return String.format(Locale.ROOT, "shard %s: %d of %d case(s)", shard, cases.size(), suiteCases);
        }
    }
}
