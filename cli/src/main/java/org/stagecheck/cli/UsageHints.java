package org.stagecheck.cli;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The "did you mean" of a usage error: an unknown option is compared with the command's options,
 * an unknown word after a command that has subcommands with its subcommands ({@link NearestNames}).
 */
final class UsageHints {
    private UsageHints() {
    }

    /** {@code "; did you mean '--trace'?"} for the first unmatched argument near a known name, else the empty string. */
    static String of(ParameterException ex) {
        if (!(ex instanceof UnmatchedArgumentException u)) {
            return "";
        }
        CommandLine c = ex.getCommandLine();
        for (String arg : u.getUnmatched()) {
            String hint;
            if (arg.startsWith("-")) {
                int eq = arg.indexOf('=');
                hint = NearestNames.suffix(eq < 0 ? arg : arg.substring(0, eq), c.getCommandSpec().optionsMap().keySet());
            } else if (!c.getSubcommands().isEmpty()) {
                hint = NearestNames.suffix(arg, c.getSubcommands().keySet());
            } else {
                hint = "";
            }
            if (!hint.isEmpty()) {
                return hint;
            }
        }
        return "";
    }
}
