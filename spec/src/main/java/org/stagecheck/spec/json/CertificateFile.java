package org.stagecheck.spec.json;

import java.nio.file.Path;
import java.util.Objects;
import org.stagecheck.spec.cert.Certificate;

/**
 * A certificate read from a file, with its {@link SourceMap} (docs/format.md, "Certificates").
 *
 * <pre>{@code
 * CertificateFile cf = CertificateFile.read(Path.of("examples/certificates/tp2-matmul-allreduce.json"));
 * Certificate certificate = cf.certificate();
 * SourcePosition remap = cf.locate("/remap/map");
 * }</pre>
 *
 * @param file        the file as the caller named it
 * @param certificate the decoded certificate
 * @param sourceMap   where each of its values lies in {@code file}
 */
public record CertificateFile(Path file, Certificate certificate, SourceMap sourceMap) implements SourceLocator {
    public CertificateFile {
        Objects.requireNonNull(file, "file");
        Objects.requireNonNull(certificate, "certificate");
        Objects.requireNonNull(sourceMap, "sourceMap");
    }

    /** Reads and decodes {@code file}; any problem (missing, malformed, not a certificate) is a {@link JsonFormatException}. */
    public static CertificateFile read(Path file) throws JsonFormatException {
        JNode tree = new JsonReader().read(file);
        return new CertificateFile(file, new CertificateCodec().read(tree), new SourceMap(file.toString(), tree));
    }

    @Override
    public SourcePosition locate(String pointer) {
        return sourceMap.locate(pointer);
    }
}
