/** Model programs for every cut, tensor-parallel splits with certificates, and the cuts' laws. */
module org.stagecheck.author {
    requires transitive org.stagecheck.tensor;
    requires com.fasterxml.jackson.core;

    exports org.stagecheck.author;
    exports org.stagecheck.author.hf;
    exports org.stagecheck.author.laws;
    exports org.stagecheck.author.model;
    exports org.stagecheck.author.synth;
}
