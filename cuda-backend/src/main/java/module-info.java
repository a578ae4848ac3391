/** The CUDA backend ({@code cuda} on a GPU through the driver API, {@code cuda-emu} in host emulation). */
module org.stagecheck.cuda {
    requires transitive org.stagecheck.tensor;

    exports org.stagecheck.cuda;
    exports org.stagecheck.cuda.compile;
    exports org.stagecheck.cuda.lower;
    exports org.stagecheck.cuda.runtime;

    provides org.stagecheck.backend.BackendProvider with org.stagecheck.cuda.CudaProvider;
}
