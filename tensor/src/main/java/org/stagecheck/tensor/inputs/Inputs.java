package org.stagecheck.tensor.inputs;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.stagecheck.backend.BindingProblem;
import org.stagecheck.backend.Bindings;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.validate.NameRules;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.NpyHeader;
import org.stagecheck.tensor.npy.SafeNames;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * A run's inputs read from a directory (docs/format.md, "Inputs manifest"): each tensor of role
 * input, weight or state from the checkpoint tensor the manifest references (version 2), or the file the manifest names, else from
 * {@code DIR/<file name of the tensor>.npy}; a state tensor with neither starts at zero; the
 * parameters from the manifest. Every file stays inside the directory and its header is compared
 * with the program's declaration before its data is read; the result passes
 * {@link Bindings#check}, so a backend can run it as it is.
 */
public final class Inputs {
    private Inputs() {
    }

    /** A run's bound tensors (by tensor name) and parameter values (by parameter name). */
    public record Read(Map<String, Tensor> bound, Map<String, Long> params) {
        public Read {
            bound = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(bound));
            params = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(params));
        }
    }

    /** The inputs in {@code dir} for {@code program}: its {@code inputs.json} if it has one, else one {@code .npy} file per tensor. */
    public static Read read(Path dir, Program program) throws InputsException {
        InputsDir inputs = InputsDir.of("inputs directory", dir);
        return read(inputs, InputsManifest.readOrEmpty(inputs), program);
    }

    /**
     * The inputs of {@code program} named by {@code manifest} (or found by the {@code .npy} rule)
     * in {@code inputs}; refused, naming every problem, unless {@link Bindings#check} passes them.
     */
    public static Read read(InputsDir inputs, InputsManifest manifest, Program program) throws InputsException {
        Map<String, Tensor> bound = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        Map<String, Tensor> referenced = fromCheckpoint(inputs, manifest, program, java.util.Set.of());
        for (TensorDecl t : program.tensors()) {
            if (!t.role().isBoundBeforeRun()) {
                continue;
            }
            if (referenced.containsKey(t.name())) {
                bound.put(t.name(), referenced.get(t.name()));
                continue;
            }
            Path file = locate(inputs, manifest, t);
            if (Files.exists(file)) {
                bound.put(t.name(), readTensor(file, t, Bindings.Float64.REFUSED));
            } else if (t.role() == TensorRole.STATE) {
                bound.put(t.name(), Tensor.zeros(t.dtype(), t.shape()));
            } else {
                missing.add(t.name() + " (" + file + ")");
            }
        }
        if (!missing.isEmpty()) {
            throw new InputsException("missing input file(s) for " + String.join(", ", missing));
        }
        List<BindingProblem> problems = Bindings.check(program, bound, manifest.params());
        if (!problems.isEmpty()) {
            throw new InputsException(inputs.dir() + ": " + Bindings.describe(problems));
        }
        return new Read(bound, manifest.params());
    }

    /**
     * The bound tensors of {@code program} that {@code manifest} references in a checkpoint
     * (docs/format.md, "Checkpoint references"), but those named in {@code skip}: each read bit
     * for bit from its memory-mapped safetensors file, viewed and sliced as the reference says,
     * and checked against the program's declaration. Empty when the manifest has no checkpoint.
     */
    public static Map<String, Tensor> fromCheckpoint(InputsDir inputs, InputsManifest manifest, Program program,
                                                     java.util.Set<String> skip) throws InputsException {
        Map<String, Tensor> out = new LinkedHashMap<>();
        if (manifest.checkpoint() == null) {
            return out;
        }
        try (CheckpointBinding checkpoint = CheckpointBinding.open(inputs, manifest.checkpoint())) {
            for (TensorDecl t : program.tensors()) {
                org.stagecheck.spec.json.CheckpointRefs.TensorRef ref = manifest.checkpoint().tensors().get(t.name());
                if (ref != null && t.role().isBoundBeforeRun() && !skip.contains(t.name())) {
                    out.put(t.name(), checkpoint.read(t, ref));
                }
            }
        }
        return out;
    }

    /**
     * The file that holds {@code t} in {@code inputs}: the manifest's entry, else
     * {@code <file name of the tensor>.npy}; it may not exist, but it may not lead out of the directory.
     */
    public static Path locate(InputsDir inputs, InputsManifest manifest, TensorDecl t) throws InputsException {
        Path p = manifest.tensors().get(t.name());
        if (p != null) {
            return inputs.inside(p);
        }
        // names are data: the file name comes from SafeNames
        return inputs.inside(SafeNames.child(inputs.dir(), SafeNames.encode(t.name()) + ".npy"));
    }

    /**
     * Reads {@code file} as the value of {@code t}, refusing from its header alone a file of another
     * dtype or shape, or of float64 values unless {@code float64} accepts them.
     */
    public static Tensor readTensor(Path file, TensorDecl t, Bindings.Float64 float64) throws InputsException {
        if (!Files.isRegularFile(file) || Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new InputsException(file + " is not a regular file (the value of tensor " + NameRules.quote(t.name()) + ")");
        }
        boolean f64 = float64 == Bindings.Float64.ACCEPTED;
        try {
            NpyHeader h = Npy.readHeader(file, t.dtype()); // the declared dtype says which 8-bit float a |u1 file holds
            if (h.float64() && !f64 && h.shape().equals(t.shape()) && t.dtype() == h.dtype()) {
                throw new InputsException(file + " holds float64 values ('<f8') but tensor " + NameRules.quote(t.name()) + " is "
                        + t.dtype() + t.shape() + "; a float64 file is bound only in a --f64 run");
            }
            if (h.dtype() != t.dtype() || !h.shape().equals(t.shape()) || (h.float64() && !f64)) {
                throw new InputsException(file + " holds " + h.describe() + " but tensor " + NameRules.quote(t.name()) + " is " + t.dtype() + t.shape());
            }
            return Npy.read(file, t.dtype());
        } catch (TensorFileException e) {
            throw new InputsException(e.getMessage());
        }
    }
}
