package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.TensorDecl;
import org.stagecheck.spec.json.CertificateCodec;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.Tensor;

/**
 * Pins what the author writes for every cut of {@code tiny} (one chip, split over 2 and 4, and
 * with bf16 weights): the canonical program hash, the certificate's hash, the checksum of every
 * weight and sample input, and the checksum of every output and state tensor of one reference
 * run. A refactoring of the author or a speed-up of the evaluator must leave all of it
 * bit-identical; a deliberate change to what is authored or computed regenerates the file with
 * {@code -Dstagecheck.fingerprints.write=PATH} and shows up in review as a changed line.
 */
class CutFingerprintsTest {
    private static final String RESOURCE = "cut-fingerprints.txt";

    @Test
    void everyTinyCutIsAuthoredAndRunsExactlyAsPinned() throws IOException {
        String actual = fingerprints();
        String target = System.getProperty("stagecheck.fingerprints.write");
        if (target != null) {
            Files.writeString(Path.of(target), actual);
        }
        String expected;
        try (InputStream in = CutFingerprintsTest.class.getResourceAsStream(RESOURCE)) {
            assertThat(in).as(RESOURCE + " on the test class path").isNotNull();
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(actual.lines().toList()).containsExactlyElementsOf(expected.lines().toList());
    }

    static List<Case> cases() {
        List<Case> out = new ArrayList<>();
        for (Cut cut : AuthorTest.everyCut()) {
            out.add(new Case(cut, AuthorOptions.single()));
        }
        for (int tp : new int[] {2, 4}) {
            for (Cut cut : List.of(Cut.decode(8), Cut.batch(2, 8), Cut.decodeLayer(1, 8),
                    Cut.batchLayer(0, 3, 4))) {
                out.add(new Case(cut, AuthorOptions.split(tp)));
            }
        }
        out.add(new Case(Cut.decode(8), AuthorOptions.single().withWeights(DType.BF16)));
        out.add(new Case(Cut.batch(2, 8), AuthorOptions.split(2).withWeights(DType.F16)));
        return out;
    }

    record Case(Cut cut, AuthorOptions options) {}

    static String fingerprints() {
        ModelSpec tiny = ModelSpec.tiny();
        Interpreter interpreter = new Interpreter(RunOptions.defaults());
        StringBuilder sb = new StringBuilder();
        for (Case c : cases()) {
            AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(tiny, c.cut(), c.options());
            sb.append(a.program().name()).append(" tp=").append(c.options().tp())
                    .append(" weights=").append(c.options().weightDType().jsonName()).append('\n');
            sb.append("  program ").append(new ProgramCodec().hash(a.program())).append('\n');
            if (a.certificate() != null) {
                sb.append("  certificate ").append(ProgramCodec.sha256(new CertificateCodec().write(a.certificate())))
                        .append('\n');
            }
            new TreeMap<>(a.weights()).forEach((n, t) -> sb.append("  weight ").append(n).append(' ')
                    .append(t.checksum()).append('\n'));
            new TreeMap<>(a.inputs()).forEach((n, t) -> sb.append("  input ").append(n).append(' ')
                    .append(t.checksum()).append('\n'));
            RunResult r = interpreter.run(a.program(), a.bound(), a.params());
            assertThat(r.faults()).as(a.program().name()).isEmpty();
            Map<String, Tensor> results = new TreeMap<>();
            for (TensorDecl t : a.program().tensors()) {
                switch (t.role()) {
                    case OUTPUT, STATE -> results.put(t.name(), r.tensor(t.name()));
                    case INPUT, WEIGHT, SCRATCH -> { }
                }
            }
            results.forEach((n, t) -> sb.append("  result ").append(n).append(' ').append(t.checksum()).append('\n'));
        }
        return sb.toString();
    }
}
