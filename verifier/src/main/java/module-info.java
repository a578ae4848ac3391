/** The certificate checker for split programs; its proof machinery (flow, remap, shard) is not exported. */
@SuppressWarnings("module") // a qualified export names the command line, built after this module
module org.stagecheck.verifier {
    requires transitive org.stagecheck.spec;
    requires com.fasterxml.jackson.core;
    requires java.management; // the bench reads the heap's peak

    exports org.stagecheck.verifier;
    exports org.stagecheck.verifier.report;
    exports org.stagecheck.verifier.bench to org.stagecheck.cli;
}
