package org.stagecheck.cli;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/**
 * Refuses a repeatable {@code KEY=VALUE} option ({@code --param}, {@code --bind},
 * {@code --output-tolerance}) that names one key twice: picocli would keep the last value without
 * a word, so {@code --param pos=1 --param pos=2} would silently run with 2.
 */
final class RepeatedKeys {
    private RepeatedKeys() {
    }

    /** Throws a usage error for the first key given twice to one option, in any (sub)command of {@code parsed}. */
    static void refuse(ParseResult parsed) {
        for (ParseResult p = parsed; p != null; p = p.subcommand()) {
            for (OptionSpec option : p.matchedOptions()) {
                if (!Map.class.isAssignableFrom(option.type())) {
                    continue;
                }
                Set<String> seen = new HashSet<>();
                for (String value : option.originalStringValues()) {
                    int eq = value.indexOf('=');
                    String key = eq < 0 ? value : value.substring(0, eq);
                    if (!seen.add(key)) {
                        throw new CommandLine.ParameterException(p.commandSpec().commandLine(),
                                option.longestName() + " gives '" + key + "' more than once; give each " + option.paramLabel() + " once");
                    }
                }
            }
        }
    }
}
