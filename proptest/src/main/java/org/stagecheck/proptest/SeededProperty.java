package org.stagecheck.proptest;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ArgumentsSource;

/**
 * A property test on plain JUnit 5: the annotated method takes one {@code long seed} and is run
 * once per seed of {@link Seeds#of(int)}, {@link #tries()} seeds in all, deterministic from run to
 * run. Everything random in the test is drawn from that seed (a {@code SplittableRandom(seed)},
 * or the project's generators, which take a seed or a {@code RandomGenerator}), so a seed names
 * one try exactly.
 *
 * <p>When a try fails, its failure names the seed and how to run that one try again
 * ({@code -Dstagecheck.seed=S}, see {@link Seeds}). Why the project has its own (small) property
 * support rather than a property-testing library is in the README's "Dependencies, and why".
 */
@Target({ElementType.METHOD, ElementType.ANNOTATION_TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@ParameterizedTest(name = "seed {0}")
@ArgumentsSource(SeedArguments.class)
@ExtendWith(SeedReport.class)
public @interface SeededProperty {
    /** How many seeds to try (each a separate JUnit invocation). */
    int tries();
}
