package org.stagecheck.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** Every command's help reads as written: whole sentences as summaries, nothing past the usage width. */
class HelpTextTest {
    private static List<String[]> everyCommand() {
        List<String[]> paths = new ArrayList<>();
        collect(new CommandLine(new Main()), new ArrayList<>(), paths);
        return paths;
    }

    private static void collect(CommandLine cl, List<String> path, List<String[]> into) {
        List<String> help = new ArrayList<>(path);
        help.add("--help");
        into.add(help.toArray(String[]::new));
        cl.getSubcommands().forEach((name, sub) -> {
            List<String> p = new ArrayList<>(path);
            p.add(name);
            collect(sub, p, into);
        });
    }

    @Test
    void summariesAreWholeSentencesAndNoLineIsWiderThanTheUsageWidth() {
        List<String[]> commands = everyCommand();
        assertThat(commands).hasSizeGreaterThan(15);
        for (String[] args : commands) {
            CliRunner r = CliRunner.run(args);
            assertThat(r.exit()).as(String.join(" ", args)).isZero();
            assertThat(r.out().lines()).as(String.join(" ", args)).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(80));
            // a subcommand's summary in its parent's list ends where its first sentence ends
            List<String> lines = r.out().lines().toList();
            int list = lines.indexOf("Commands:");
            for (int i = list + 1; list >= 0 && i < lines.size(); i++) {
                String line = lines.get(i);
                // an entry is "  name  summary" and its continuation lines, indented further
                boolean last = i + 1 == lines.size() || lines.get(i + 1).matches("^  \\S.*");
                if (last) {
                    assertThat(line.strip()).as(String.join(" ", args) + ": " + line).matches(".*[.:)]$");
                }
            }
        }
    }

    @Test
    void proseIsJoinedAndSplitAtSentencesAndIndentedLinesAreKept() {
        assertThat(HelpText.sentences(new String[] {"One sentence cut", "in two. Another: with a list", "  --a  kept as is", "Last."}))
                .containsExactly("One sentence cut in two.", "Another: with a list", "  --a  kept as is", "Last.");
    }
}
