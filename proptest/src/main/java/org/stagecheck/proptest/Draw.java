package org.stagecheck.proptest;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * Values drawn from a {@link RandomGenerator} for property tests, with the awkward values (the
 * extremes, zero of both signs, NaN, infinities, subnormals) drawn often, not once in 2^64.
 */
public final class Draw {
    private static final long[] EDGE_LONGS = {0L, 1L, -1L, 2L, -2L, Long.MIN_VALUE, Long.MAX_VALUE,
            Long.MIN_VALUE + 1, Long.MAX_VALUE - 1, Integer.MIN_VALUE, Integer.MAX_VALUE};
    private static final int[] EDGE_INTS = {0, 1, -1, 2, -2, Integer.MIN_VALUE, Integer.MAX_VALUE,
            Integer.MIN_VALUE + 1, Integer.MAX_VALUE - 1};
    private static final float[] EDGE_FLOATS = {0f, -0f, 1f, -1f, Float.NaN, Float.POSITIVE_INFINITY,
            Float.NEGATIVE_INFINITY, Float.MAX_VALUE, -Float.MAX_VALUE, Float.MIN_VALUE, -Float.MIN_VALUE,
            Float.MIN_NORMAL, -Float.MIN_NORMAL, Math.nextDown(Float.MIN_NORMAL), 65504f, 65520f};
    private static final double[] EDGE_DOUBLES = {0d, -0d, 1d, -1d, Double.NaN, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, -Double.MIN_VALUE,
            Double.MIN_NORMAL, Math.nextDown(Double.MIN_NORMAL), 0.1, 1e300, -1e-300};

    private Draw() {}

    /** Any long; one in eight is an edge value (0, +-1, +-2, the extremes and their neighbours, the int extremes). */
    public static long anyLong(RandomGenerator r) {
        return r.nextInt(8) == 0 ? EDGE_LONGS[r.nextInt(EDGE_LONGS.length)] : r.nextLong();
    }

    /** Any int; one in eight is an edge value. */
    public static int anyInt(RandomGenerator r) {
        return r.nextInt(8) == 0 ? EDGE_INTS[r.nextInt(EDGE_INTS.length)] : r.nextInt();
    }

    /**
     * Any float: one in eight an edge value, the rest half uniformly random bit patterns (every
     * exponent, NaN payloads included) and half small magnitudes around 1.
     */
    public static float anyFloat(RandomGenerator r) {
        return switch (r.nextInt(8)) {
            case 0 -> EDGE_FLOATS[r.nextInt(EDGE_FLOATS.length)];
            case 1, 2, 3, 4 -> Float.intBitsToFloat(r.nextInt());
            // the remaining three in eight (nextInt(8) is 5, 6 or 7)
            default -> (float) (r.nextGaussian() * Math.pow(10, r.nextInt(7) - 3));
        };
    }

    /** Any double, drawn as {@link #anyFloat} draws a float. */
    public static double anyDouble(RandomGenerator r) {
        return switch (r.nextInt(8)) {
            case 0 -> EDGE_DOUBLES[r.nextInt(EDGE_DOUBLES.length)];
            case 1, 2, 3, 4 -> Double.longBitsToDouble(r.nextLong());
            // the remaining three in eight (nextInt(8) is 5, 6 or 7)
            default -> r.nextGaussian() * Math.pow(10, r.nextInt(13) - 6);
        };
    }

    /** An int in {@code [min, max]}, both included. */
    public static int between(RandomGenerator r, int min, int max) {
        return (int) r.nextLong(min, (long) max + 1);
    }

    /** A long in {@code [min, max]}, both included. */
    public static long between(RandomGenerator r, long min, long max) {
        if (max < Long.MAX_VALUE) {
            return r.nextLong(min, max + 1);
        }
        return min == Long.MIN_VALUE ? r.nextLong() : r.nextLong(min - 1, max) + 1;
    }

    /** One of the given values, uniformly. */
    @SafeVarargs
    public static <T> T oneOf(RandomGenerator r, T... values) {
        return values[r.nextInt(values.length)];
    }

    /** One of the given values, uniformly. */
    public static <T> T oneOf(RandomGenerator r, List<T> values) {
        return values.get(r.nextInt(values.size()));
    }

    /** One constant of an enum, uniformly. */
    public static <E extends Enum<E>> E oneOf(RandomGenerator r, Class<E> type) {
        return oneOf(r, type.getEnumConstants());
    }

    /** A string of {@code minLength..maxLength} characters, each drawn from {@code alphabet}. */
    public static String string(RandomGenerator r, String alphabet, int minLength, int maxLength) {
        int n = between(r, minLength, maxLength);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    /** A string of {@code minLength..maxLength} characters, each in {@code [from, to]}. */
    public static String string(RandomGenerator r, char from, char to, int minLength, int maxLength) {
        int n = between(r, minLength, maxLength);
        StringBuilder sb = new StringBuilder(n);
        for (int i = 0; i < n; i++) {
            sb.append((char) between(r, from, to));
        }
        return sb.toString();
    }

    /** A list of {@code minSize..maxSize} elements, each from {@code element}. */
    public static <T> List<T> list(RandomGenerator r, int minSize, int maxSize, Supplier<T> element) {
        int n = between(r, minSize, maxSize);
        List<T> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(element.get());
        }
        return out;
    }

    /** {@code true} with probability {@code p}. */
    public static boolean chance(RandomGenerator r, double p) {
        return r.nextDouble() < p;
    }
}
