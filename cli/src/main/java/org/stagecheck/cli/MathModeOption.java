package org.stagecheck.cli;

import java.util.Locale;

import org.stagecheck.backend.MathMode;

/**
 * Every command's {@code --math}: a {@link MathMode}'s spelling, in any case. golden record and diff
 * take it as the function budgets a derived tolerance allows ({@link MathMode#DEFAULT} when not
 * given); cuda run takes the same mode as the functions it compiles.
 */
final class MathModeOption {
    /** The spelling of {@link MathMode#DEFAULT}: the option field's initial value, which help prints. */
    static final String DEFAULT = MathMode.DEFAULT.spelling();

    /** The option's help; picocli fills in the default from the field. */
    static final String DESCRIPTION = "function budgets the derived bound allows a backend: precise or fast (default ${DEFAULT-VALUE})";

    private MathModeOption() {
    }

    static MathMode parse(String text) throws BadInputException {
        MathMode mode = MathMode.fromSpelling(text.toLowerCase(Locale.ROOT));
        if (mode == null) {
            throw new BadInputException("--math is precise or fast, not '" + text + "'");
        }
        return mode;
    }
}
