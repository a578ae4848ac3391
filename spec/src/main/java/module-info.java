/** The stage-program IR, its JSON format with source positions, the language's rules and the validator, certificates. */
module org.stagecheck.spec {
    requires transitive com.fasterxml.jackson.core;

    exports org.stagecheck.spec.cert;
    exports org.stagecheck.spec.concurrent;
    exports org.stagecheck.spec.diag;
    exports org.stagecheck.spec.flow;
    exports org.stagecheck.spec.gen;
    exports org.stagecheck.spec.ir;
    exports org.stagecheck.spec.json;
    exports org.stagecheck.spec.rules;
    exports org.stagecheck.spec.validate;
}
