package org.stagecheck.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.ModelSpecException;
import org.stagecheck.spec.json.ProgramCodec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code stagecheck author}: write the program of a cut of a model. */
@Command(name = "author", mixinStandardHelpOptions = true,
        description = {"Write the stage program of a cut of a small transformer, with deterministic weights, sample",
                "inputs and (with --tp) the tensor-parallel split and its certificate, into a new directory that",
                "`stagecheck run DIR/program.json --inputs DIR` runs. Exit 0 written, 2 bad options or a refused cut."})
final class AuthorCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--model", required = true, paramLabel = "tiny|small|FILE", description = "a built-in model or a model spec file (.json)")
    String model;

    @Option(names = "--cut", required = true, paramLabel = "CUT",
            description = "decode, prefill, batch, forward, forward-layer, forward-head, decode-embed, decode-layer, decode-head, batch-embed, batch-layer, batch-head, prefill-layer, prefill-head")
    String cut;

    @Option(names = "--ctx", paramLabel = "N", description = "KV-cache positions (decode, prefill, batch and their layers)")
    Integer ctx;

    @Option(names = "--rows", paramLabel = "N", description = "rows of a prefill chunk or a batch")
    Integer rows;

    @Option(names = "--layer", paramLabel = "L", description = "the layer of a layer cut")
    Integer layer;

    @Option(names = "--tp", paramLabel = "N", defaultValue = "1", description = "split over N chips (tensor-parallel); default 1")
    int tp;

    @Option(names = "--grid", paramLabel = "WxH", defaultValue = "2x2", description = "each chip's core grid; default 2x2")
    String grid;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "a new (or empty) output directory")
    Path out;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            ModelSpec m = model(model);
            int[] wh = grid(grid);
            Cut c = switch (Cut.fromOptions(cut, ctx, rows, layer)) {
                case Cut.CutOrRefusal.Ok ok -> ok.cut();
                case Cut.CutOrRefusal.Refused r -> throw new BadInputException("refused (" + r.reason() + "): " + r.message());
            };
            AuthorOutcome outcome = Author.author(m, c, new AuthorOptions(tp, wh[0], wh[1]));
            AuthorOutcome.Authored a = switch (outcome) {
                case AuthorOutcome.Authored authored -> authored;
                case AuthorOutcome.Refused r -> throw new BadInputException("refused (" + r.reason() + "): " + r.message());
            };
            try {
                a.writeTo(out);
            } catch (IOException e) {
                throw new BadInputException("cannot write " + out + ": " + e.getMessage());
            }
            String hash = new ProgramCodec().hash(a.program());
            if (json) {
                Json.print(o, g -> {
                    g.writeStartObject();
                    g.writeStringField("command", "author");
                    g.writeStringField("model", m.name());
                    g.writeStringField("cut", c.toString());
                    g.writeNumberField("tp", tp);
                    g.writeStringField("dir", out.toString());
                    g.writeStringField("programHash", hash);
                    g.writeNumberField("stages", a.program().stages().size());
                    g.writeNumberField("weights", a.weights().size());
                    g.writeBooleanField("certificate", a.certificate() != null);
                    g.writeEndObject();
                });
            } else {
                o.println("authored " + m.name() + " " + c + (tp > 1 ? " split over " + tp + " chips" : "") + ": "
                        + a.program().stages().size() + " stages, " + a.weights().size() + " weight tensors");
                o.println("  " + out.resolve("program.json") + "  " + hash);
                if (a.certificate() != null) {
                    o.println("  " + out.resolve("certificate.json"));
                }
                o.println("  " + out.resolve("inputs.json") + "  (run: stagecheck run " + out.resolve("program.json") + " --inputs " + out + " --out OUT)");
                o.flush();
            }
            return ExitCode.OK;
        } catch (BadInputException e) {
            err.println("error: " + e.getMessage());
            err.flush();
            return ExitCode.BAD_INPUT;
        }
    }

    private static ModelSpec model(String name) throws BadInputException {
        try {
            return ModelSpec.resolve(name);
        } catch (ModelSpecException e) {
            throw new BadInputException(e.getMessage());
        }
    }

    private static int[] grid(String text) throws BadInputException {
        String[] parts = text.split("x", -1);
        try {
            if (parts.length == 2) {
                int w = Integer.parseInt(parts[0]);
                int h = Integer.parseInt(parts[1]);
                if (w >= 1 && h >= 1 && w <= 64 && h <= 64) {
                    return new int[] {w, h};
                }
            }
        } catch (NumberFormatException e) {
            // fall through to the message below
        }
        throw new BadInputException("--grid is WIDTHxHEIGHT with each between 1 and 64, e.g. 2x2; not '" + text + "'");
    }
}
