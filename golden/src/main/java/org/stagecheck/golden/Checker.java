package org.stagecheck.golden;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.compare.Comparator;
import org.stagecheck.tensor.compare.Operand;
import org.stagecheck.tensor.compare.Policy;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.spec.json.InputsManifestCodec;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * Checks one case: load, get the actual values, compare each output under its policy. Expected
 * outputs, tolerances and actual files are compared as they are read, range by range, never
 * loaded whole.
 */
final class Checker {
    /** The largest heat map kept per output, in cells per side. */
    static final int HEAT_MAP_SIDE = 256;

    private Checker() {
    }

    /** Checks the case in {@code dir}, timed. */
    static CaseResult check(Path dir, Actuals actuals, CheckOptions options) {
        long start = System.nanoTime();
        CaseResult r = compare(dir, actuals, options);
        return r.took(Duration.ofNanos(System.nanoTime() - start));
    }

    private static CaseResult compare(Path dir, Actuals actuals, CheckOptions options) {
        Policy override = options.policy();
        String name = dir.toAbsolutePath().normalize().getFileName().toString();
        String backend = actuals.describe();
        LoadedCase c;
        try {
            c = LoadedCase.read(dir);
        } catch (GoldenException e) {
            return CaseResult.bad(dir, backend, e);
        }
        Manifest m = c.manifest();
        if (c.stale()) {
            return new CaseResult(name, dir, CaseResult.Status.STALE, "stale: " + m.programFile() + " hashes to " + c.actualHash()
                    + ", the case was recorded for " + m.programHash() + "; re-record it (golden record --update)", List.of(), m.warnings(), backend, m.programHash());
        }
        Map<String, Operand> actual;
        try {
            String differs = programDiffers(m, actuals, options);
            if (differs != null) {
                return new CaseResult(name, dir, CaseResult.Status.PROGRAM_DIFFERS, differs, List.of(), m.warnings(), backend, m.programHash());
            }
            refuseDerivedWithoutTolerance(c, override);
            actual = actuals(c, actuals);
        } catch (GoldenException e) {
            return CaseResult.bad(dir, backend, e);
        } catch (BackendFault f) {
            return new CaseResult(name, dir, CaseResult.Status.FAIL, f.getMessage(), List.of(), m.warnings(), backend, m.programHash());
        }
        List<CaseResult.OutputResult> outs = new ArrayList<>();
        boolean pass = true;
        for (int i = 0; i < m.outputs().size(); i++) {
            Manifest.Output o = m.outputs().get(i);
            Operand expected = c.expected().get(o.tensor());
            Operand tol = c.tolerances().get(o.tensor());
            Policy p = applied(o, override);
            if (tol == null && p instanceof Policy.Derived) {
                // an integer output (a floating one without a tolerance was refused above): its derived tolerance is zero
                tol = new Operand.Zeros(expected.shape());
            }
            Comparator.Compared cmp;
            long start = System.nanoTime();
            try {
                cmp = Comparator.compare(expected, actual.get(o.tensor()), p, tol, HEAT_MAP_SIDE);
            } catch (TensorFileException e) {
                // a file that became unreadable, or changed, after the case was loaded
                return CaseResult.bad(dir, backend, new GoldenException(null, "/outputs/" + i, e.getMessage(), e));
            }
            outs.add(new CaseResult.OutputResult(o.tensor(), cmp.comparison(), cmp.errorMap(), Duration.ofNanos(System.nanoTime() - start)));
            pass &= cmp.comparison().passed();
        }
        long failed = outs.stream().filter(x -> !x.comparison().passed()).count();
        return new CaseResult(name, dir, pass ? CaseResult.Status.PASS : CaseResult.Status.FAIL,
                pass ? null : failed + " of " + outs.size() + " output(s) mismatch", outs, m.warnings(), backend, m.programHash());
    }

    /**
     * Why the values under test are not of the program the case was recorded for, or null: the
     * program under test ({@link CheckOptions#programHash}) hashes otherwise, or the actual files'
     * run index ({@link Actuals.FromDirectory#INDEX}, written by {@code stagecheck run}) names
     * another program. An index without a program hash (an older run, another tool) says nothing.
     */
    private static String programDiffers(Manifest m, Actuals actuals, CheckOptions options) throws GoldenException {
        if (options.programHash() != null && !options.programHash().equals(m.programHash())) {
            return "the case was recorded for program " + m.programHash() + ", the program under test hashes to " + options.programHash()
                    + "; re-record the case from it (golden record --update) or check the program it was recorded for";
        }
        if (actuals instanceof Actuals.FromDirectory d) {
            Path index = d.dir().resolve(Actuals.FromDirectory.INDEX);
            if (Files.exists(index, LinkOption.NOFOLLOW_LINKS)) {
                String ran;
                try {
                    ran = new InputsManifestCodec().read(index).programHash();
                } catch (JsonFormatException e) {
                    throw new GoldenException(index, null, "not a run's index (" + e.getMessage() + ")", e);
                }
                if (ran != null && !ran.equals(m.programHash())) {
                    return "the case was recorded for program " + m.programHash() + ", the outputs in " + d.dir() + " were written by a run of program "
                            + ran + " (" + index.getFileName() + "); check them against a case recorded for that program";
                }
            }
        }
        return null;
    }

    /** The policy output {@code o} is judged by: {@code override} when given, else its recorded one. */
    private static Policy applied(Manifest.Output o, Policy override) {
        return override != null ? override : o.policy();
    }

    /**
     * Refuses, before any backend runs, a floating output judged by {@code derived} whose case
     * holds no tolerance file (a hand-made or partial case; {@code golden record} writes one for
     * every floating output): there is no per-element tolerance to scale, and judging it exactly
     * instead would fail a backend for the case's omission.
     */
    private static void refuseDerivedWithoutTolerance(LoadedCase c, Policy override) throws GoldenException {
        List<Manifest.Output> outs = c.manifest().outputs();
        for (int i = 0; i < outs.size(); i++) {
            Manifest.Output o = outs.get(i);
            if (applied(o, override) instanceof Policy.Derived && o.dtype().isFloating() && !c.tolerances().containsKey(o.tensor())) {
                throw new GoldenException(c.dir().resolve(Manifest.FILE_NAME), "/outputs/" + i + "/tolerance",
                        "output '" + o.tensor() + "' (" + o.dtype() + ") has no tolerance file, so policy '" + applied(o, override).spelling()
                                + "' cannot judge it; re-record the case (golden record --update) or judge it by another policy");
            }
        }
    }

    /** A backend run that faulted: the case fails (the backend could not produce outputs). */
    private static final class BackendFault extends Exception {
        BackendFault(String message) {
            super(message);
        }
    }

    private static Map<String, Operand> actuals(LoadedCase c, Actuals a) throws GoldenException, BackendFault {
        Map<String, Operand> out = new LinkedHashMap<>();
        switch (a) {
            case Actuals.FromBackend b -> {
                RunResult r = b.backend().runChecked(c.program(), c.inputs(), c.manifest().params(), false);
                if (!r.ok() && r.stoppedAtStage() == null) {
                    // no stage ran: the backend cannot run here (no driver, no device) or refused the program
                    throw new GoldenException(null, null, "backend " + b.backend().name() + " could not run the case's program: "
                            + r.faults().get(0).render());
                }
                if (!r.ok()) {
                    throw new BackendFault("backend " + b.backend().name() + " faulted at stage '" + r.stoppedAtStage() + "': " + r.faults().get(0).render());
                }
                for (Manifest.Output o : c.manifest().outputs()) {
                    Tensor t = r.tensor(o.tensor());
                    if (t == null) {
                        throw new BackendFault("backend " + b.backend().name() + " produced no tensor '" + o.tensor() + "'");
                    }
                    out.put(o.tensor(), Operand.of(t));
                }
            }
            case Actuals.FromDirectory d -> {
                for (int i = 0; i < c.manifest().outputs().size(); i++) {
                    Manifest.Output o = c.manifest().outputs().get(i);
                    Path f = actualFile(d.dir(), o);
                    Operand t = LoadedCase.openNpy(f, c.dir().resolve(Manifest.FILE_NAME), "/outputs/" + i, o.dtype());
                    if (t.dtype() != o.dtype() || !t.shape().equals(o.shape()) || t.float64()) {
                        throw new GoldenException(f, "/outputs/" + i, "holds " + (t.float64() ? "float64" : t.dtype().toString()) + t.shape()
                                + " but output '" + o.tensor() + "' is " + o.dtype() + o.shape());
                    }
                    out.put(o.tensor(), t);
                }
            }
            case Actuals.FromTensors t -> {
                for (int i = 0; i < c.manifest().outputs().size(); i++) {
                    Manifest.Output o = c.manifest().outputs().get(i);
                    Tensor v = t.tensors().get(o.tensor());
                    if (v == null) {
                        throw new GoldenException(null, "/outputs/" + i, "no actual value for output '" + o.tensor() + "'");
                    }
                    out.put(o.tensor(), Operand.of(v));
                }
            }
        }
        return out;
    }

    /**
     * {@code dir/<tensor>.npy} when the tensor's name is a plain file name, else (or when that file
     * does not exist) the expected file's own name in {@code dir}. A name is never allowed to
     * reach outside {@code dir}.
     */
    static Path actualFile(Path dir, Manifest.Output o) {
        Path base = dir.toAbsolutePath().normalize();
        String n = o.tensor();
        boolean plain = !n.isEmpty() && !n.equals(".") && !n.equals("..") && n.chars().noneMatch(ch -> ch == '/' || ch == '\\' || ch == 0 || ch == ':');
        if (plain) {
            Path p = base.resolve(n + ".npy").normalize();
            if (p.getParent().equals(base) && Files.exists(p)) {
                return p;
            }
        }
        String fileName = Path.of(o.file()).getFileName().toString();
        Path byCaseName = base.resolve(fileName).normalize();
        if (!plain || Files.exists(byCaseName)) {
            return byCaseName;
        }
        return base.resolve(n + ".npy").normalize();
    }
}
