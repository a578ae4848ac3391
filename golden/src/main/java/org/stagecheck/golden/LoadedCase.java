package org.stagecheck.golden;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.BindingProblem;
import org.stagecheck.backend.Bindings;
import org.stagecheck.tensor.compare.Operand;
import org.stagecheck.tensor.compare.ToleranceValues;
import org.stagecheck.golden.store.CasePaths;
import org.stagecheck.golden.store.Manifest;
import org.stagecheck.golden.store.ManifestCodec;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * A golden case read from disk and checked for consistency: every file inside the case
 * directory and readable, every tensor of the dtype and shape the manifest and the program say,
 * every bound tensor and parameter present (a tensor the manifest references in a checkpoint read
 * from there, the checkpoint refused if it changed since recording). {@link #stale()} says whether
 * the program file still hashes to the recorded hash; a stale case is not loaded further. Inputs are read; expected
 * outputs and tolerances are only opened (headers checked against the manifest and the program),
 * and the comparison reads them range by range, so a case of gigabytes loads in little memory.
 */
record LoadedCase(Path dir, Manifest manifest, Program program, boolean stale, String actualHash,
                  Map<String, Tensor> inputs, Map<String, Operand> expected, Map<String, Operand> tolerances) {

    static LoadedCase read(Path dir) throws GoldenException {
        Path mf = dir.resolve(Manifest.FILE_NAME);
        if (!Files.isRegularFile(mf)) {
            throw new GoldenException(dir, null, "not a golden case: no " + Manifest.FILE_NAME);
        }
        Manifest m = ManifestCodec.read(mf);
        Path programPath = CasePaths.inside(dir, m.programFile(), mf, "/program/file");
        Program program;
        try {
            // the JSON reader bounds the size and refuses a pipe or device (which would never end or never open)
            program = new ProgramCodec().read(new JsonReader().read(programPath));
        } catch (JsonFormatException e) {
            throw new GoldenException(programPath, null, "not a readable program: " + e.getMessage(), e);
        }
        String hash = new ProgramCodec().hash(program);
        if (!hash.equals(m.programHash())) {
            return new LoadedCase(dir, m, program, true, hash, Map.of(), Map.of(), Map.of());
        }
        Map<String, TensorDecl> decls = program.tensorsByName();
        Map<String, Tensor> inputs = new LinkedHashMap<>();
        for (int i = 0; i < m.inputs().size(); i++) {
            Manifest.TensorFile t = m.inputs().get(i);
            String at = "/inputs/" + i;
            TensorDecl d = decl(decls, t.tensor(), mf, at);
            if (!d.role().isBoundBeforeRun()) {
                throw new GoldenException(mf, at + "/tensor", "tensor '" + t.tensor() + "' is " + d.role().jsonName() + ", not bound before a run");
            }
            inputs.put(t.tensor(), tensor(dir, mf, at, t.file(), t.dtype(), t.shape(), d));
        }
        if (m.checkpoint() != null) {
            // read last, after every file of the case itself is found sound; in program order with the rest
            Map<String, Tensor> referenced = ReferencedInputs.read(dir, m, program);
            Map<String, Tensor> all = new LinkedHashMap<>();
            for (TensorDecl d : program.tensors()) {
                Tensor v = inputs.containsKey(d.name()) ? inputs.get(d.name()) : referenced.get(d.name());
                if (v != null) {
                    all.put(d.name(), v);
                }
            }
            inputs = all;
        }
        // the inputs read above have their declared dtype and shape: what is left to find is a tensor without a file, or a parameter
        List<BindingProblem> problems = Bindings.check(program, inputs, m.params());
        if (!problems.isEmpty()) {
            throw inManifest(mf, program, problems.getFirst());
        }
        Map<String, Operand> expected = new LinkedHashMap<>();
        Map<String, Operand> tolerances = new LinkedHashMap<>();
        for (int i = 0; i < m.outputs().size(); i++) {
            Manifest.Output o = m.outputs().get(i);
            String at = "/outputs/" + i;
            TensorDecl d = decl(decls, o.tensor(), mf, at);
            if (!d.role().isResult()) {
                throw new GoldenException(mf, at + "/tensor", "tensor '" + o.tensor() + "' is " + d.role().jsonName() + ", not an output or state");
            }
            if (expected.containsKey(o.tensor())) {
                throw new GoldenException(mf, at + "/tensor", "tensor '" + o.tensor() + "' is listed twice");
            }
            expected.put(o.tensor(), output(dir, mf, at, o.file(), o.dtype(), o.shape(), d));
            if (o.tolerance() != null) {
                Path tp = CasePaths.inside(dir, o.tolerance(), mf, at + "/tolerance");
                Operand.NpyFile tol = openNpy(tp, mf, at + "/tolerance", null);
                if (!tol.shape().equals(o.shape()) || !tol.dtype().isFloating()) {
                    throw new GoldenException(tp, at + "/tolerance", "holds " + tol.dtype() + tol.shape() + ", expected a floating tensor of shape " + o.shape());
                }
                try {
                    ToleranceValues.check(tol);
                } catch (TensorFileException e) {
                    throw new GoldenException(null, at + "/tolerance", e.getMessage(), e);
                }
                tolerances.put(o.tensor(), tol);
            }
        }
        return new LoadedCase(dir, m, program, false, hash, inputs, expected, tolerances);
    }

    /** {@code p} as a fault of the manifest {@code mf}, pointing at the entry that causes it. */
    private static GoldenException inManifest(Path mf, Program program, BindingProblem p) {
        return switch (p.code()) {
            case MISSING_INPUT -> new GoldenException(mf, "/inputs", "no input file for tensor '" + p.subject() + "' ("
                    + program.tensorsByName().get(p.subject()).role().jsonName() + ")");
            case PARAM_UNBOUND, PARAM_OUT_OF_RANGE -> new GoldenException(mf, "/params/" + p.subject(),
                    "needs a value in " + p.expected() + ", not " + p.found());
            case PARAM_UNKNOWN -> new GoldenException(mf, "/params/" + p.subject(), "the program has no such parameter");
            case BINDING_UNKNOWN, BINDING_DTYPE, BINDING_SHAPE -> new GoldenException(mf, "/inputs", p.message());
        };
    }

    private static TensorDecl decl(Map<String, TensorDecl> decls, String name, Path mf, String at) throws GoldenException {
        TensorDecl d = decls.get(name);
        if (d == null) {
            throw new GoldenException(mf, at + "/tensor", "the program has no tensor '" + name + "'");
        }
        return d;
    }

    /** An input's file, read whole (a backend runs on it), after the checks {@link #output} makes. */
    private static Tensor tensor(Path dir, Path mf, String at, String file, DType dtype, Shape shape, TensorDecl d) throws GoldenException {
        Operand.NpyFile f = output(dir, mf, at, file, dtype, shape, d);
        Tensor t = readNpy(f.path(), mf, at + "/file", dtype);
        requireHolds(f.path(), at, d, dtype, shape, t.dtype(), t.isFloat64(), t.shape());
        return t;
    }

    /**
     * A tensor's file, opened, not read: the manifest's dtype and shape are the program's, and the
     * file's header says that dtype and shape (not float64-mode values).
     */
    private static Operand.NpyFile output(Path dir, Path mf, String at, String file, DType dtype, Shape shape, TensorDecl d) throws GoldenException {
        if (dtype != d.dtype() || !shape.equals(d.shape())) {
            throw new GoldenException(mf, at + (dtype != d.dtype() ? "/dtype" : "/shape"), "says " + dtype + shape
                    + " but the program declares '" + d.name() + "' as " + d.dtype() + d.shape());
        }
        Path p = CasePaths.inside(dir, file, mf, at + "/file");
        Operand.NpyFile f = openNpy(p, mf, at + "/file", dtype);
        requireHolds(p, at, d, dtype, shape, f.dtype(), f.float64(), f.shape());
        return f;
    }

    private static void requireHolds(Path p, String at, TensorDecl d, DType dtype, Shape shape, DType has, boolean float64, Shape hasShape)
            throws GoldenException {
        if (has != dtype || !hasShape.equals(shape) || float64) {
            throw new GoldenException(p, at, "holds " + (float64 ? "float64" : has.toString()) + hasShape
                    + " but tensor '" + d.name() + "' is " + dtype + shape);
        }
    }

    /**
     * The .npy at {@code p} opened for a streamed comparison: its header read and checked (a
     * truncated or malformed file is refused here, as {@link #readNpy} refuses it), its data not.
     */
    static Operand.NpyFile openNpy(Path p, Path mf, String field, DType declared) throws GoldenException {
        if (!Files.exists(p)) {
            throw new GoldenException(p, field, "missing (named in " + mf.getFileName() + ")");
        }
        try {
            return Operand.NpyFile.open(p, declared);
        } catch (TensorFileException e) {
            throw new GoldenException(p, field, e.getMessage(), e);
        }
    }

    /** The .npy at {@code p}; {@code declared} (nullable) tells 8-bit float codes apart. */
    static Tensor readNpy(Path p, Path mf, String field, DType declared) throws GoldenException {
        if (!Files.exists(p)) {
            throw new GoldenException(p, field, "missing (named in " + mf.getFileName() + ")");
        }
        try {
            return Npy.read(p, declared);
        } catch (TensorFileException e) {
            throw new GoldenException(p, field, e.getMessage(), e);
        }
    }
}
