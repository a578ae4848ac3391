/** PassCheck: property tests of a compiler pass, with laws and a shrinker. */
module org.stagecheck.passcheck {
    requires transitive org.stagecheck.tensor;
    requires transitive org.stagecheck.author;
    requires org.stagecheck.golden;
    requires transitive org.stagecheck.reduce;
    requires org.stagecheck.verifier;

    exports org.stagecheck.passcheck;
}
