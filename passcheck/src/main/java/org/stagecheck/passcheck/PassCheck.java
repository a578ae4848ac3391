package org.stagecheck.passcheck;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.stagecheck.tensor.io.WriterTemp;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.Backends;
import org.stagecheck.reduce.Budget;
import org.stagecheck.reduce.Candidate;
import org.stagecheck.reduce.CandidateFiles;
import org.stagecheck.reduce.ReduceResult;
import org.stagecheck.reduce.Reducer;
import org.stagecheck.reduce.Verdict;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * Property tests of a compiler pass (brief, "Property testing"; docs/pass-testing.md). Give it the
 * pass, the laws and what to generate; it runs {@link #tries} seeded tries and on the first law
 * broken shrinks the program with the minimiser ({@link Reducer}), keeping the same broken law
 * with the same finding, writes the minimal program and its inputs under {@link #outputDir}, and
 * reports the seed, the law and the one command that replays the failing try.
 *
 * <pre>{@code
 * PassCheck.of("renumber buffers", myPass).laws(Law.defaults()).tries(200).check();
 * }</pre>
 *
 * <p>Deterministic: the i-th try's program is {@link Generators#draw} on {@code new
 * SplittableRandom(seed_i)}, where seed_i is the i-th value of {@code new SplittableRandom(base)},
 * base 0 (or {@code -Dstagecheck.seedBase=B}). {@code -Dstagecheck.seed=S} runs the one try of seed
 * S: the replay. A pass that throws breaks the law "does not throw".
 */
public final class PassCheck {
    /** The system property naming the one seed to replay. */
    public static final String REPLAY = "stagecheck.seed";
    /** The system property choosing another sequence of seeds. */
    public static final String BASE = "stagecheck.seedBase";
    /** The tries of a {@link #check} unless {@link #tries} says otherwise. */
    public static final int DEFAULT_TRIES = 200;

    private final String name;
    private final Pass pass;
    private List<Law> laws = Law.defaults();
    private GenConfig config = GenConfig.defaults();
    private int tries = DEFAULT_TRIES;
    private Budget shrinkBudget = new Budget(1_000, Duration.ofMinutes(2));
    private Path outputDir = Path.of("target", "passcheck");
    private Backend backend = Backends.named("interp");
    private java.util.function.Function<java.util.random.RandomGenerator, Generated> generator;

    private PassCheck(String name, Pass pass) {
        this.name = name;
        this.pass = pass;
    }

    public static PassCheck of(String name, Pass pass) {
        return new PassCheck(name, pass);
    }

    public PassCheck laws(List<Law> newLaws) {
        this.laws = List.copyOf(newLaws);
        return this;
    }

    public PassCheck laws(Law... newLaws) {
        return laws(List.of(newLaws));
    }

    public PassCheck config(GenConfig newConfig) {
        this.config = newConfig;
        return this;
    }

    public PassCheck tries(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("at least one try, not " + n);
        }
        this.tries = n;
        return this;
    }

    public PassCheck shrinkBudget(Budget budget) {
        this.shrinkBudget = budget;
        return this;
    }

    public PassCheck outputDir(Path dir) {
        this.outputDir = dir;
        return this;
    }

    /**
     * A generator of the user's own instead of {@link #config}: it must give the same program for
     * the same generator state (decorating {@link Generators#random}, say, with the patterns a
     * pass looks for).
     */
    public PassCheck generator(java.util.function.Function<java.util.random.RandomGenerator, Generated> custom) {
        this.generator = custom;
        return this;
    }

    /** The backend the law "same outputs" runs both programs on (the reference interpreter by default). */
    public PassCheck backend(Backend b) {
        this.backend = b;
        return this;
    }

    /** Runs the tries; throws an AssertionError with {@link PassCheckReport#text()} when a law breaks. */
    public PassCheckReport check() {
        PassCheckReport r = run();
        if (!r.passed()) {
            throw new AssertionError(r.text());
        }
        return r;
    }

    /** Runs the tries and returns the report, failing or not. */
    public PassCheckReport run() {
        String replayCommand = replayCommand();
        Generators generators = new Generators(config, backend);
        long[] seeds = seeds();
        for (int i = 0; i < seeds.length; i++) {
            SplittableRandom r = new SplittableRandom(seeds[i]);
            Generated g = generator != null ? generator.apply(r) : generators.draw(r);
            Optional<Violation> v = firstViolation(g.candidate(), g.certificate(), laws);
            if (v.isPresent()) {
                return new PassCheckReport(name, seeds.length, fail(i, seeds[i], g, v.get(), replayCommand));
            }
        }
        return new PassCheckReport(name, seeds.length, null);
    }

    private long[] seeds() {
        String replay = System.getProperty(REPLAY);
        if (replay != null && !replay.isBlank()) {
            return new long[] {Long.parseLong(replay.strip())};
        }
        String base = System.getProperty(BASE);
        SplittableRandom r = new SplittableRandom(base == null || base.isBlank() ? 0L : Long.parseLong(base.strip()));
        return LongStream.generate(r::nextLong).limit(tries).toArray();
    }

    /** The first law broken by the pass on {@code c}, checked in the order given. */
    private Optional<Violation> firstViolation(Candidate c, Certificate certificate, List<Law> which) {
        Pass.Result child;
        try {
            child = pass.apply(c.program(), certificate);
        } catch (RuntimeException e) {
            return Optional.of(new Violation("does not throw", "throws " + e.getClass().getSimpleName(), "the pass threw " + e));
        }
        Law.Application a = new Law.Application(c.program(), certificate, c.bound(), c.params(), child, pass, backend);
        for (Law law : which) {
            Optional<Violation> v = law.check(a);
            if (v.isPresent()) {
                return v;
            }
        }
        return Optional.empty();
    }

    private PassCheckReport.Failure fail(int index, long seed, Generated g, Violation violation, String replayCommand) {
        List<Law> broken = laws.stream().filter(l -> l.name().equals(violation.law())).toList();
        Reducer reducer = new Reducer(c -> firstViolation(c, Generators.restrict(g.certificate(), c.program()), broken.isEmpty() ? laws : broken)
                .<Verdict>map(v -> new Verdict.Fails(v.signature(), v.message())).orElse(new Verdict.Passes()),
                Backends.named("interp"), shrinkBudget, line -> { });
        Candidate original = g.candidate();
        ReduceResult shrink = null;
        Candidate minimal = original;
        Violation minimalViolation = violation;
        try {
            shrink = reducer.reduce(original);
            minimal = shrink.minimal();
            minimalViolation = firstViolation(minimal, Generators.restrict(g.certificate(), minimal.program()),
                    broken.isEmpty() ? laws : broken).orElse(violation);
        } catch (Reducer.NothingToReduce notReproduced) {
            // the law only broke with every law checked (a later law shadowed by an earlier one): report unshrunk
        }
        Path dir = write(minimal, g.certificate(), seed);
        return new PassCheckReport.Failure(index, seed, g.origin(), violation, minimalViolation, original.size(), minimal.size(),
                shrink, dir, replayCommand + " -D" + REPLAY + "=" + seed);
    }

    /** The minimal program, its inputs, and what the pass made of it, under {@code outputDir/<name>-seed-<S>}. */
    private Path write(Candidate minimal, Certificate certificate, long seed) {
        Path dir = outputDir.resolve(name.replaceAll("[^A-Za-z0-9_.-]", "-") + "-seed-" + seed).toAbsolutePath().normalize();
        try {
            Files.createDirectories(dir.getParent());
            // written whole beside it, then in place of an earlier failure's directory of the same seed
            try (WriterTemp tmp = WriterTemp.directory(dir)) {
                CandidateFiles.write(minimal, tmp.path());
                try {
                    Pass.Result child = pass.apply(minimal.program(), Generators.restrict(certificate, minimal.program()));
                    Files.write(tmp.path().resolve("child.json"), new ProgramCodec().write(child.program()));
                } catch (RuntimeException e) {
                    Files.writeString(tmp.path().resolve("child.txt"), "the pass threw " + e + "\n");
                }
                tmp.moveTo(dir);
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the minimal program to " + dir, e);
        }
    }

    /**
     * The Maven command that runs the calling test method alone (the first caller outside this
     * class) in the project that runs it ({@link MavenReplay}), to which the seed is appended.
     */
    private static String replayCommand() {
        StackWalker.StackFrame caller = StackWalker.getInstance().walk(frames -> frames
                .filter(f -> !f.getClassName().equals(PassCheck.class.getName()))
                .findFirst().orElse(null));
        String basedir = System.getProperty("basedir");
        String test = caller == null ? "<TestClass>#<method>"
                : caller.getClassName().substring(caller.getClassName().lastIndexOf('.') + 1).replaceAll("\\$.*", "") + "#" + caller.getMethodName();
        return MavenReplay.command(basedir == null ? null : Path.of(basedir), test, System.getProperty(MavenReplay.MAVEN));
    }
}
