package org.stagecheck.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

/**
 * Command descriptions as picocli should show them: the source splits a description into lines
 * where the code is wide, not where the text breaks, and picocli prints each piece as a line of its
 * own (and the first piece as the command's summary in its parent's list, cut mid-sentence). Here
 * the prose is joined again and split at sentence ends, so each sentence wraps to the terminal
 * and the summary is the first whole sentence; a line indented in the source (a table of options)
 * is kept as it is.
 */
final class HelpText {
    /** The space after a sentence's end ({@code .} or {@code :}) before the next one's first character. */
    private static final Pattern SENTENCE_END = Pattern.compile("(?<=[.:])\\s+(?=[A-Z(`'\"])");

    private HelpText() {
    }

    /** Re-flows the description of {@code cl}'s command and of every subcommand below it. */
    static void reflow(CommandLine cl) {
        UsageMessageSpec usage = cl.getCommandSpec().usageMessage();
        usage.description(sentences(usage.description()).toArray(String[]::new));
        for (CommandLine sub : cl.getSubcommands().values()) {
            reflow(sub);
        }
    }

    /** The description's prose joined and split into sentences; indented lines kept verbatim. */
    static List<String> sentences(String[] lines) {
        List<String> out = new ArrayList<>();
        StringBuilder prose = new StringBuilder();
        for (String line : lines) {
            if (line.startsWith(" ")) {
                flush(prose, out);
                out.add(line);
            } else {
                if (!prose.isEmpty()) {
                    prose.append(' ');
                }
                prose.append(line.strip());
            }
        }
        flush(prose, out);
        return out;
    }

    private static void flush(StringBuilder prose, List<String> out) {
        if (!prose.isEmpty()) {
            for (String s : SENTENCE_END.split(prose)) {
                out.add(s);
            }
            prose.setLength(0);
        }
    }
}
