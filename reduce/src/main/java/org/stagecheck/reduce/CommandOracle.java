package org.stagecheck.reduce;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A user's command decides: the candidate is written to a fresh directory under {@code work}
 * ({@link CandidateFiles}), the command runs there through {@code sh -c} with
 * {@code STAGECHECK_PROGRAM} and {@code STAGECHECK_INPUTS} naming the program file and the
 * directory, and its exit status is the verdict: 0 passes, anything else fails. The signature is
 * the exit status, and with a {@code match} pattern also the first text of the command's output
 * that matches it (say {@code diverges at \S+}, or a diagnostic code), so a candidate failing
 * with another status or another match fails differently. A command that outlives {@code
 * timeoutSeconds} is stopped and fails as {@code timeout}.
 */
public final class CommandOracle implements FailureOracle {
    private final String command;
    private final Pattern match;
    private final Path work;
    private final long timeoutSeconds;
    private int counter;

    public CommandOracle(String command, Pattern match, Path work, long timeoutSeconds) {
        this.command = command;
        this.match = match;
        this.work = work;
        this.timeoutSeconds = timeoutSeconds;
    }

    @Override
    public Verdict judge(Candidate candidate) {
        Path dir = work.resolve("try-" + counter++);
        try {
            Files.createDirectories(dir);
            CandidateFiles.write(candidate, dir);
            ProcessBuilder pb = new ProcessBuilder(List.of("/bin/sh", "-c", command)).directory(dir.toFile()).redirectErrorStream(true);
            pb.environment().put("STAGECHECK_PROGRAM", dir.resolve("program.json").toString());
            pb.environment().put("STAGECHECK_INPUTS", dir.toString());
            pb.redirectOutput(dir.resolve("test-output.txt").toFile());
            Process p = pb.start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor();
                return new Verdict.Fails("timeout", "the test command ran past " + timeoutSeconds + " s");
            }
            int status = p.exitValue();
            if (status == 0) {
                return new Verdict.Passes();
            }
            String output = Files.readString(dir.resolve("test-output.txt"), StandardCharsets.UTF_8);
            String signature = "exit " + status;
            if (match != null) {
                Matcher m = match.matcher(output);
                signature += m.find() ? " / " + m.group() : " / no match";
            }
            Verdict.Cause cause = switch (status) {
                case 126 -> Verdict.Cause.TEST_NOT_EXECUTABLE;
                case 127 -> Verdict.Cause.TEST_NOT_FOUND;
                default -> Verdict.Cause.CANDIDATE;
            };
            return new Verdict.Fails(signature, lastLine(output), cause);
        } catch (IOException e) {
            return new Verdict.Fails("cannot run the test command", e.getMessage(), Verdict.Cause.TEST_NOT_STARTED);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Verdict.Fails("interrupted", "interrupted while the test command ran");
        } finally {
            deleteTree(dir);
        }
    }

    private static String lastLine(String output) {
        String[] lines = output.strip().split("\n");
        return lines.length == 0 ? "" : lines[lines.length - 1];
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // best effort: the work directory is inside the output directory the user named
        }
    }
}
