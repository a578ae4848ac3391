package org.stagecheck.tensor.inputs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.spec.validate.NameRules;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.TensorSlices;
import org.stagecheck.tensor.npy.IoMessages;
import org.stagecheck.tensor.npy.TensorFileException;
import org.stagecheck.tensor.safetensors.SafetensorsFile;

/**
 * The tensors an inputs manifest binds from a checkpoint (docs/format.md, "Checkpoint
 * references"): each safetensors file is opened once, memory-mapped, after checking that its size
 * header and (when recorded) data digest are those the manifest recorded (a checkpoint changed
 * since authoring is refused, not read); each tensor is read bit for bit, viewed (transposed, or
 * a rank-1 weight as a row), cut to its slice, and must then have the declared dtype and shape.
 */
final class CheckpointBinding implements AutoCloseable {
    private final Path dir;
    private final CheckpointRefs refs;
    private final Map<String, SafetensorsFile> open = new LinkedHashMap<>();

    private CheckpointBinding(Path dir, CheckpointRefs refs) {
        this.dir = dir;
        this.refs = refs;
    }

    /** The checkpoint {@code refs} names, its directory resolved against the manifest's ({@code inputs}). */
    static CheckpointBinding open(InputsDir inputs, CheckpointRefs refs) throws InputsException {
        Path dir = inputs.dir().toAbsolutePath().resolve(refs.dir()).normalize();
        if (!Files.isDirectory(dir)) {
            throw new InputsException("the checkpoint directory " + dir + " (named by the inputs manifest in " + inputs.dir()
                    + ") does not exist or is not a directory; the authored program reads its weights from there");
        }
        return new CheckpointBinding(dir, refs);
    }

    /** The value of {@code t} from its reference. */
    Tensor read(TensorDecl t, CheckpointRefs.TensorRef ref) throws InputsException {
        SafetensorsFile file = file(ref.file());
        String what = "tensor " + NameRules.quote(t.name()) + " (checkpoint " + dir.resolve(ref.file()) + ", key \"" + ref.key() + "\")";
        Tensor v;
        try {
            v = switch (ref.view()) {
                case AS_STORED -> file.read(ref.key());
                case TRANSPOSED -> file.readTransposed(ref.key());
                case ROW -> {
                    Tensor stored = file.read(ref.key());
                    if (stored.shape().rank() != 1) {
                        throw new InputsException(what + " is " + stored.shape() + ", not the rank-1 tensor a row view reads");
                    }
                    yield TensorSlices.asRow(stored);
                }
            };
        } catch (TensorFileException e) {
            throw new InputsException(e.getMessage());
        }
        if (ref.slice() != null) {
            CheckpointRefs.Slice s = ref.slice();
            if (v.shape().rank() != 2 || s.end() > v.shape().dim(s.axis())) {
                throw new InputsException(what + " is " + v.shape() + " as viewed; the slice [" + s.start() + ", " + s.end()
                        + ") along axis " + s.axis() + " does not fit it");
            }
            v = TensorSlices.slice2d(v, s.axis(), (int) s.start(), (int) s.end());
        }
        if (v.dtype() != t.dtype() || !v.shape().equals(t.shape())) {
            throw new InputsException(what + " is " + v.dtype() + v.shape() + " but the program declares " + t.dtype() + t.shape());
        }
        return v;
    }

    private SafetensorsFile file(String name) throws InputsException {
        SafetensorsFile f = open.get(name);
        if (f != null) {
            return f;
        }
        CheckpointRefs.FileFacts facts = refs.files().get(name);
        Path path = dir.resolve(name);
        // The size first: a file written over is then named as changed, not as a broken safetensors file.
        if (facts != null && Files.isRegularFile(path)) {
            try {
                long bytes = Files.size(path);
                if (bytes != facts.bytes()) {
                    throw changed(path, bytes + " bytes, recorded " + facts.bytes());
                }
            } catch (java.io.IOException e) {
                throw new InputsException("checkpoint file " + path + ": " + IoMessages.reason(e));
            }
        }
        try {
            f = SafetensorsFile.open(dir, name);
        } catch (TensorFileException e) {
            throw new InputsException(e.getMessage());
        }
        open.put(name, f);
        if (facts != null) {
            if (f.fileBytes() != facts.bytes()) {
                throw changed(path, f.fileBytes() + " bytes, recorded " + facts.bytes());
            }
            if (!f.headerSha256().equals(facts.headerSha256())) {
                throw changed(path, "its header differs from the recorded one");
            }
            try {
                if (facts.dataSha256() != null && !f.dataSha256().equals(facts.dataSha256())) {
                    throw changed(path, "its tensor data differs from the recorded digest");
                }
            } catch (TensorFileException e) {
                throw new InputsException(e.getMessage());
            }
        }
        return f;
    }

    private static InputsException changed(Path file, String how) {
        return new InputsException("checkpoint file " + file + " changed since the program was authored (" + how
                + "); author the program again from the checkpoint as it is now");
    }

    @Override
    public void close() {
        open.values().forEach(SafetensorsFile::close);
        open.clear();
    }
}
