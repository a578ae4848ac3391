package org.stagecheck.cli;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.interp.bench.BenchOptions;
import org.stagecheck.interp.bench.EvaluatorBench;
import org.stagecheck.verifier.bench.ScaleBench;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code stagecheck bench}: the performance figures of docs/bench.md, measured on this machine.
 * Performance targets live here, never in timed unit tests.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "Measure the evaluator, the verifier's scaling, or the time per token of an authored decode step.",
        subcommands = {BenchCommand.Interp.class, BenchCommand.Verifier.class, BenchCommand.Decode.class, BenchCompareCommand.class,
                BenchRecordCommand.class, BenchCheckpointCommand.class})
final class BenchCommand implements Runnable {
    /** The largest weight dimension a bench takes (16384 x 16384 f32 is 1 GiB). */
    static final int MAX_SIZE = 16384;
    /** The most timed repetitions: a bench that would run for days is a typo, refused. */
    static final int MAX_REPEATS = 1000;
    /** The most evaluator threads a bench starts (each is a platform thread). */
    static final int MAX_THREADS = 1024;

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(), "name a bench: interp, verifier, decode, compare, record or checkpoint");
    }

    /** The report as text, or with --json as one document {"command", "holds", "status", "exitCode", "report"}. */
    static void emit(CommandSpec spec, boolean json, String report) {
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            Json.print(out, g -> {
                g.writeStartObject();
                g.writeStringField("command", Reply.commandName(spec.commandLine()));
                g.writeBooleanField("holds", true);
                g.writeStringField("status", "measured");
                g.writeNumberField("exitCode", ExitCode.OK);
                g.writeStringField("report", report);
                g.writeEndObject();
            });
        } else {
            out.print(report);
            out.flush();
        }
    }

    private static PrintStream stream(PrintWriter w) {
        return new PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                w.write(b);
            }

            @Override
            public void write(byte[] b, int off, int len) {
                w.write(new String(b, off, len, StandardCharsets.UTF_8));
            }

            @Override
            public void flush() {
                w.flush();
            }
        }, true, StandardCharsets.UTF_8);
    }

    @Command(name = "interp", mixinStandardHelpOptions = true,
            description = {"Matvec and matmul through the reference kernel (f32 and bf16 weights) and a STREAM-like copy.",
                    "The ND4J column needs the test classpath: bin/mvn25 -pl interp test -Pbench (docs/bench.md)."})
    static final class Interp implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Option(names = "--size", defaultValue = "4096", description = "K = N of the weight; default 4096")
        int size;
        @Option(names = "--rows", defaultValue = "64", description = "M of the matmul case; default 64")
        int rows;
        @Option(names = "--threads", description = "default: all cores")
        Integer threads;
        @Option(names = "--repeats", defaultValue = "5", description = "timed repetitions, best reported; default 5")
        int repeats;
        @Option(names = "--json", description = "print one JSON document instead of text")
        boolean json;

        @Override
        public Integer call() {
            if (size < 1 || size > MAX_SIZE || rows < 1 || rows > MAX_SIZE || repeats < 1 || repeats > MAX_REPEATS
                    || (threads != null && (threads < 1 || threads > MAX_THREADS))) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--size and --rows must be in [1, " + MAX_SIZE
                        + "], --repeats in [1, " + MAX_REPEATS + "] and --threads in [1, " + MAX_THREADS + "]");
            }
            // the weight in f32 and bf16, the input, output and copy arrays: refused before anything is allocated
            long bytes = 6L * size * size + 16L * rows * size;
            if (bytes > Runtime.getRuntime().maxMemory() * 0.85) {
                return Reply.badInput(spec.commandLine(), json, "the bench holds about " + (bytes >> 20) + " MiB and this JVM may use "
                        + (Runtime.getRuntime().maxMemory() >> 20) + " MiB; give more with STAGECHECK_JAVA_OPTS=-Xmx<size> or use a smaller --size");
            }
            int t = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
            String table;
            try (var progress = ProgressLines.to(spec.commandLine().getErr(), "bench interp", json)) {
                progress.phase("measuring the copy bandwidth and the matmuls (" + size + " x " + size + ", " + repeats + " repeats)", 0);
                table = EvaluatorBench.run(new BenchOptions(size, rows, t, repeats, null)).toTable();
            }
            emit(spec, json, table);
            return ExitCode.OK;
        }
    }

    @Command(name = "verifier", mixinStandardHelpOptions = true,
            description = {"Validate and verify generated programs of four shapes (chain, fan-in, nest, split) at each size, from memory and",
                    "from their files; prints the times, the ratio verifier / validator, ns per stage and the heap."})
    static final class Verifier implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        /** The fewest and the most stages of one measured program. */
        static final int MIN_STAGES = 8;
        static final int MAX_STAGES = 20_000_000;
        // read as words, so that a count too large for an int is refused here by its limit, not left "unmatched" by picocli
        @Parameters(paramLabel = "STAGES", description = "program sizes, each from 8 to 20000000 stages; default 100000 1000000")
        List<String> sizes = new ArrayList<>();
        @Option(names = "--json", description = "print one JSON document instead of text")
        boolean json;

        @Override
        public Integer call() {
            List<Integer> s = new ArrayList<>();
            for (String word : sizes.isEmpty() ? List.of("100000", "1000000") : sizes) {
                s.add(stageCount(word));
            }
            try (var progress = ProgressLines.to(spec.commandLine().getErr(), "bench verifier", json)) {
                progress.phase("generating and verifying programs of " + s + " stages", 0);
                if (json) {
                    java.io.StringWriter text = new java.io.StringWriter();
                    ScaleBench.run(s, stream(new PrintWriter(text)));
                    emit(spec, true, text.toString());
                } else {
                    ScaleBench.run(s, stream(spec.commandLine().getOut()));
                }
            } catch (java.io.IOException e) {
                return Reply.badInput(spec.commandLine(), json, "the bench could not write or read its temporary files: " + e.getMessage());
            }
            return ExitCode.OK;
        }

        /** A STAGES word as a count in [{@link #MIN_STAGES}, {@link #MAX_STAGES}], else a usage error saying so. */
        private int stageCount(String word) {
            // at most 18 digits always fit in a long; anything else is not a count in range
            long n = word.matches("[+-]?\\d{1,18}") ? Long.parseLong(word) : Long.MAX_VALUE;
            if (n < MIN_STAGES || n > MAX_STAGES) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(), "STAGES '" + word + "': each size is a whole number"
                        + " of stages from " + MIN_STAGES + " to " + MAX_STAGES);
            }
            return (int) n;
        }
    }

    @Command(name = "decode", mixinStandardHelpOptions = true,
            description = {"Author a model's decode step and run it token after token (KV cache carried); prints ms per token",
                    "next to the same step in numpy on the same weights (python3 with numpy, where present), and a matvec next to numpy's."})
    static final class Decode implements Callable<Integer> {
        @Spec
        CommandSpec spec;
        @Option(names = "--model", defaultValue = "small", description = "tiny, small or a model spec file; default small")
        String model;
        @Option(names = "--ctx", defaultValue = "64", description = "KV-cache positions; default 64")
        int ctx;
        @Option(names = "--steps", defaultValue = "8", description = "timed tokens after 2 warm-up tokens; default 8")
        int steps;
        @Option(names = "--tp", defaultValue = "1", description = "tensor-parallel chips; default 1")
        int tp;
        @Option(names = "--threads", description = "evaluator threads; default all cores")
        Integer threads;
        @Option(names = "--matvec-size", defaultValue = "4096", description = "K = N of the matvec compared with numpy's; default 4096")
        int matvecSize;
        @Option(names = "--json", description = "print one JSON document instead of text")
        boolean json;

        @Override
        public Integer call() {
            if (steps < 1 || steps + 2L > ctx) {
                return Reply.badInput(spec.commandLine(), json, "--steps must be at least 1 and steps + 2 warm-up tokens must fit in --ctx");
            }
            if ((threads != null && (threads < 1 || threads > MAX_THREADS)) || matvecSize < 1 || matvecSize > MAX_SIZE) {
                return Reply.badInput(spec.commandLine(), json, "--threads must be in [1, " + MAX_THREADS + "] and --matvec-size in [1, " + MAX_SIZE + "]");
            }
            ModelSpec m;
            try {
                m = ModelSpec.resolve(model);
            } catch (org.stagecheck.author.ModelSpecException e) {
                return Reply.badInput(spec.commandLine(), json, e.getMessage());
            }
            AuthorOutcome.Authored a;
            DecodeBench.Outcome o;
            try (var progress = ProgressLines.to(spec.commandLine().getErr(), "bench decode", json)) {
                progress.phase("authoring the decode step of " + model, 0);
                switch (Author.author(m, Cut.decode(ctx), AuthorOptions.single().withTp(tp))) {
                    case AuthorOutcome.Authored ok -> a = ok;
                    case AuthorOutcome.Refused r -> {
                        return Reply.badInput(spec.commandLine(), json, "refused (" + r.reason() + "): " + r.message());
                    }
                }
                int t = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
                progress.phase("decoding " + steps + " tokens after 2 warm-up ones, then numpy and the matvec", 0);
                o = DecodeBench.run(m, a, ctx, steps, tp, t, matvecSize);
            }
            if (o.fault() != null) {
                return Reply.failure(spec.commandLine(), json, "fault", ExitCode.CHECK_FAILED, "the decode step faulted: " + o.fault());
            }
            emit(spec, json, o.report());
            return ExitCode.OK;
        }
    }
}
