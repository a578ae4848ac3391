/**
 * The reference interpreter, a {@link org.stagecheck.backend.Backend} registered as {@code interp},
 * and the {@link org.stagecheck.interp.Stepper} for tools that run one stage at a time. The
 * evaluator ({@code org.stagecheck.interp.eval}) is not exported.
 */
@SuppressWarnings("module") // a qualified export names the command line, built after this module
module org.stagecheck.interp {
    requires transitive org.stagecheck.tensor;
    requires jdk.incubator.vector;

    exports org.stagecheck.interp;
    exports org.stagecheck.interp.bench to org.stagecheck.cli;

    provides org.stagecheck.backend.BackendProvider with org.stagecheck.interp.InterpreterProvider;
}
