package org.stagecheck.passcheck;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.stagecheck.spec.cert.Certificate;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.ProgramCodec;

/**
 * The repository's example programs (its {@code examples/} directory, with the certificates of
 * those that have one), packaged into this module's jar by the build, so that {@link
 * GenConfig#defaults()} mutates real programs wherever PassCheck runs. {@link #NAMES} lists them
 * (a jar cannot be listed); a test checks it against the directory.
 */
public final class BundledExamples {
    /** The example files, in name order. */
    public static final List<String> NAMES = List.of("elementwise-chain.json", "embedding-lookup.json", "fp8-scaled-matmul.json",
            "scalar-offset-kv-ring.json", "tiled-matmul-multicast.json", "tp2-matmul-allreduce.json");

    private static final String ROOT = "/org/stagecheck/passcheck/examples/";

    private BundledExamples() {}

    /** Every bundled example, read and decoded. */
    public static List<GenConfig.Example> all() {
        List<GenConfig.Example> out = new ArrayList<>();
        for (String name : NAMES) {
            String program = text(ROOT + name);
            if (program == null) {
                throw new IllegalStateException("the bundled example " + name + " is missing from the class path");
            }
            String certificate = text(ROOT + "certificates/" + name);
            try {
                Certificate c = certificate == null ? null : new CertificateCodec().read(certificate);
                out.add(new GenConfig.Example(name, new ProgramCodec().read(program), c));
            } catch (JsonFormatException e) {
                throw new IllegalStateException("the bundled example " + name + " does not decode: " + e.getMessage(), e);
            }
        }
        return List.copyOf(out);
    }

    private static String text(String resource) {
        try (InputStream in = BundledExamples.class.getResourceAsStream(resource)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }
}
