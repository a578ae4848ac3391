package org.stagecheck.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.stagecheck.spec.json.InputsManifest;
import org.stagecheck.spec.json.JNode;
import org.stagecheck.spec.json.JsonFormatException;
import org.stagecheck.spec.json.JsonReader;
import org.stagecheck.tensor.npy.IoMessages;

/**
 * Whether an existing {@code run --out} directory may be replaced as a whole: it must hold only
 * what an earlier run writes (docs/format.md, "Run output directory"): the index
 * {@code tensors.json} and the files it names, and {@code trace/} with its {@code index.json} and
 * the files that names. Anything else is a user's, and a run refuses the directory rather than
 * delete it.
 */
final class EarlierRunOutput {
    private static final int NAMED = 3;

    private EarlierRunOutput() {
    }

    /** Refuses {@code dir} (checked to be a directory, or absent) when it holds anything a run did not write. */
    static void refuseForeign(Path dir) throws BadInputException {
        if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try {
            Set<String> ours = new HashSet<>();
            if (Files.isRegularFile(dir.resolve(RunInputs.INDEX), LinkOption.NOFOLLOW_LINKS)) {
                ours.addAll(indexAndNamedFiles(dir.resolve(RunInputs.INDEX)));
            }
            Path trace = dir.resolve(RunOutputs.TRACE);
            if (Files.isDirectory(trace, LinkOption.NOFOLLOW_LINKS) && foreign(trace, traceFiles(trace)).isEmpty()) {
                ours.add(RunOutputs.TRACE);
            }
            List<String> foreign = foreign(dir, ours);
            if (!foreign.isEmpty()) {
                throw new BadInputException("--out " + dir + " holds files an earlier stagecheck run did not write ("
                        + listed(foreign) + "); a run replaces its output directory as a whole and never deletes other files: choose another directory");
            }
        } catch (IOException e) {
            throw new BadInputException("--out " + dir + ": cannot read it: " + IoMessages.describe(e));
        }
    }

    /** The first {@value #NAMED} of {@code names}, and how many more there are. */
    static String listed(List<String> names) {
        return String.join(", ", names.subList(0, Math.min(NAMED, names.size())))
                + (names.size() > NAMED ? ", and " + (names.size() - NAMED) + " more" : "");
    }

    /** The entries of {@code dir} not in {@code ours} (a killed write's hidden leftovers aside), sorted. */
    static List<String> foreign(Path dir, Set<String> ours) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString())
                    .filter(n -> !ours.contains(n) && !(n.startsWith(".") && n.endsWith(OutputPaths.TMP_SUFFIX)))
                    .sorted().toList();
        }
    }

    /**
     * The index's own name and the file names its {@code {"format": "stagecheck-inputs", "tensors":
     * {name: file}}} maps to; none when it is not such an index.
     */
    private static Set<String> indexAndNamedFiles(Path index) throws IOException {
        Set<String> files = new HashSet<>();
        if (parse(index) instanceof JNode.JObject o && o.fields().get("format") instanceof JNode.JString f
                && f.value().equals(InputsManifest.FORMAT) && o.fields().get("tensors") instanceof JNode.JObject tensors) {
            files.add(index.getFileName().toString());
            for (JNode v : tensors.fields().values()) {
                if (v instanceof JNode.JString file) {
                    files.add(file.value());
                }
            }
        }
        return files;
    }

    /** {@code index.json} and the files a stagecheck trace index names; none when it is not one. */
    private static Set<String> traceFiles(Path trace) throws IOException {
        Set<String> files = new HashSet<>();
        Path index = trace.resolve(RunOutputs.TRACE_INDEX);
        if (!Files.isRegularFile(index, LinkOption.NOFOLLOW_LINKS)
                || !(parse(index) instanceof JNode.JObject o && o.fields().get("format") instanceof JNode.JString f
                        && f.value().equals("stagecheck-trace"))) {
            return files;
        }
        files.add(RunOutputs.TRACE_INDEX);
        if (o.fields().get("stages") instanceof JNode.JArray stages) {
            for (JNode stage : stages.items()) {
                if (stage instanceof JNode.JObject so && so.fields().get("outs") instanceof JNode.JArray outs) {
                    for (JNode out : outs.items()) {
                        if (out instanceof JNode.JString file) {
                            files.add(file.value());
                        }
                    }
                }
            }
        }
        return files;
    }

    private static JNode parse(Path json) throws IOException {
        try {
            return new JsonReader().read(json);
        } catch (JsonFormatException e) {
            return null; // not an index stagecheck wrote: nothing in the directory is known to be ours
        }
    }
}
