package org.stagecheck.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.backend.BindingProblem;
import org.stagecheck.backend.Bindings;
import org.stagecheck.backend.ParamCheck;
import org.stagecheck.golden.GoldenInputs;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.ir.TensorRole;
import org.stagecheck.spec.validate.NameRules;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.inputs.Inputs;
import org.stagecheck.tensor.inputs.InputsDir;
import org.stagecheck.tensor.inputs.InputsException;
import org.stagecheck.tensor.inputs.InputsManifest;

/**
 * Where each bound tensor of a run comes from (docs/format.md, "Inputs manifest"; docs/cli.md,
^ * "Commands"), first match wins: {@code --bind NAME=FILE}; for a state tensor, the
 * {@code --state-from} directory (a previous run's output, through its {@code tensors.json});
 * the {@code --inputs} manifest (an inputs directory's {@code inputs.json}, or a golden case's
 * {@code manifest.json}); {@code --inputs DIR/<file name of the tensor>.npy}; then
 * {@code --random SEED}; a state tensor nobody gave starts at zero. The files are found and read
 * by the library's {@link Inputs} (every header compared with the program's declaration before
 * its data is read); this class adds only the command line's own sources.
 */
record RunInputs(InputsDir inputs, InputsDir stateFrom, Map<String, Path> explicit, Long seed, boolean f64) {
    /** The name of a run's index of its output directory. */
    static final String INDEX = "tensors.json";

    /** The inputs of a run: {@code --inputs} and {@code --state-from} (each may be null), {@code --bind}, {@code --random}, {@code --f64}. */
    static RunInputs of(Path inputs, Path stateFrom, Map<String, Path> explicit, Long seed, boolean f64) throws BadInputException {
        return new RunInputs(dir("--inputs", inputs), dir("--state-from", stateFrom), explicit, seed, f64);
    }

    private static InputsDir dir(String option, Path dir) throws BadInputException {
        try {
            return dir == null ? null : InputsDir.of(option, dir);
        } catch (InputsException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /** The {@code --inputs} directory's manifest, or the golden case's inputs and parameters (empty without {@code --inputs}). */
    InputsManifest manifest(Program program) throws BadInputException {
        try {
            return inputs == null ? InputsManifest.empty() : GoldenInputs.manifest(inputs, program);
        } catch (InputsException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    /**
     * The checkpoint references of the {@code --inputs} manifest that {@link #bind} binds (not those
     * {@code --bind} overrides), for a golden case to record instead of copies; null when none.
     */
    org.stagecheck.spec.json.CheckpointRefs referenced(Program program, InputsManifest manifest) {
        return inputs == null ? null : GoldenInputs.referenced(inputs, manifest, program, explicit.keySet());
    }

    Map<String, Tensor> bind(Program program, InputsManifest manifest) throws BadInputException {
        try {
            return bindFiles(program, manifest);
        } catch (InputsException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    private Map<String, Tensor> bindFiles(Program program, InputsManifest manifest) throws BadInputException, InputsException {
        InputsManifest stateIndex = stateFrom == null ? InputsManifest.empty() : InputsManifest.readOrEmpty(stateFrom, INDEX);
        Map<String, TensorDecl> decls = program.tensorsByName();
        for (String name : explicit.keySet()) {
            TensorDecl d = decls.get(name);
            if (d == null || !d.role().isBoundBeforeRun()) {
                throw new BadInputException("--bind " + NameRules.quote(name) + ": the program has no input, weight or state tensor of that name"
                        + NearestNames.suffix(name, program.tensors().stream().filter(t -> t.role().isBoundBeforeRun()).map(TensorDecl::name).toList()));
            }
        }
        Bindings.Float64 float64 = f64 ? Bindings.Float64.ACCEPTED : Bindings.Float64.REFUSED;
        Map<String, Tensor> bound = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        Map<String, Tensor> referenced = inputs == null ? Map.of() : Inputs.fromCheckpoint(inputs, manifest, program, explicit.keySet());
        for (TensorDecl t : program.tensors()) {
            if (!t.role().isBoundBeforeRun()) {
                continue;
            }
            if (referenced.containsKey(t.name())) {
                bound.put(t.name(), referenced.get(t.name()));
                continue;
            }
            Path file = locate(t, manifest, stateIndex);
            if (file != null && Files.exists(file)) {
                bound.put(t.name(), Inputs.readTensor(file, t, float64));
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

    private Path locate(TensorDecl t, InputsManifest manifest, InputsManifest stateIndex) throws InputsException {
        Path given = explicit.get(t.name());
        if (given != null) {
            return given; // named on the command line: the user's own choice of file
        }
        if (stateFrom != null && t.role() == TensorRole.STATE) {
            return Inputs.locate(stateFrom, stateIndex, t);
        }
        return inputs == null ? null : Inputs.locate(inputs, manifest, t);
    }

    /** The manifest's parameters overridden by {@code --param}; every program parameter bound, in range, and declared. */
    static Map<String, Long> params(Program program, InputsManifest manifest, Map<String, Long> paramOverrides) throws BadInputException {
        Map<String, Long> values = new LinkedHashMap<>(manifest.params());
        values.putAll(paramOverrides);
        List<BindingProblem> problems = ParamCheck.problems(program, values);
        if (!problems.isEmpty()) {
            boolean unbound = problems.stream().anyMatch(p -> p.code() == BindingProblem.Code.PARAM_UNBOUND);
            throw new BadInputException(Bindings.describe(problems) + (unbound ? " Give --param NAME=VALUE." : "") + paramHints(program, problems));
        }
        return values;
    }

    /** " For 'poss', did you mean 'pos'?" for each value given to a name that is no parameter but near one; empty when none is. */
    static String paramHints(Program program, List<BindingProblem> problems) {
        StringBuilder b = new StringBuilder();
        for (BindingProblem p : problems) {
            if (p.code() == BindingProblem.Code.PARAM_UNKNOWN) {
                String hint = NearestNames.didYouMean(p.subject(), program.paramsByName().keySet());
                if (!hint.isEmpty()) {
                    b.append(" For ").append(NameRules.quote(p.subject())).append(", ").append(hint);
                }
            }
        }
        return b.toString();
    }
}
