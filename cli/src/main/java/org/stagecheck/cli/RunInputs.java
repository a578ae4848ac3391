package org.stagecheck.cli;

import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.validate.NameRules;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.NpyHeader;
import org.stagecheck.tensor.npy.SafeNames;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * Where each bound tensor of a run comes from (docs/format.md, "Inputs manifest"; docs/cli.md,
^ * "Commands"), first match wins: {@code --bind NAME=FILE}; for a state tensor, the
 * {@code --state-from} directory (a previous run's output, through its {@code tensors.json});
 * the {@code --inputs} manifest; {@code --inputs DIR/<file name of the tensor>.npy}; then
 * {@code --random SEED}; a state tensor nobody gave starts at zero. Every file's header is compared
 * with the program's declaration before its data is read.
 */
record RunInputs(InputsDir inputs, InputsDir stateFrom, Map<String, Path> explicit, Long seed, boolean f64) {
    /** The name of a run's index of its output directory. */
    static final String INDEX = "tensors.json";

    /** The {@code --inputs} directory's manifest (empty when there is none). */
    InputsManifest manifest() throws BadInputException {
        return inputs == null ? empty() : InputsManifest.readOrEmpty(inputs, InputsManifest.FILE_NAME);
    }

    Map<String, Tensor> bind(Program program, InputsManifest manifest) throws BadInputException {
        InputsManifest stateIndex = stateFrom == null ? empty() : InputsManifest.readOrEmpty(stateFrom, INDEX);
        Map<String, TensorDecl> decls = program.tensorsByName();
        for (String name : explicit.keySet()) {
            TensorDecl d = decls.get(name);
            if (d == null || !d.role().isBoundBeforeRun()) {
                throw new BadInputException("--bind " + NameRules.quote(name) + ": the program has no input, weight or state tensor of that name");
            }
        }
        Map<String, Tensor> bound = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        for (TensorDecl t : program.tensors()) {
            if (!t.role().isBoundBeforeRun()) {
                continue;
            }
            Path file = locate(t, manifest, stateIndex);
            if (file != null && Files.exists(file)) {
                bound.put(t.name(), read(file, t));
            } else if (explicit.containsKey(t.name()) || (stateFrom != null && t.role() == TensorRole.STATE)) {
                String from = explicit.containsKey(t.name()) ? "--bind" : "--state-from " + stateFrom.dir();
                throw new BadInputException(from + ": no file " + file + " for " + t.role().jsonName() + " tensor " + NameRules.quote(t.name()));
            } else if (seed != null) {
                bound.put(t.name(), RandomBindings.of(t, seed));
            } else if (t.role() == TensorRole.STATE) {
                bound.put(t.name(), Tensor.zeros(t.dtype(), t.shape()));
            } else {
                missing.add(t.name() + (file == null ? "" : " (" + file + ")"));
            }
        }
        if (!missing.isEmpty()) {
            throw new BadInputException("missing input file(s) for " + String.join(", ", missing)
                    + (inputs == null ? "; give --inputs DIR or --random SEED" : ""));
        }
        return bound;
    }

    private Path locate(TensorDecl t, InputsManifest manifest, InputsManifest stateIndex) throws BadInputException {
        Path given = explicit.get(t.name());
        if (given != null) {
            return given; // named on the command line: the user's own choice of file
        }
        if (stateFrom != null && t.role() == TensorRole.STATE) {
            Path p = stateIndex.tensors().get(t.name());
            return stateFrom.inside(p != null ? p : SafeNames.child(stateFrom.dir(), SafeNames.encode(t.name()) + ".npy"));
        }
        Path p = manifest.tensors().get(t.name());
        if (p != null) {
            return inputs.inside(p);
        }
        if (inputs != null) {
            return inputs.inside(SafeNames.child(inputs.dir(), SafeNames.encode(t.name()) + ".npy"));
        }
        return null;
    }

    /** Reads {@code file} for {@code t}, refusing from its header alone a file that cannot be bound. */
    private Tensor read(Path file, TensorDecl t) throws BadInputException {
        if (!Files.isRegularFile(file) || Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
            throw new BadInputException(file + " is not a regular file (the value of tensor " + NameRules.quote(t.name()) + ")");
        }
        try {
            NpyHeader h = Npy.readHeader(file, t.dtype()); // the declared dtype says which 8-bit float a |u1 file holds
            if (h.float64() && !f64 && h.shape().equals(t.shape()) && t.dtype() == h.dtype()) {
                throw new BadInputException(file + " holds float64 values ('<f8') but tensor " + NameRules.quote(t.name()) + " is "
                        + t.dtype() + t.shape() + "; a float64 file is bound only in a --f64 run");
            }
            if (h.dtype() != t.dtype() || !h.shape().equals(t.shape()) || (h.float64() && !f64)) {
                throw new BadInputException(file + " holds " + h.describe() + " but tensor " + NameRules.quote(t.name()) + " is " + t.dtype() + t.shape());
            }
            return Npy.read(file, t.dtype());
        } catch (TensorFileException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** The manifest's parameters overridden by {@code --param}; every program parameter bound, in range, and declared. */
    static Map<String, Long> params(Program program, InputsManifest manifest, Map<String, Long> paramOverrides) throws BadInputException {
        Map<String, Long> values = new LinkedHashMap<>(manifest.params());
        values.putAll(paramOverrides);
        List<org.stagecheck.spec.diag.Diagnostic> faults = org.stagecheck.backend.ParamCheck.faults(program, values);
        if (!faults.isEmpty()) {
            StringBuilder msg = new StringBuilder();
            for (org.stagecheck.spec.diag.Diagnostic d : faults) {
                msg.append(msg.isEmpty() ? "" : "; ").append(d.message());
            }
            boolean unbound = faults.stream().anyMatch(d -> d.code().equals("PARAM_UNBOUND"));
            throw new BadInputException(msg + (unbound ? " Give --param NAME=VALUE." : ""));
        }
        return values;
    }

    private static InputsManifest empty() {
        return new InputsManifest(Map.of(), Map.of());
    }
}
