package org.stagecheck.golden;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import org.stagecheck.golden.store.Manifest;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.tensor.Storage;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.inputs.Inputs;
import org.stagecheck.tensor.inputs.InputsDir;
import org.stagecheck.tensor.inputs.InputsException;
import org.stagecheck.tensor.inputs.InputsManifest;

/**
 * A case's bound tensors that live in a checkpoint (docs/golden.md, "Checkpoint references"):
 * recorded as the references an authored inputs manifest holds, never copied, and bound again by
 * {@link Inputs#fromCheckpoint} (the one reader), which refuses a checkpoint file whose size or
 * header changed since.
 */
final class ReferencedInputs {
    private ReferencedInputs() {
    }

    /**
     * The references of {@code refs} that bind {@code program}'s tensors, but those in {@code skip}:
     * in program order, with the facts of the files they use only, the directory resolved against
     * {@code base} (the directory of the manifest that named it) and made absolute; null when none.
     */
    static CheckpointRefs restrict(CheckpointRefs refs, Path base, Program program, Set<String> skip) {
        if (refs == null) {
            return null;
        }
        Map<String, CheckpointRefs.TensorRef> tensors = new LinkedHashMap<>();
        Map<String, CheckpointRefs.FileFacts> files = new LinkedHashMap<>();
        for (TensorDecl d : program.tensors()) {
            CheckpointRefs.TensorRef ref = refs.tensors().get(d.name());
            if (ref == null || !d.role().isBoundBeforeRun() || skip.contains(d.name())) {
                continue;
            }
            tensors.put(d.name(), ref);
            CheckpointRefs.FileFacts facts = refs.files().get(ref.file());
            if (facts != null) {
                files.putIfAbsent(ref.file(), facts);
            }
        }
        if (tensors.isEmpty()) {
            return null;
        }
        Path dir = base.toAbsolutePath().resolve(refs.dir()).normalize();
        return new CheckpointRefs(dir.toString(), files, tensors);
    }

    /**
     * {@code refs} as a case records them, after checking that they can be: the directory is
     * absolute, every reference is of a tensor bound before the run and its file's facts are
     * known, and each referenced tensor, read again one at a time (a model's weights are never held
     * twice), equals its value in {@code bound} bit for bit.
     */
    static CheckpointRefs checkForRecording(Program program, Map<String, Tensor> bound, CheckpointRefs refs) throws GoldenException {
        Path dir;
        try {
            dir = Path.of(refs.dir());
        } catch (InvalidPathException e) {
            throw new GoldenException(null, null, "the checkpoint directory \"" + refs.dir() + "\" is not a valid path");
        }
        if (!dir.isAbsolute()) {
            throw new GoldenException(null, null, "the checkpoint directory \"" + refs.dir() + "\" is relative; a case records it"
                    + " absolute (GoldenInputs.referenced resolves it against its manifest's directory)");
        }
        Map<String, TensorDecl> decls = program.tensorsByName();
        for (Map.Entry<String, CheckpointRefs.TensorRef> e : refs.tensors().entrySet()) {
            TensorDecl d = decls.get(e.getKey());
            if (d == null || !d.role().isBoundBeforeRun()) {
                throw new GoldenException(null, null, "checkpoint reference of tensor '" + e.getKey()
                        + "': the program has no input, weight or state tensor of that name; nothing was recorded");
            }
            if (!refs.files().containsKey(e.getValue().file())) {
                throw new GoldenException(null, null, "checkpoint reference of tensor '" + e.getKey() + "' names file \""
                        + e.getValue().file() + "\", whose size and header hash are not given; nothing was recorded");
            }
        }
        CheckpointRefs out = restrict(refs, dir, program, Set.of());
        InputsDir checkpoint;
        try {
            checkpoint = InputsDir.of("checkpoint directory", dir);
        } catch (InputsException e) {
            throw new GoldenException(null, null, e.getMessage() + "; nothing was recorded");
        }
        for (Map.Entry<String, CheckpointRefs.TensorRef> e : out.tensors().entrySet()) {
            String file = e.getValue().file();
            CheckpointRefs one = new CheckpointRefs(out.dir(), Map.of(file, out.files().get(file)), Map.of(e.getKey(), e.getValue()));
            Tensor stored;
            try {
                stored = Inputs.fromCheckpoint(checkpoint, new InputsManifest(Map.of(), Map.of(), one), program, Set.of()).get(e.getKey());
            } catch (InputsException x) {
                throw new GoldenException(null, null, x.getMessage() + "; nothing was recorded");
            }
            if (!sameBits(stored, bound.get(e.getKey()))) {
                throw new GoldenException(null, null, "tensor '" + e.getKey() + "' is bound to a value other than its checkpoint reference's ("
                        + Path.of(out.dir()).resolve(file) + ", key \"" + e.getValue().key() + "\"); nothing was recorded");
            }
        }
        return out;
    }

    /**
     * The tensors the case's manifest {@code m} references in a checkpoint, read for {@code program}
     * (the case's own): every reference must be of a tensor bound before the run, and a checkpoint
     * changed since recording is refused, naming the file.
     */
    static Map<String, Tensor> read(Path caseDir, Manifest m, Program program) throws GoldenException {
        Path mf = caseDir.resolve(Manifest.FILE_NAME);
        Map<String, TensorDecl> decls = program.tensorsByName();
        for (String name : m.checkpoint().tensors().keySet()) {
            TensorDecl d = decls.get(name);
            String at = "/checkpoint/tensors/" + name.replace("~", "~0").replace("/", "~1");
            if (d == null) {
                throw new GoldenException(mf, at, "the program has no tensor '" + name + "'");
            }
            if (!d.role().isBoundBeforeRun()) {
                throw new GoldenException(mf, at, "tensor '" + name + "' is " + d.role().jsonName() + ", not bound before a run");
            }
        }
        try {
            InputsDir dir = InputsDir.of("golden case", caseDir);
            return Inputs.fromCheckpoint(dir, new InputsManifest(Map.of(), Map.of(), m.checkpoint()), program, Set.of());
        } catch (InputsException e) {
            throw new GoldenException(mf, "/checkpoint", e.getMessage() + " (the case was recorded from the checkpoint as it was then:"
                    + " restore it, or record the case again)", e);
        }
    }

    /** Same dtype, shape and bits (NaN payloads and signed zeros included), compared in place. */
    static boolean sameBits(Tensor a, Tensor b) {
        if (a == null || b == null || a.dtype() != b.dtype() || !a.shape().equals(b.shape()) || a.isFloat64() != b.isFloat64()) {
            return false;
        }
        return switch (a.storage()) {
            case Storage.Floats(float[] x) -> b.storage() instanceof Storage.Floats(float[] y) && sameFloatBits(x, y);
            case Storage.Bits16(short[] x) -> b.storage() instanceof Storage.Bits16(short[] y) && java.util.Arrays.equals(x, y);
            case Storage.Bits8(byte[] x) -> b.storage() instanceof Storage.Bits8(byte[] y) && java.util.Arrays.equals(x, y);
            case Storage.Ints(int[] x) -> b.storage() instanceof Storage.Ints(int[] y) && java.util.Arrays.equals(x, y);
            case Storage.Doubles(double[] x) -> b.storage() instanceof Storage.Doubles(double[] y) && sameDoubleBits(x, y);
        };
    }

    private static boolean sameFloatBits(float[] x, float[] y) {
        if (x.length != y.length) {
            return false;
        }
        for (int i = 0; i < x.length; i++) {
            if (Float.floatToRawIntBits(x[i]) != Float.floatToRawIntBits(y[i])) {
                return false;
            }
        }
        return true;
    }

    private static boolean sameDoubleBits(double[] x, double[] y) {
        if (x.length != y.length) {
            return false;
        }
        for (int i = 0; i < x.length; i++) {
            if (Double.doubleToRawLongBits(x[i]) != Double.doubleToRawLongBits(y[i])) {
                return false;
            }
        }
        return true;
    }
}
