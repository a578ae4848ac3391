/** Golden cases, derived tolerances, reports, and the mismatch debugging tools. */
@SuppressWarnings("module") // a qualified export names the command line, built after this module
module org.stagecheck.golden {
    requires transitive org.stagecheck.tensor;
    requires transitive org.stagecheck.interp;
    requires transitive com.fasterxml.jackson.core;
    requires java.desktop;
    requires java.management;
    requires jdk.management;
    requires static org.assertj.core; // optional: GoldenAssertions for callers who use AssertJ

    exports org.stagecheck.golden;
    exports org.stagecheck.golden.assertj;
    exports org.stagecheck.golden.debug;
    exports org.stagecheck.golden.derive;
    exports org.stagecheck.golden.report;
    exports org.stagecheck.golden.store;
    exports org.stagecheck.golden.bench to org.stagecheck.cli;
}
