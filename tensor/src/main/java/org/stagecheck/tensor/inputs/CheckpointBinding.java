package org.stagecheck.tensor.inputs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.json.CheckpointRefs;
import org.stagecheck.spec.validate.NameRules;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.TensorSlices;
import org.stagecheck.tensor.npy.IoMessages;
import org.stagecheck.tensor.npy.TensorFileException;
import org.stagecheck.tensor.safetensors.SafetensorsCheckpoint;
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
    private SafetensorsCheckpoint index;

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
        if (ref.view().stacked()) {
            return stacked(t, ref);
        }
        SafetensorsFile file = file(ref.file());
        String what = "tensor " + NameRules.quote(t.name()) + " (checkpoint " + dir.resolve(ref.file()) + ", key \"" + ref.key() + "\")";
        Tensor v;
        try {
            Tensor block = sliceOnly(file, ref);
            if (block != null) {
                return declared(t, what, block);
            }
            v = switch (ref.view()) {
                case TRANSPOSED_STACKED_ROWS, TRANSPOSED_STACKED_COLUMNS -> throw new IllegalStateException("stacked views are read above");
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
     * A stacked view: each expert's tensor (found through the checkpoint's index) read
     * transposed and placed at its block of the stack; with a slice along the stacking axis only
     * the experts it covers are read.
     */
    private Tensor stacked(TensorDecl t, CheckpointRefs.TensorRef ref) throws InputsException {
        boolean rows = ref.view() == CheckpointRefs.View.TRANSPOSED_STACKED_ROWS;
        int axis = rows ? 0 : 1;
        String what = "tensor " + NameRules.quote(t.name()) + " (checkpoint " + dir + ", keys \"" + ref.key() + "\")";
        try {
            List<Tensor> blocks = new ArrayList<>();
            int blockExtent = -1;
            int first = 0;
            int last = ref.experts();
            for (int e = 0; e < ref.experts(); e++) {
                String key = ref.keyOf(e);
                String fileName = index().fileOf(key) == null ? missingKey(what, key) : index().fileOf(key);
                if (!refs.files().containsKey(fileName)) {
                    // the index now sends this expert elsewhere: only the files recorded at authoring are read
                    throw new InputsException(what + ": the checkpoint's index now maps \"" + key + "\" to " + fileName
                            + ", not one of the files recorded when the program was authored " + refs.files().keySet()
                            + "; the checkpoint changed since: author the program again");
                }
                SafetensorsFile f = file(fileName);
                long[] dims = f.entry(key) == null ? null : f.entry(key).dims();
                if (dims == null || dims.length != 2) {
                    throw new InputsException(what + ": expert " + e + "'s \"" + key + "\" is not a rank-2 tensor");
                }
                int extent = (int) (rows ? dims[1] : dims[0]);
                if (blockExtent < 0) {
                    blockExtent = extent;
                    if (ref.slice() != null && ref.slice().axis() == axis) {
                        first = (int) (ref.slice().start() / extent);
                        last = (int) Math.min(ref.experts(), (ref.slice().end() + extent - 1) / extent);
                    }
                }
                if (e >= first && e < last) {
                    blocks.add(f.readTransposed(key));
                }
            }
            Tensor v = TensorSlices.concat2d(blocks, axis);
            if (ref.slice() != null) {
                CheckpointRefs.Slice s = ref.slice();
                long offset = s.axis() == axis ? (long) first * blockExtent : 0;
                if (s.end() - offset > v.shape().dim(s.axis())) {
                    throw new InputsException(what + ": the slice [" + s.start() + ", " + s.end() + ") along axis " + s.axis()
                            + " does not fit the stack of " + ref.experts() + " experts");
                }
                v = TensorSlices.slice2d(v, s.axis(), (int) (s.start() - offset), (int) (s.end() - offset));
            }
            if (v.dtype() != t.dtype() || !v.shape().equals(t.shape())) {
                throw new InputsException(what + " is " + v.dtype() + v.shape() + " but the program declares " + t.dtype() + t.shape());
            }
            return v;
        } catch (TensorFileException e) {
            throw new InputsException(e.getMessage());
        } catch (IllegalArgumentException e) {
            throw new InputsException(what + ": " + e.getMessage());
        }
    }

    private static String missingKey(String what, String key) throws InputsException {
        throw new InputsException(what + ": the checkpoint has no tensor \"" + key + "\"");
    }

    /** The checkpoint's index (its one file, or model.safetensors.index.json), opened once. */
    private SafetensorsCheckpoint index() throws InputsException {
        if (index == null) {
            try {
                index = SafetensorsCheckpoint.open(dir);
            } catch (TensorFileException e) {
                throw new InputsException(e.getMessage());
            }
        }
        return index;
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
                // an unchanged modification time vouches for the data: a rewrite changes it
                boolean sameTime = facts.modifiedMillis() != null
                        && Files.getLastModifiedTime(path).toMillis() == facts.modifiedMillis();
                if (facts.dataSha256() != null && !sameTime && !f.dataSha256().equals(facts.dataSha256())) {
                    throw changed(path, "its tensor data differs from the recorded digest");
                }
            } catch (TensorFileException e) {
                throw new InputsException(e.getMessage());
            } catch (java.io.IOException e) {
                throw new InputsException("checkpoint file " + path + ": " + IoMessages.reason(e));
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
        if (index != null) {
            index.close();
            index = null;
        }
    }
}
