package org.stagecheck.cli;

import java.util.List;

import org.stagecheck.backend.Backend;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;

/**
 * The backends the command line can run by name ({@code golden check --backend NAME}). A new
 * backend is one more name in {@link #NAMES} and one more case in {@link #named}.
 */
final class Backends {
    /** The names accepted, in the order help lists them. */
    static final List<String> NAMES = List.of("interp", "cuda", "cuda-emu");

    private Backends() {
    }

    static Backend named(String name) throws BadInputException {
        return switch (name) {
            case "interp" -> new Interpreter(RunOptions.defaults());
            case "cuda" -> new org.stagecheck.cuda.CudaBackend(org.stagecheck.cuda.CudaOptions.device());
            case "cuda-emu" -> new org.stagecheck.cuda.CudaBackend(org.stagecheck.cuda.CudaOptions.emulation());
            // the user's word: any other name is bad input
            default -> throw new BadInputException("unknown backend '" + name + "'; one of " + String.join(", ", NAMES));
        };
    }
}
