package org.stagecheck.cli;

import java.util.Locale;

import org.stagecheck.golden.derive.MathMode;

/** The {@code --math} option of diff and golden record: a {@link MathMode}'s spelling, in any case. */
final class MathModeOption {
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
