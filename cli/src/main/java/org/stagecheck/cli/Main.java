package org.stagecheck.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.List;
import org.stagecheck.tensor.npy.IoMessages;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ParseResult;

/**
 * {@code stagecheck}: the one executable over spec, interp, verifier and author (brief, "The
 * command line"). Exit codes: 0 holds, 1 a check failed, 2 bad input or usage. With
 * {@code --json} every outcome, usage errors and help included, is one JSON document on stdout.
 */
@Command(name = "stagecheck", mixinStandardHelpOptions = true, version = "stagecheck 0.1.0",
        description = "Reference interpreter and verifier for stage programs.",
        subcommands = {ValidateCommand.class, RunCommand.class, VerifyCommand.class, AuthorCommand.class, ReduceCommand.class,
                GoldenCommand.class, DiffCommand.class, BenchCommand.class, CudaCommand.class})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required");
    }

    public static void main(String[] args) {
        System.exit(execute(args, new PrintWriter(System.out, true), new PrintWriter(System.err, true)));
    }

    /** Runs the command line with the given streams and returns its exit code (used by tests). */
    public static int execute(String[] args, PrintWriter rawOut, PrintWriter rawErr) {
        PrintWriter out = new PrintWriter(new ControlEscapingWriter(rawOut), true);
        PrintWriter err = new PrintWriter(new ControlEscapingWriter(rawErr), true);
        boolean json = wantsJson(args);
        CommandLine cl = new CommandLine(new Main());
        HelpText.reflow(cl);
        cl.setOut(out);
        cl.setErr(err);
        cl.registerConverter(java.nio.file.Path.class, new PathArgument());
        cl.setExitCodeExceptionMapper(e -> ExitCode.BAD_INPUT);
        cl.setParameterExceptionHandler((ex, a) -> {
            CommandLine c = ex.getCommandLine();
            int code = Reply.failure(c, json, "usage-error", ExitCode.BAD_INPUT, ex.getMessage() + UsageHints.of(ex));
            String name = Reply.commandName(c);
            c.getErr().println("(run 'stagecheck " + (name.isEmpty() ? "" : name + " ") + "--help' for usage)");
            c.getErr().flush();
            return code;
        });
        cl.setExecutionExceptionHandler((ex, c, parseResult) -> {
            IOException io = ex instanceof IOException e ? e : ex instanceof UncheckedIOException u ? u.getCause() : null;
            if (io != null) {
                // an ordinary I/O problem (permission, no space, a vanished file): the user's to fix
                return Reply.badInput(c, json, IoMessages.describe(io));
            }
            // A bug of ours, not the user's: say so in one line rather than print a stack trace.
            int code = Reply.failure(c, json, "internal-error", ExitCode.BAD_INPUT, "internal error: " + ex);
            c.getErr().println("(this is a stagecheck bug; please report it with the input that caused it)");
            c.getErr().flush();
            return code;
        });
        cl.setExecutionStrategy(parseResult -> {
            if (json && helpRequested(parseResult)) {
                return printHelpAsJson(parseResult);
            }
            RepeatedKeys.refuse(parseResult);
            return new CommandLine.RunLast().execute(parseResult);
        });
        try {
            return cl.execute(args);
        } catch (OutOfMemoryError e) {
            // Commands check sizes before they allocate; this is the last line of defence.
            return Reply.badInput(deepest(cl), json, "out of memory (this JVM may use " + (Runtime.getRuntime().maxMemory() >> 20)
                    + " MiB); give more with STAGECHECK_JAVA_OPTS=-Xmx<size>, or use smaller inputs");
        } catch (StackOverflowError e) {
            return Reply.badInput(deepest(cl), json, "the input is nested too deeply to process");
        }
    }

    /** {@code --json} among the options (before a {@code --} that ends them). */
    static boolean wantsJson(String[] args) {
        for (String a : args) {
            if (a.equals("--")) {
                return false;
            }
            if (a.equals("--json")) {
                return true;
            }
        }
        return false;
    }

    private static boolean helpRequested(ParseResult pr) {
        for (ParseResult p = pr; p != null; p = p.subcommand()) {
            if (p.isUsageHelpRequested() || p.isVersionHelpRequested()) {
                return true;
            }
        }
        return false;
    }

    private static int printHelpAsJson(ParseResult pr) {
        ParseResult p = pr;
        while (!p.isUsageHelpRequested() && !p.isVersionHelpRequested()) {
            p = p.subcommand();
        }
        CommandLine c = p.commandSpec().commandLine();
        boolean version = p.isVersionHelpRequested();
        String text = version ? String.join("\n", List.of(c.getCommandSpec().version())) : c.getUsageMessage(CommandLine.Help.Ansi.OFF);
        Json.print(c.getOut(), g -> {
            g.writeStartObject();
            g.writeStringField("command", Reply.commandName(c));
            g.writeBooleanField("holds", true);
            g.writeStringField("status", version ? "version" : "help");
            g.writeNumberField("exitCode", ExitCode.OK);
            g.writeStringField(version ? "version" : "usage", text);
            g.writeEndObject();
        });
        return ExitCode.OK;
    }

    /** The subcommand the arguments named, as far as they were parsed. */
    private static CommandLine deepest(CommandLine cl) {
        ParseResult p = cl.getParseResult();
        if (p == null) {
            return cl;
        }
        while (p.hasSubcommand()) {
            p = p.subcommand();
        }
        return p.commandSpec().commandLine();
    }
}
