/** The backend conformance suite: small programs with hand-worked expected tensors, run on any Backend. */
module org.stagecheck.conformance {
    requires transitive org.stagecheck.tensor;

    exports org.stagecheck.conformance;
}
