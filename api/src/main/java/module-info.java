/** The Java entry point: {@link org.stagecheck.api.Stagecheck}. */
module org.stagecheck.api {
    requires transitive org.stagecheck.tensor;
    requires transitive org.stagecheck.verifier;
    requires transitive org.stagecheck.golden;

    exports org.stagecheck.api;
}
