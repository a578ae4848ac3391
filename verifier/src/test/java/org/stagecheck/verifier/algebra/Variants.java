package org.stagecheck.verifier.algebra;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Predicate;

/** Picks a generator's variant: a right one or a planted bug with even odds, then one of those at random. */
final class Variants {
    private Variants() {}

    static <E extends Enum<E>> E pick(SplittableRandom r, E[] all, Predicate<E> planted) {
        boolean bug = r.nextBoolean();
        List<E> some = Arrays.stream(all).filter(v -> planted.test(v) == bug).toList();
        return some.get(r.nextInt(some.size()));
    }
}
