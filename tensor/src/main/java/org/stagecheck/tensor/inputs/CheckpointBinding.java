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
 * and header are those the manifest recorded (a checkpoint changed since authoring is refused,
 * not read); each tensor is read bit for bit, viewed (transposed, or a rank-1 weight as a row),
 * cut to its slice, and must then have the declared dtype and shape.
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
            Tensor block = sliceOnly(file, ref);
            if (block != null) {
                return declared(t, what, block);
            }
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
        return declared(t, what, v);
    }

    private static Tensor declared(TensorDecl t, String what, Tensor v) throws InputsException {
        if (v.dtype() != t.dtype() || !v.shape().equals(t.shape())) {
            throw new InputsException(what + " is " + v.dtype() + v.shape() + " but the program declares " + t.dtype() + t.shape());
        }
        return v;
    }

    /**
     * A sliced reference to a matrix, as stored or transposed, read as the slice alone (a chip's
     * share of a split weight: reading the whole and cutting it would read and hold the weight once
     * per chip); null for anything else, which {@link #read} reads the general way, with its
     * diagnostics.
     */
    private static Tensor sliceOnly(SafetensorsFile file, CheckpointRefs.TensorRef ref) throws TensorFileException {
        CheckpointRefs.Slice s = ref.slice();
        org.stagecheck.tensor.safetensors.SafetensorsEntry e = file.entry(ref.key());
        if (s == null || e == null || e.rank() != 2 || s.axis() > 1 || ref.view() == CheckpointRefs.View.ROW) {
            return null;
        }
        long rows = e.shape().get(0);
        long cols = e.shape().get(1);
        boolean transposed = ref.view() == CheckpointRefs.View.TRANSPOSED;
        // the slice's axis of the viewed matrix is this axis of the stored one
        int storedAxis = transposed ? 1 - s.axis() : s.axis();
        if (rows > Integer.MAX_VALUE || cols > Integer.MAX_VALUE || s.end() > (storedAxis == 0 ? rows : cols)) {
            return null;
        }
        int r0 = storedAxis == 0 ? (int) s.start() : 0;
        int r1 = storedAxis == 0 ? (int) s.end() : (int) rows;
        int c0 = storedAxis == 1 ? (int) s.start() : 0;
        int c1 = storedAxis == 1 ? (int) s.end() : (int) cols;
        return file.readBlock(ref.key(), r0, r1, c0, c1, transposed);
    }

    private SafetensorsFile file(String name) throws InputsException {
        SafetensorsFile f = open.get(name);
        if (f != null) {
            return f;
        }
        CheckpointRefs.FileFacts facts = refs.files().get(name);
        try {
            f = SafetensorsFile.open(dir, name);
        } catch (TensorFileException e) {
            throw new InputsException(e.getMessage());
        }
        open.put(name, f);
        try {
            long bytes = Files.size(dir.resolve(name));
            if (facts != null && (bytes != facts.bytes() || !f.headerSha256().equals(facts.headerSha256()))) {
                throw new InputsException("checkpoint file " + dir.resolve(name) + " changed since the program was authored ("
                        + (bytes != facts.bytes() ? bytes + " bytes, recorded " + facts.bytes() : "its header differs from the recorded one")
                        + "); author the program again from the checkpoint as it is now");
            }
        } catch (java.io.IOException e) {
            throw new InputsException("checkpoint file " + dir.resolve(name) + ": " + IoMessages.reason(e));
        }
        return f;
    }

    @Override
    public void close() {
        open.values().forEach(SafetensorsFile::close);
        open.clear();
    }
}
