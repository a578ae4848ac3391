package org.stagecheck.tensor.safetensors;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;

import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * The weights of a Hugging Face model directory: {@code model.safetensors}, or the shards that
 * {@code model.safetensors.index.json} maps each tensor to. Every file is opened (and its header
 * checked) by {@link #open}; the index and the shards must agree exactly: every tensor the index
 * lists is in the file it names, every tensor of a shard is listed with that shard, and no tensor
 * is in two files.
 *
 * <p>Threads: as {@link SafetensorsFile}; reads may run at once, {@link #close} after them.
 */
public final class SafetensorsCheckpoint implements AutoCloseable {
    private final Path dir;
    private final Map<String, SafetensorsFile> files;
    private final SequencedMap<String, SafetensorsEntry> entries;
    private final Map<String, String> fileOf;

    private SafetensorsCheckpoint(Path dir, Map<String, SafetensorsFile> files, SequencedMap<String, SafetensorsEntry> entries,
            Map<String, String> fileOf) {
        this.dir = dir;
        this.files = files;
        this.entries = entries;
        this.fileOf = fileOf;
    }

    /**
     * Opens the weights of {@code dir}. Every file must resolve inside {@code dir}: a symbolic
     * link that leads out is refused (see {@link #open(Path, boolean)}).
     */
    public static SafetensorsCheckpoint open(Path dir) throws TensorFileException {
        return open(dir, false);
    }

    /**
     * Opens the weights of {@code dir}; with {@code linksMayLeave}, the files may be symbolic
     * links to elsewhere (the Hugging Face cache links a snapshot's files to its blob store), but
     * they must still be plain names of {@code dir}.
     */
    public static SafetensorsCheckpoint open(Path dir, boolean linksMayLeave) throws TensorFileException {
        if (!Files.isDirectory(dir)) {
            throw new TensorFileException(dir + (Files.exists(dir) ? ": is not a directory" : ": no such directory"));
        }
        Path index = dir.resolve(SafetensorsWriter.INDEX_FILE);
        Path single = dir.resolve(SafetensorsWriter.SINGLE_FILE);
        boolean hasIndex = Files.exists(index);
        boolean hasSingle = Files.exists(single);
        if (hasIndex && hasSingle) {
            throw new TensorFileException(dir + ": has both " + SafetensorsWriter.SINGLE_FILE + " and " + SafetensorsWriter.INDEX_FILE
                    + "; which holds the weights is ambiguous (transformers would load " + SafetensorsWriter.SINGLE_FILE + "), remove the other");
        }
        if (!hasIndex && !hasSingle) {
            throw new TensorFileException(dir + ": has neither " + SafetensorsWriter.SINGLE_FILE + " nor " + SafetensorsWriter.INDEX_FILE);
        }
        Map<String, SafetensorsFile> files = new LinkedHashMap<>();
        try {
            if (hasSingle) {
                SafetensorsFile f = openFile(dir, SafetensorsWriter.SINGLE_FILE, linksMayLeave);
                files.put(SafetensorsWriter.SINGLE_FILE, f);
                Map<String, String> fileOf = new LinkedHashMap<>();
                for (String name : f.entries().keySet()) {
                    fileOf.put(name, SafetensorsWriter.SINGLE_FILE);
                }
                return new SafetensorsCheckpoint(dir, files, f.entries(), Collections.unmodifiableMap(fileOf));
            }
            SequencedMap<String, String> weightMap = CheckpointIndex.read(linksMayLeave ? index
                    : Confinement.inside(dir, SafetensorsWriter.INDEX_FILE));
            for (String file : weightMap.values()) {
                if (!files.containsKey(file)) {
                    files.put(file, openFile(dir, file, linksMayLeave));
                }
            }
            SequencedMap<String, SafetensorsEntry> entries = new LinkedHashMap<>();
            for (Map.Entry<String, String> w : weightMap.entrySet()) {
                SafetensorsEntry e = files.get(w.getValue()).entry(w.getKey());
                if (e == null) {
                    throw new TensorFileException(index + ": weight_map puts tensor '" + w.getKey() + "' in " + w.getValue()
                            + ", which has no such tensor");
                }
                entries.put(w.getKey(), e);
            }
            for (Map.Entry<String, SafetensorsFile> f : files.entrySet()) {
                for (String name : f.getValue().entries().keySet()) {
                    String listed = weightMap.get(name);
                    if (listed == null) {
                        throw new TensorFileException(f.getValue().path() + ": holds tensor '" + name + "', which " + SafetensorsWriter.INDEX_FILE
                                + " does not list");
                    }
                    if (!listed.equals(f.getKey())) {
                        throw new TensorFileException(f.getValue().path() + ": holds tensor '" + name + "', which " + SafetensorsWriter.INDEX_FILE
                                + " puts in " + listed + "; a tensor is in two files");
                    }
                }
            }
            return new SafetensorsCheckpoint(dir, files, Collections.unmodifiableSequencedMap(entries), Collections.unmodifiableMap(weightMap));
        } catch (TensorFileException | RuntimeException e) {
            files.values().forEach(SafetensorsFile::close);
            throw e;
        }
    }

    private static SafetensorsFile openFile(Path dir, String file, boolean linksMayLeave) throws TensorFileException {
        if (!Confinement.plainName(file)) {
            throw new TensorFileException(dir + ": '" + file + "' is not a plain file name inside the directory");
        }
        return linksMayLeave ? SafetensorsFile.open(dir.resolve(file)) : SafetensorsFile.open(dir, file);
    }

    public Path dir() {
        return dir;
    }

    /** Every tensor: the index's order for a sharded checkpoint, the header's for one file (unmodifiable). */
    public SequencedMap<String, SafetensorsEntry> entries() {
        return entries;
    }

    /** The entry called {@code name}, or null. */
    public SafetensorsEntry entry(String name) {
        return entries.get(name);
    }

    /** The file (a name inside {@link #dir}) holding {@code name}, or null. */
    public String fileOf(String name) {
        return fileOf.get(name);
    }

    /** The weight files, in the order first named. */
    public List<String> files() {
        return List.copyOf(files.keySet());
    }

    /** The size in bytes of {@code file} (one of {@link #files}) when it was opened. */
    public long fileBytes(String file) {
        return fileNamed(file).fileBytes();
    }

    /** Hex SHA-256 of {@code file}'s header bytes: changes whenever a name, dtype, shape or offset does. */
    public String headerSha256(String file) {
        return fileNamed(file).headerSha256();
    }

    /** Hex SHA-256 of {@code file}'s data region: changes whenever a stored value does (reads the whole file). */
    public String dataSha256(String file) throws TensorFileException {
        return fileNamed(file).dataSha256();
    }

    /** See {@link SafetensorsFile#read}. */
    public Tensor read(String name) throws TensorFileException {
        return fileFor(name).read(name);
    }

    /** See {@link SafetensorsFile#readTransposed}. */
    public Tensor readTransposed(String name) throws TensorFileException {
        return fileFor(name).readTransposed(name);
    }

    private SafetensorsFile fileFor(String name) throws TensorFileException {
        String file = fileOf.get(name);
        if (file == null) {
            throw new TensorFileException(dir + ": the checkpoint has no tensor '" + name + "'");
        }
        return files.get(file);
    }

    private SafetensorsFile fileNamed(String file) {
        SafetensorsFile f = files.get(file);
        if (f == null) {
            throw new IllegalArgumentException(file + " is not a weight file of " + dir + "; its files are " + files.keySet());
        }
        return f;
    }

    /** Closes every file. */
    @Override
    public void close() {
        List<SafetensorsFile> all = new ArrayList<>(files.values());
        all.forEach(SafetensorsFile::close);
    }
}
