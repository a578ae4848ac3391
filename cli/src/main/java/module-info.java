/** The stagecheck command line: a renderer over the libraries. */
module org.stagecheck.cli {
    requires org.stagecheck.api;
    requires org.stagecheck.author;
    requires org.stagecheck.conformance;
    requires org.stagecheck.cuda;
    requires org.stagecheck.interp;
    requires org.stagecheck.reduce;
    requires com.fasterxml.jackson.core;
    requires com.fasterxml.jackson.databind;
    requires info.picocli;
    requires java.management;
    requires jdk.management;

    opens org.stagecheck.cli to info.picocli;
}
