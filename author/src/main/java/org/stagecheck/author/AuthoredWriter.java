package org.stagecheck.author;

import org.stagecheck.spec.json.InputsManifest;
import org.stagecheck.spec.json.InputsManifestCodec;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.stagecheck.tensor.npy.FileNameTable;
import org.stagecheck.tensor.io.WriterTemp;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.npy.SafeNames;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * Writes an authored cut as a directory, atomically (write beside, in a directory of this
 * writer's own ({@link WriterTemp}), then move into place). Tensor
 * names become file names through {@code SafeNames}; {@code inputs.json} is the index from names
 * to files.
 */
final class AuthoredWriter {
    static final String WEIGHTS = "weights";
    static final String INPUTS = "inputs";
    static final String MODEL = "model.json";
    /** The suffix of the temporary directory beside the target: {@code .<dir>.stagecheck-tmp}. */
    static final String TMP_SUFFIX = Npy.TMP_SUFFIX;

    private AuthoredWriter() {
    }

    static void write(AuthorOutcome.Authored a, Path dir, AuthorOutcome.WriteProgress progress) throws IOException {
        Path target = dir.toAbsolutePath().normalize();
        if (target.getFileName() == null) {
            throw new FileAlreadyExistsException(target.toString(), null, "is a root directory, not a new output directory");
        }
        if (Files.exists(target)) {
            if (!Files.isDirectory(target)) {
                throw new FileAlreadyExistsException(target.toString(), null, "exists and is not a directory");
            }
            try (Stream<Path> s = Files.list(target)) {
                if (s.findAny().isPresent()) {
                    throw new DirectoryNotEmptyException(target
                            + " (refusing to overwrite an existing output directory; remove it or choose another)");
                }
            }
        }
        Files.createDirectories(target.getParent());
        // This writer's own directory beside the target: a concurrent writer of the same target has its own
        try (WriterTemp beside = WriterTemp.directory(target)) {
            Path tmp = beside.path();
            Files.write(tmp.resolve("program.json"), new ProgramCodec().write(a.program()));
            if (a.certificate() != null) {
                Files.write(tmp.resolve("certificate.json"), new CertificateCodec().write(a.certificate()));
            }
            if (a.model() != null) {
                try (OutputStream out = Files.newOutputStream(tmp.resolve(MODEL))) {
                    a.model().writeJson(out);
                }
            }
            Files.createDirectories(tmp.resolve(WEIGHTS));
            Files.createDirectories(tmp.resolve(INPUTS));
            int total = a.weights().size() + a.inputs().size();
            int done = 0;
            long bytes = 0;
            for (Map.Entry<String, String> e : weightFiles(a).entrySet()) {
                Tensor t = a.weights().get(e.getKey());
                Npy.write(SafeNames.child(tmp.resolve(WEIGHTS), e.getValue()), t);
                bytes += t.size() * t.dtype().byteSize();
                progress.wrote(++done, total, bytes);
            }
            for (Map.Entry<String, String> e : inputFiles(a).entrySet()) {
                Tensor t = a.inputs().get(e.getKey());
                Npy.write(SafeNames.child(tmp.resolve(INPUTS), e.getValue()), t);
                bytes += t.size() * t.dtype().byteSize();
                progress.wrote(++done, total, bytes);
            }
            try (OutputStream out = Files.newOutputStream(tmp.resolve("inputs.json"))) {
                writeInputsManifest(a, out);
            }
            if (Files.isDirectory(target, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                Files.delete(target); // empty, checked above; one another writer filled meanwhile is refused here, or by the rename
            }
            beside.moveTo(target);
        }
    }

    /** Weight name to its file name in {@code weights/}: {@code SafeNames}, kept apart on case-insensitive file systems. */
    static Map<String, String> weightFiles(AuthorOutcome.Authored a) {
        FileNameTable t = new FileNameTable();
        a.weights().keySet().forEach(n -> t.fileOf(n, ".npy"));
        return t.files();
    }

    /** Input and state tensor name to its file name in {@code inputs/}. */
    static Map<String, String> inputFiles(AuthorOutcome.Authored a) {
        FileNameTable t = new FileNameTable();
        a.inputs().keySet().forEach(n -> t.fileOf(n, ".npy"));
        return t.files();
    }

    /**
     * {@code {"format": "stagecheck-inputs", "version": 1, "tensors": {name: path}, "params":
     * {name: value}}}: every bound tensor (weights first, then inputs and state, in program
     * order), paths relative to the directory.
     */
    static void writeInputsManifest(AuthorOutcome.Authored a, OutputStream out) throws IOException {
        Map<String, String> files = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : weightFiles(a).entrySet()) {
            files.put(e.getKey(), WEIGHTS + "/" + e.getValue());
        }
        for (Map.Entry<String, String> e : inputFiles(a).entrySet()) {
            files.put(e.getKey(), INPUTS + "/" + e.getValue());
        }
        new InputsManifestCodec().write(new InputsManifest(files, a.params(), a.checkpoint()), out);
    }
}
