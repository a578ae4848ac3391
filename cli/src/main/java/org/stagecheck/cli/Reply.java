package org.stagecheck.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * The outcome of a command that did not get to its own report: bad input, a usage error, an
 * internal error. Always one line on stderr; with {@code --json} also the one JSON document on
 * stdout, {@code {"command", "holds": false, "status", "exitCode", "error"}} (docs/cli.md, "Exit codes").
 */
final class Reply {
    private Reply() {
    }

    /** Prints the failure and returns {@code exitCode}. */
    static int failure(CommandLine cl, boolean json, String status, int exitCode, String message) {
        return failure(cl, json, status, exitCode, message, g -> { });
    }

    /**
     * As {@link #failure(CommandLine, boolean, String, int, String)}; {@code extra} writes the
     * fields a command's own report always has (e.g. an empty {@code cases} list), so that a reader
     * of its JSON finds them on every outcome.
     */
    static int failure(CommandLine cl, boolean json, String status, int exitCode, String message, Json.Body extra) {
        PrintWriter err = cl.getErr();
        err.println("error: " + oneLine(message));
        err.flush();
        if (json) {
            Json.print(cl.getOut(), g -> {
                g.writeStartObject();
                g.writeStringField("command", commandName(cl));
                g.writeBooleanField("holds", false);
                g.writeStringField("status", status);
                g.writeNumberField("exitCode", exitCode);
                g.writeStringField("error", message);
                extra.write(g);
                g.writeEndObject();
            });
        }
        return exitCode;
    }

    /**
     * {@code message} with each line feed written as the escape backslash-u000A, as the other
     * control characters are (ControlEscapingWriter): a path or name holding one (a file so named, a
     * manifest's string) would otherwise start a line that reads as stagecheck's own.
     */
    static String oneLine(String message) {
        return message.replace("\n", "\\u000A");
    }

    /** Bad input: exit 2, status {@code bad-input}. */
    static int badInput(CommandLine cl, boolean json, String message) {
        return failure(cl, json, "bad-input", ExitCode.BAD_INPUT, message);
    }

    /** Bad input, with the fields the command's own report always has. */
    static int badInput(CommandLine cl, boolean json, String message, Json.Body extra) {
        return failure(cl, json, "bad-input", ExitCode.BAD_INPUT, message, extra);
    }

    /** E.g. {@code run} or {@code bench interp}; empty for the top-level command. */
    static String commandName(CommandLine cl) {
        String q = cl.getCommandSpec().qualifiedName(" ");
        int space = q.indexOf(' ');
        return space < 0 ? "" : q.substring(space + 1);
    }
}
