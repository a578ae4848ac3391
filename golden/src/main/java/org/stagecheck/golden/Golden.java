package org.stagecheck.golden;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import java.util.stream.Stream;

import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.tensor.Tensor;

/**
 * Golden cases as a library (brief, "Golden cases"; docs/golden.md): record the reference's
 * outputs of a program with their tolerances, and check any backend's (or any {@code .npy}
 * files') outputs against them.
 *
 * <pre>{@code
 * Golden.record(program, bound, params, RecordOptions.defaults(), Path.of("golden/cases/mm"));
 * CaseResult r = Golden.check(Path.of("golden/cases/mm"), new Actuals.FromBackend(myBackend));
 * System.out.println(TextReport.of(List.of(r)));
 * }</pre>
 */
public final class Golden {
    /** The version written into every case's provenance. */
    public static final String STAGECHECK_VERSION = "0.1.0";

    private Golden() {
    }

    /**
     * Records a case into {@code out}: the program, its bound tensors and parameters, the reference
     * interpreter's f32 outputs, their derived tolerances and (optionally) the trace. Atomic: an
     * interrupted record leaves the previous case or none. Deterministic: recording twice gives the
     * same bytes.
     *
     * @throws GoldenException bad input: an existing case without {@code update}, a program that is
     *                         not well-formed or faults, missing or mistyped bindings
     * @throws IOException     the file system failed
     */
    public static Manifest record(Program program, Map<String, Tensor> bound, Map<String, Long> params, RecordOptions options, Path out)
            throws GoldenException, IOException {
        return Recorder.record(program, bound, null, params, options, out);
    }

    /**
     * As {@link #record(Program, Map, Map, RecordOptions, Path)}, but the tensors of {@code bound}
     * that {@code referenced} names were read from a checkpoint's safetensors files (as
     * {@link org.stagecheck.tensor.inputs.Inputs#fromCheckpoint} reads them): the case records those
     * references (the checkpoint's absolute directory, each file's size and header hash, each
     * tensor's file, key, view and slice) instead of copying the tensors, and every reader of the
     * case binds them from the checkpoint again, refusing it if it changed. Each referenced tensor
     * is read once more and must equal its value in {@code bound} bit for bit.
     * {@link GoldenInputs#referenced} gives the references of an inputs directory or a case.
     *
     * @param referenced references of some of the bound tensors (null or none: as the other overload)
     * @throws GoldenException as the other overload, and a reference that is not of a bound tensor,
     *                         a relative checkpoint directory, or a value that differs from its reference
     */
    public static Manifest record(Program program, Map<String, Tensor> bound, CheckpointRefs referenced, Map<String, Long> params,
                                  RecordOptions options, Path out) throws GoldenException, IOException {
        return Recorder.record(program, bound, referenced == null || referenced.tensors().isEmpty() ? null : referenced, params, options, out);
    }

    /**
     * What a case was recorded from: its program, bound tensors and parameter values, as
     * {@code reduce --inputs CASE} re-runs it.
     */
    public record Recorded(Program program, Map<String, Tensor> inputs, Map<String, Long> params) {
        public Recorded {
            inputs = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(inputs));
            params = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(params));
        }
    }

    /**
     * Reads what the case in {@code caseDir} was recorded from.
     *
     * @throws GoldenException the case cannot be read, or is stale (its program no longer hashes
     *                         to the recorded hash)
     */
    public static Recorded recorded(Path caseDir) throws GoldenException {
        LoadedCase c = LoadedCase.read(caseDir);
        if (c.stale()) {
            throw new GoldenException(caseDir, null, "stale: its program hashes to " + c.actualHash() + ", the case was recorded for "
                    + c.manifest().programHash());
        }
        return new Recorded(c.program(), c.inputs(), c.manifest().params());
    }

    /** Checks one case with each output's recorded policy. Never throws: bad input is a {@link CaseResult.Status#BAD_INPUT} result. */
    public static CaseResult check(Path caseDir, Actuals actuals) {
        return check(caseDir, actuals, CheckOptions.defaults());
    }

    /**
     * Checks one case with {@code policy} for every output instead of the recorded ones (null: the
     * recorded ones). Under {@code derived}, an integer output is judged exactly (its derived
     * tolerance is zero), and a floating output whose case holds no tolerance file makes the case
     * {@link CaseResult.Status#BAD_INPUT} (there is nothing to scale).
     */
    public static CaseResult check(Path caseDir, Actuals actuals, Policy policy) {
        return check(caseDir, actuals, CheckOptions.defaults().withPolicy(policy));
    }

    /**
     * Checks one case under {@code options}: a policy override, and the program under test (a case
     * recorded for another one is {@link CaseResult.Status#PROGRAM_DIFFERS}, as is one whose actual
     * files a run of another program wrote). Never throws.
     */
    public static CaseResult check(Path caseDir, Actuals actuals, CheckOptions options) {
        return Checker.check(caseDir, actuals, options).from(actuals.kind());
    }

    /**
     * Checks every case under {@code paths} (a case directory, or a suite: a directory whose
     * subdirectories are cases), in parallel, results in path order. {@code actuals} is asked once
     * per case (a backend need not be thread-safe across cases).
     */
    public static List<CaseResult> checkAll(List<Path> cases, Supplier<Actuals> actuals, int threads) {
        return checkAll(cases, actuals, threads, CheckOptions.defaults());
    }

    /**
     * As {@link #checkAll(List, Supplier, int)}, every output of every case judged by {@code policy}
     * instead of its recorded one (null: the recorded ones), as {@link #check(Path, Actuals, Policy)} does.
     */
    public static List<CaseResult> checkAll(List<Path> cases, Supplier<Actuals> actuals, int threads, Policy policy) {
        return checkAll(cases, actuals, threads, CheckOptions.defaults().withPolicy(policy));
    }

    /** As {@link #checkAll(List, Supplier, int)}, every case checked under {@code options} as {@link #check(Path, Actuals, CheckOptions)} does. */
    public static List<CaseResult> checkAll(List<Path> cases, Supplier<Actuals> actuals, int threads, CheckOptions options) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(threads, cases.size())));
        try {
            List<Future<CaseResult>> futures = new ArrayList<>();
            for (Path c : cases) {
                futures.add(pool.submit(() -> {
                    Actuals a = actuals.get();
                    return Checker.check(c, a, options).from(a.kind());
                }));
            }
            List<CaseResult> out = new ArrayList<>();
            for (Future<CaseResult> f : futures) {
                out.add(f.get());
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking cases", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a case check failed unexpectedly: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * The case directories named by {@code paths}: a directory holding a manifest is a case; any
     * other directory is a suite whose subdirectories holding a manifest are its cases (sorted by
     * name; hidden ones, such as an interrupted record's temporary directory, skipped).
     *
     * @throws GoldenException a path that is neither
     */
    public static List<Path> expand(List<Path> paths) throws GoldenException {
        List<Path> out = new ArrayList<>();
        for (Path p : paths) {
            if (Files.isRegularFile(p.resolve(Manifest.FILE_NAME))) {
                out.add(p);
                continue;
            }
            if (!Files.isDirectory(p)) {
                throw new GoldenException(p, null, "no such case or suite directory");
            }
            try (Stream<Path> s = Files.list(p)) {
                List<Path> cases = s.filter(x -> !x.getFileName().toString().startsWith("."))
                        .filter(x -> Files.isRegularFile(x.resolve(Manifest.FILE_NAME))).sorted().toList();
                if (cases.isEmpty()) {
                    throw new GoldenException(p, null, "neither a golden case (no " + Manifest.FILE_NAME + ") nor a suite of cases");
                }
                out.addAll(cases);
            } catch (IOException e) {
                throw new GoldenException(p, null, "cannot be listed: " + e.getMessage());
            }
        }
        return out;
    }

    /**
     * The tolerance of a derived comparison between two conforming implementations: each is within
     * the bound B of the true value, so they are within 2B of each other. Stored as f32, each
     * element rounded up so the stored tolerance is never below 2B.
     */
    public static Tensor toleranceOf(Tensor bound) {
        int n = Math.toIntExact(bound.size());
        float[] t = new float[n];
        for (int i = 0; i < n; i++) {
            double b = 2 * bound.getDouble(i);
            float f = (float) b;
            t[i] = Double.isNaN(b) ? Float.NaN : f < b ? Math.nextUp(f) : f;
        }
        return Tensor.wrapFloats(Shape.of(bound.shape().toArray()), t);
    }
}
