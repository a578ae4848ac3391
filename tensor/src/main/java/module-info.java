/** Tensors, narrow floats, .npy files, inputs directories, the comparison engine and the Backend seam. */
module org.stagecheck.tensor {
    requires transitive org.stagecheck.spec;

    exports org.stagecheck.backend;
    exports org.stagecheck.tensor;
    exports org.stagecheck.tensor.compare;
    exports org.stagecheck.tensor.inputs;
    exports org.stagecheck.tensor.io;
    exports org.stagecheck.tensor.npy;
    exports org.stagecheck.tensor.numeric;
    exports org.stagecheck.tensor.safetensors;

    uses org.stagecheck.backend.BackendProvider;
}
