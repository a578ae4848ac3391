/** Seeded property tests on plain JUnit 5: {@code @SeededProperty}, generators, a shrinker. */
module org.stagecheck.proptest {
    requires transitive org.junit.jupiter.api;
    requires transitive org.junit.jupiter.params;
    requires org.opentest4j;

    exports org.stagecheck.proptest;
}
