package org.stagecheck.golden;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.spec.ir.Param;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.RandomBindings;
import org.stagecheck.tensor.Tensor;

/**
 * The programs the golden module is shown on: every example under {@code examples/} (random
 * inputs from seed 1, parameters at their minimum) and cuts of the {@code tiny} model with their
 * sample inputs, on one chip and split over two.
 */
public final class Subjects {
    /** One program with everything bound for a run. */
    public record Subject(String name, Program program, Map<String, Tensor> bound, Map<String, Long> params) {}

    private Subjects() {
    }

    /** The repository root (tests run in a module directory). */
    public static Path root() {
        Path p = Path.of("").toAbsolutePath();
        while (p != null && !Files.isDirectory(p.resolve("examples"))) {
            p = p.getParent();
        }
        if (p == null) {
            throw new IllegalStateException("no examples/ directory above " + Path.of("").toAbsolutePath());
        }
        return p;
    }

    public static List<Subject> examples() throws IOException {
        List<Subject> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(root().resolve("examples"))) {
            for (Path f : files.filter(x -> x.toString().endsWith(".json")).sorted().toList()) {
                Program p;
                try {
                    p = new ProgramCodec().read(Files.readString(f));
                } catch (org.stagecheck.spec.json.JsonFormatException e) {
                    throw new IOException(f + ": " + e.getMessage(), e);
                }
                Map<String, Long> params = new LinkedHashMap<>();
                for (Param q : p.params()) {
                    params.put(q.name(), q.min());
                }
                String name = f.getFileName().toString().replace(".json", "");
                out.add(new Subject(name, p, RandomBindings.forProgram(p, 1), params));
            }
        }
        return out;
    }

    /** Every cut of tiny (ctx 16, 4 rows), single chip; with {@code split}, also tp 2 where the cut splits. */
    public static List<Subject> tinyCuts(boolean everyCut, boolean split) {
        ModelSpec tiny = ModelSpec.tiny();
        List<Cut> cuts = new ArrayList<>(List.of(Cut.decode(16), Cut.prefill(4, 16), Cut.batch(4, 16)));
        if (everyCut) {
            cuts.addAll(List.of(Cut.forward(), Cut.forwardHead(), Cut.decodeEmbed(), Cut.decodeHead(),
                    Cut.batchEmbed(4), Cut.batchHead(4), Cut.prefillHead(4)));
            for (int l = 0; l < tiny.layers(); l++) {
                cuts.addAll(List.of(Cut.forwardLayer(l), Cut.decodeLayer(l, 16), Cut.batchLayer(l, 4, 16), Cut.prefillLayer(l, 4, 16)));
            }
        }
        List<Subject> out = new ArrayList<>();
        for (Cut c : cuts) {
            out.add(authored("tiny-" + cutName(c), tiny, c, AuthorOptions.single()));
            if (split && Author.splittable(c)) {
                out.add(authored("tiny-" + cutName(c) + "-tp2", tiny, c, AuthorOptions.split(2)));
            }
        }
        return out;
    }

    private static Subject authored(String name, ModelSpec spec, Cut cut, AuthorOptions options) {
        AuthorOutcome o = Author.author(spec, cut, options);
        if (!(o instanceof AuthorOutcome.Authored a)) {
            throw new IllegalStateException(name + ": " + o);
        }
        return new Subject(name, a.program(), a.bound(), a.params());
    }

    /** A file-name-safe name of a cut: decode, prefill, batch-layer1, ... */
    public static String cutName(Cut c) {
        return c.cliName() + (c.part() instanceof Cut.Part.Layer l ? Integer.toString(l.layer()) : "");
    }

}
