/** The minimiser of failing programs. */
module org.stagecheck.reduce {
    requires transitive org.stagecheck.tensor;
    requires transitive org.stagecheck.golden;
    requires com.fasterxml.jackson.core;

    exports org.stagecheck.reduce;
}
