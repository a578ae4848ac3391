package org.stagecheck.cli;

import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code stagecheck}: the one executable over spec, interp, verifier and author (brief, "The
 * command line"). Exit codes: 0 holds, 1 a check failed, 2 bad input or usage.
 */
@Command(name = "stagecheck", mixinStandardHelpOptions = true, version = "stagecheck 0.1.0",
        description = "Reference interpreter and verifier for stage programs.",
        subcommands = {ValidateCommand.class, RunCommand.class, VerifyCommand.class, AuthorCommand.class, ReduceCommand.class, BenchCommand.class})
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
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new Main());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExitCodeExceptionMapper(e -> ExitCode.BAD_INPUT);
        cl.setParameterExceptionHandler((ex, a) -> {
            ex.getCommandLine().getErr().println("error: " + ex.getMessage());
            ex.getCommandLine().getErr().println("(run 'stagecheck " + (ex.getCommandLine() == cl ? "" : ex.getCommandLine().getCommandName() + " ") + "--help' for usage)");
            ex.getCommandLine().getErr().flush();
            return ExitCode.BAD_INPUT;
        });
        cl.setExecutionExceptionHandler((ex, c, parseResult) -> {
            // A bug of ours, not the user's: say so in one line rather than print a stack trace.
            c.getErr().println("internal error: " + ex);
            c.getErr().println("(this is a stagecheck bug; please report it with the input that caused it)");
            c.getErr().flush();
            return ExitCode.BAD_INPUT;
        });
        try {
            return cl.execute(args);
        } catch (OutOfMemoryError e) {
            // Commands check sizes before they allocate; this is the last line of defence.
            err.println("error: out of memory (this JVM may use " + (Runtime.getRuntime().maxMemory() >> 20)
                    + " MiB); give more with STAGECHECK_JAVA_OPTS=-Xmx<size>, or use smaller inputs");
            err.flush();
            return ExitCode.BAD_INPUT;
        } catch (StackOverflowError e) {
            err.println("error: the input is nested too deeply to process");
            err.flush();
            return ExitCode.BAD_INPUT;
        }
    }
}
