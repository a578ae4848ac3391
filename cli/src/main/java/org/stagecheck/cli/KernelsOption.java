package org.stagecheck.cli;

import java.util.Locale;

import org.stagecheck.cuda.lower.Kernels;

/** {@code cuda run} and {@code cuda emit}'s {@code --kernels}: exact (the default) or fast, in any case. */
final class KernelsOption {
    /** The option's help. */
    static final String DESCRIPTION = "exact (default: every sum in the reference's order, bit for bit) or fast"
            + " (a matmul with few rows and a long reduction split into chunks combined in a fixed order:"
            + " deterministic, judged by the golden tolerances; docs/cuda.md, \"Fast kernels\")";

    private KernelsOption() {
    }

    static Kernels parse(String text) throws BadInputException {
        Kernels k = Kernels.parse(text.toLowerCase(Locale.ROOT));
        if (k == null) {
            throw new BadInputException("--kernels is exact or fast, not '" + text + "'");
        }
        return k;
    }
}
