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
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.json.ProgramCodec;
import org.stagecheck.tensor.npy.IoMessages;
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

    @Option(names = "--model", required = true, paramLabel = "tiny|small|tiny-moe|FILE|DIR",
            description = "a built-in model (tiny-moe has 8 experts, top 2, and a shared expert), a model spec file (.json), or a Hugging Face model directory (config.json and safetensors: Llama, Mistral, Qwen2, Qwen3), whose weights the program references as stored")
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

    @Option(names = "--expert-split", paramLabel = "tensor|experts", defaultValue = "tensor",
            description = "with --tp, how a mixture of experts is split: tensor (default: each chip holds its columns of every expert) or experts (each chip owns E/tp experts whole)")
    String expertSplit;

    @Option(names = "--grid", paramLabel = "WxH", defaultValue = "2x2", description = "each chip's core grid; default 2x2")
    String grid;

    @Option(names = "--weights", paramLabel = "DTYPE",
            description = "the dtype generated weights are stored in: f32 (default), bf16, f16, e4m3 or e5m2; each value rounded once from its exact (double) value. A checkpoint's weights keep their own dtype")
    String weights;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "a new (or empty) output directory")
    Path out;

    @Option(names = "--json", description = "print one JSON document instead of text")
    boolean json;

    @Override
    public Integer call() {
        try {
            return author();
        } catch (BadInputException e) {
            return Reply.badInput(spec.commandLine(), json, e.getMessage());
        }
    }

    private int author() throws BadInputException {
        PrintWriter o = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        // Everything is refused before the work: the output directory, the model's size, the options.
        OutputPaths.OutputDir dir = OutputPaths.newDirectory("--out", out);
        ModelSpec m = model(model);
        int[] wh = grid(grid);
        DType weightType = m.fromCheckpoint() ? m.checkpoint().dtype() : weightType(weights == null ? "f32" : weights);
        if (m.fromCheckpoint() && weights != null && weightType(weights) != weightType) {
            throw new BadInputException("--weights " + weights + ": the checkpoint's weights are " + weightType
                    + " and are used as stored, bit for bit; leave --weights out");
        }
        Cut c = switch (Cut.fromOptions(cut, ctx, rows, layer)) {
            case Cut.CutOrRefusal.Ok ok -> ok.cut();
            case Cut.CutOrRefusal.Refused r -> throw new BadInputException("refused (" + r.reason() + "): " + r.message());
        };
        // a checkpoint's weights are referenced, not made: nothing to hold in memory
        long weightBytes = m.fromCheckpoint() ? 0 : m.weightCount() * 4;
        long heap = Runtime.getRuntime().maxMemory();
        if (weightBytes * 3 > heap) {
            // the weights are made in f32, then bound (sliced per chip) and encoded: about three copies
            throw new BadInputException(String.format(java.util.Locale.ROOT,
                    "model '%s' has %.1f GiB of f32 weights; authoring needs about three times that, more than this JVM's %.1f GiB; "
                            + "give more with STAGECHECK_JAVA_OPTS=-Xmx<size>", m.name(), weightBytes / (double) (1L << 30), heap / (double) (1L << 30)));
        }
        boolean large = weightBytes >= PROGRESS_FROM_BYTES;
        if (large) {
            err.printf(java.util.Locale.ROOT, "authoring %s %s: %d weight values (%.0f MiB as f32)...%n", m.name(), c, m.weightCount(), weightBytes / 1048576.0);
            err.flush();
        }
        org.stagecheck.author.ExpertSplit split = org.stagecheck.author.ExpertSplit.ofCliName(expertSplit);
        if (split == null) {
            throw new BadInputException("--expert-split takes tensor or experts, not '" + expertSplit + "'");
        }
        // given where it splits nothing, it would be ignored without a word (as --layer is refused for a cut without layers)
        if (spec.commandLine().getParseResult().hasMatchedOption("--expert-split") && (!m.arch().moe().present() || tp == 1)) {
            throw new BadInputException("--expert-split says how a mixture of experts is split over --tp chips; "
                    + (!m.arch().moe().present() ? "model '" + m.name() + "' has no experts" : "with --tp 1 nothing is split"));
        }
        AuthorOutcome outcome = Author.author(m, c, new AuthorOptions(tp, wh[0], wh[1], weightType).withExpertSplit(split));
        AuthorOutcome.Authored a = switch (outcome) {
            case AuthorOutcome.Authored authored -> authored;
            case AuthorOutcome.Refused r -> throw new BadInputException("refused (" + r.reason() + "): " + r.message());
        };
        AuthorOutcome.WriteProgress progress = !large ? AuthorOutcome.WriteProgress.NONE : (done, total, bytes) -> {
            if (done == total || done % Math.max(1, total / 10) == 0) {
                err.printf(java.util.Locale.ROOT, "  wrote %d/%d tensor files (%.0f MiB)%n", done, total, bytes / 1048576.0);
                err.flush();
            }
        };
        try {
            a.writeTo(dir.path(), progress);
        } catch (IOException e) {
            throw new BadInputException("--out " + out + ": cannot write: " + IoMessages.describe(e));
        }
        String hash = new ProgramCodec().hash(a.program());
        if (json) {
            Json.print(o, g -> {
                g.writeStartObject();
                g.writeStringField("command", "author");
                g.writeBooleanField("holds", true);
                g.writeStringField("status", "authored");
                g.writeNumberField("exitCode", ExitCode.OK);
                g.writeStringField("model", m.name());
                g.writeStringField("cut", c.toString());
                g.writeNumberField("tp", tp);
                g.writeStringField("weightDType", weightType.toString());
                g.writeStringField("dir", out.toString());
                g.writeStringField("programHash", hash);
                g.writeNumberField("stages", a.program().stages().size());
                g.writeNumberField("weights", a.weightCount());
                if (a.checkpoint() != null) {
                    g.writeStringField("checkpoint", a.checkpoint().dir());
                    g.writeNumberField("referencedWeights", a.checkpoint().tensors().size());
                }
                g.writeBooleanField("certificate", a.certificate() != null);
                g.writeEndObject();
            });
        } else {
            o.println("authored " + m.name() + " " + c + (tp > 1 ? " split over " + tp + " chips" : "") + ": "
                    + a.program().stages().size() + " stages, " + a.weightCount() + " " + weightType + " weight tensors"
                    + (a.checkpoint() == null ? "" : " (" + a.checkpoint().tensors().size() + " referenced in the checkpoint " + a.checkpoint().dir()
                    + ", not copied)"));
            o.println("  " + out.resolve("program.json") + "  " + hash);
            if (a.certificate() != null) {
                o.println("  " + out.resolve("certificate.json"));
            }
            o.println("  " + out.resolve("model.json"));
            o.println("  " + out.resolve("inputs.json") + "  (run: stagecheck run " + out.resolve("program.json") + " --inputs " + out + " --out OUT)");
            o.flush();
        }
        return ExitCode.OK;
    }

    /** Authoring at least this many bytes of weights prints progress on stderr. */
    static final long PROGRESS_FROM_BYTES = 64L << 20;

    private static DType weightType(String text) throws BadInputException {
        DType d = DType.fromJsonName(text);
        if (d == null || !d.isFloating()) {
            throw new BadInputException("--weights takes a floating dtype (f32, bf16, f16, e4m3, e5m2), not '" + text + "'");
        }
        return d;
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
