package org.stagecheck.author;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;
import org.stagecheck.tensor.npy.Npy;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.ProgramCodec;

/** Writes an authored cut as a directory, atomically (write beside, then move into place). */
final class AuthoredWriter {
    static final String WEIGHTS = "weights";
    static final String INPUTS = "inputs";
    static final String INPUTS_FORMAT = "stagecheck-inputs";

    private AuthoredWriter() {
    }

    static void write(AuthorOutcome.Authored a, Path dir) throws IOException {
        Path target = dir.toAbsolutePath().normalize();
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
        Path parent = target.getParent();
        Files.createDirectories(parent);
        Path tmp = Files.createTempDirectory(parent, "." + target.getFileName() + ".tmp");
        try {
            Files.write(tmp.resolve("program.json"), new ProgramCodec().write(a.program()));
            if (a.certificate() != null) {
                Files.write(tmp.resolve("certificate.json"), new CertificateCodec().write(a.certificate()));
            }
            Files.createDirectories(tmp.resolve(WEIGHTS));
            Files.createDirectories(tmp.resolve(INPUTS));
            for (Map.Entry<String, Tensor> e : a.weights().entrySet()) {
                Npy.write(tmp.resolve(WEIGHTS).resolve(e.getKey() + ".npy"), e.getValue());
            }
            for (Map.Entry<String, Tensor> e : a.inputs().entrySet()) {
                Npy.write(tmp.resolve(INPUTS).resolve(e.getKey() + ".npy"), e.getValue());
            }
            try (OutputStream out = Files.newOutputStream(tmp.resolve("inputs.json"))) {
                writeInputsManifest(a, out);
            }
            if (Files.exists(target)) {
                Files.delete(target); // empty, checked above
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            deleteTree(tmp);
            throw e;
        }
    }

    /**
     * {@code {"format": "stagecheck-inputs", "version": 1, "tensors": {name: path}, "params":
     * {name: value}}}: every bound tensor (weights first, then inputs and state, in program
     * order), paths relative to the directory.
     */
    static void writeInputsManifest(AuthorOutcome.Authored a, OutputStream out) throws IOException {
        try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
            g.useDefaultPrettyPrinter();
            g.writeStartObject();
            g.writeStringField("format", INPUTS_FORMAT);
            g.writeNumberField("version", 1);
            g.writeObjectFieldStart("tensors");
            for (String n : a.weights().keySet()) {
                g.writeStringField(n, WEIGHTS + "/" + n + ".npy");
            }
            for (String n : a.inputs().keySet()) {
                g.writeStringField(n, INPUTS + "/" + n + ".npy");
            }
            g.writeEndObject();
            g.writeObjectFieldStart("params");
            for (Map.Entry<String, Long> e : a.params().entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue());
            }
            g.writeEndObject();
            g.writeEndObject();
            g.writeRaw('\n');
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: the temporary directory is hidden and named after the target
        }
    }
}
