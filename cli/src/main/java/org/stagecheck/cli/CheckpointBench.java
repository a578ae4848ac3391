package org.stagecheck.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.stagecheck.author.synth.SyntheticCheckpoint;
import org.stagecheck.author.synth.SyntheticModel;

/**
 * {@code bench checkpoint}: what a user sees authoring and running one decode step of a model read
 * from a Hugging Face checkpoint directory. The checkpoint is written once (or found, complete,
 * where asked), then {@code stagecheck author} and {@code stagecheck run} run as child processes of
 * the real command line ({@link ChildMeasure}): wall time, peak memory, the size of the authored
 * directory, and the run's own split of its time between binding the inputs (the checkpoint's
 * weights read from its mapped file) and executing the stages.
 */
final class CheckpointBench {
    /**
     * What to measure: the model, where its checkpoint lives (null: in the temporary directory),
     * whether to keep the files, the decode step's context, the splits, and where the temporary
     * directory is made (null: the system's).
     */
    record Options(SyntheticModel model, Path checkpointDir, boolean keep, int ctx, List<Integer> tps, Path tempParent) {
        Options {
            tps = List.copyOf(tps);
        }
    }

    /** A step that failed: the child's exit status and its error output, said in one line. */
    static final class Failure extends Exception {
        Failure(String message) {
            super(message);
        }
    }

    /** One measured row. */
    private record Row(String step, long wallNanos, long cpuNanos, long peakRssKiB, long peakAnonKiB, String notes) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private CheckpointBench() {
    }

    /** Measures and returns the report (a markdown table and the lines that say what it measured); progress goes to {@code progress}. */
    static String run(Options o, ChildMeasure children, Consumer<String> progress) throws IOException, InterruptedException, Failure, BadInputException {
        Path work = o.tempParent() == null ? Files.createTempDirectory("stagecheck-bench-checkpoint-")
                : Files.createTempDirectory(o.tempParent(), "stagecheck-bench-checkpoint-");
        // a bench stopped by a signal still deletes its gigabytes (the launcher passes the signal on; hooks run)
        Thread cleanup = new Thread(() -> {
            try {
                deleteTree(work);
            } catch (IOException | RuntimeException e) {
                // best effort while the JVM stops
            }
        });
        if (!o.keep()) {
            Runtime.getRuntime().addShutdownHook(cleanup);
        }
        Path ckpt = o.checkpointDir() != null ? o.checkpointDir().toAbsolutePath() : work.resolve("checkpoint");
        try {
            List<Row> rows = new ArrayList<>();
            rows.add(checkpoint(o.model(), ckpt, progress));
            long checkpointBytes = bytes(ckpt);
            for (int tp : o.tps()) {
                rows.addAll(decode(o, children, ckpt, work, tp, checkpointBytes, progress));
            }
            return report(o, children, ckpt, checkpointBytes, rows, o.keep() ? work : null);
        } finally {
            if (!o.keep()) {
                Runtime.getRuntime().removeShutdownHook(cleanup);
                deleteTree(work);
            }
        }
    }

    /** The file that marks a directory as this bench's checkpoint, holding the description of the model written there. */
    static final String MARKER = ".stagecheck-bench-checkpoint";

    /**
     * Writes the checkpoint, unless {@code dir} already holds this very model: its marker, written
     * last, names the same model (family, shapes, dtype and seed alike). A directory that holds
     * other files and no marker is not this bench's to overwrite: refused.
     */
    private static Row checkpoint(SyntheticModel model, Path dir, Consumer<String> progress) throws IOException, BadInputException {
        Path marker = dir.resolve(MARKER);
        String expected = model.toString();
        if (Files.isRegularFile(marker) && Files.readString(marker, StandardCharsets.UTF_8).equals(expected)
                && Files.isRegularFile(dir.resolve(SyntheticCheckpoint.CONFIG_FILE)) && Files.isRegularFile(dir.resolve("model.safetensors"))) {
            progress.accept("checkpoint: reusing " + dir);
            return new Row("checkpoint: found in " + dir.getFileName() + " (written by an earlier run)", -1, -1, -1, -1, size(bytes(dir)));
        }
        if (Files.isDirectory(dir) && !Files.isRegularFile(marker)) {
            try (Stream<Path> s = Files.list(dir)) {
                if (s.findAny().isPresent()) {
                    throw new BadInputException("--dir " + dir + " holds files but no checkpoint this bench wrote; name a new or empty directory");
                }
            }
        }
        progress.accept("checkpoint: writing " + dir + " ...");
        Files.deleteIfExists(marker); // a checkpoint half rewritten is not taken for a whole one
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long c0 = threads.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        SyntheticCheckpoint.write(dir, model);
        long wall = System.nanoTime() - t0;
        long cpu = c0 < 0 ? -1 : threads.getCurrentThreadCpuTime() - c0;
        Files.writeString(marker, expected, StandardCharsets.UTF_8);
        return new Row("write the checkpoint (in the bench's own JVM)", wall, cpu, -1, -1,
                size(bytes(dir)) + " of bf16 safetensors, made and written one tensor at a time");
    }

    private static List<Row> decode(Options o, ChildMeasure children, Path ckpt, Path work, int tp, long checkpointBytes,
                                    Consumer<String> progress) throws IOException, InterruptedException, Failure {
        String split = tp == 1 ? "" : " --tp " + tp;
        Path authored = work.resolve("decode-tp" + tp);
        Path out = work.resolve("decode-tp" + tp + "-out");
        List<Row> rows = new ArrayList<>();
        progress.accept("author --cut decode --ctx " + o.ctx() + split + " ...");
        List<String> authorArgs = new ArrayList<>(List.of("author", "--model", ckpt.toString(), "--cut", "decode", "--ctx", Integer.toString(o.ctx()),
                "--tp", Integer.toString(tp), "--out", authored.toString(), "--json"));
        ChildMeasure.Outcome a = succeeded("author" + split, children.run(work, authorArgs));
        JsonNode aj = JSON.readTree(a.stdout());
        long dirBytes = bytes(authored);
        rows.add(new Row("`author --cut decode --ctx " + o.ctx() + split + "`", a.wallNanos(), a.cpuNanos(), a.peakRssKiB(), a.peakAnonKiB(),
                String.format(Locale.ROOT, "%d stages; %d weights referenced, not copied; the directory is %s (%.2f%% of the checkpoint)",
                        aj.path("stages").asLong(), aj.path("referencedWeights").asLong(), size(dirBytes), 100.0 * dirBytes / checkpointBytes)));
        progress.accept("run one decode step" + split + " ...");
        ChildMeasure.Outcome r = succeeded("run" + split, children.run(work, List.of("run", authored.resolve("program.json").toString(),
                "--inputs", authored.toString(), "--out", out.toString(), "--json")));
        JsonNode rj = JSON.readTree(r.stdout());
        long bindNanos = rj.path("bindMicros").asLong() * 1000;
        long execNanos = rj.path("micros").asLong() * 1000;
        rows.add(new Row("`run` one decode step" + (tp == 1 ? "" : " on " + tp + " chips"), r.wallNanos(), r.cpuNanos(), r.peakRssKiB(), r.peakAnonKiB(),
                String.format(Locale.ROOT, "bind inputs (weights read from the mapped checkpoint) %s, execute %s, the rest (JVM start, "
                        + "program read and validated, outputs written) %s", seconds(bindNanos), seconds(execNanos),
                        seconds(r.wallNanos() - bindNanos - execNanos))));
        return rows;
    }

    private static ChildMeasure.Outcome succeeded(String what, ChildMeasure.Outcome o) throws Failure {
        if (o.exit() != 0) {
            String err = o.stderr().lines().filter(l -> !l.startsWith("WARNING: Using incubator modules")).reduce((x, y) -> x + " / " + y).orElse("");
            throw new Failure("stagecheck " + what + " exited with " + o.exit() + ": " + err);
        }
        return o;
    }

    private static String report(Options o, ChildMeasure children, Path ckpt, long checkpointBytes, List<Row> rows, Path kept) {
        SyntheticModel m = o.model();
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "Model: %s-family checkpoint, hidden %d, %d layers, %d heads (%d KV), head_dim %d, ffn %d, vocab %d, %s, "
                        + "%s in %s. Decode step: ctx %d.%n%n", m.family().toString().toLowerCase(Locale.ROOT), m.hidden(), m.layers(), m.heads(),
                m.kvHeads(), m.headDim(), m.ffn(), m.vocab(), m.dtype(), size(checkpointBytes), "one model.safetensors", o.ctx()));
        b.append(String.format(Locale.ROOT, "Each `stagecheck` step ran as a child JVM started as the launcher starts it (%s), max heap %s%s.%n%n",
                jvmOptions(children.launcher()), size(Runtime.getRuntime().maxMemory()),
                heapGiven(children.launcher()) ? "" : " (the JVM's default: a quarter of this machine's memory)"));
        b.append("| step | wall | CPU | peak RSS | peak anonymous | what |\n");
        b.append("|---|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            b.append("| ").append(r.step()).append(" | ").append(r.wallNanos() < 0 ? "-" : seconds(r.wallNanos())).append(" | ")
                    .append(r.cpuNanos() < 0 ? "-" : seconds(r.cpuNanos())).append(" | ")
                    .append(kib(r.peakRssKiB())).append(" | ").append(kib(r.peakAnonKiB())).append(" | ").append(r.notes()).append(" |\n");
        }
        b.append("\nPeak RSS is the child's VmHWM (every resident page, the checkpoint's mapped pages included); peak anonymous is the "
                + "largest RssAnon seen polling /proc every " + ChildMeasure.POLL_MILLIS + " ms (the heap and the JVM's own memory, without "
                + "file pages the page cache shares). CPU is user and system time of all the child's threads (the calling thread's alone "
                + "for the checkpoint's writing); where the wall time is well above it, the step waited for cores other work held.\n");
        if (kept != null) {
            b.append("\nKept: the checkpoint in ").append(ckpt).append(", the authored directories and outputs in ").append(kept).append(".\n");
        }
        return b.toString();
    }

    /** The JVM options of the launcher (between the java command and -cp), which the children share. */
    private static String jvmOptions(List<String> launcher) {
        int cp = launcher.indexOf("-cp");
        List<String> opts = launcher.subList(1, cp < 0 ? launcher.size() : cp);
        return "`java " + String.join(" ", opts) + "`";
    }

    private static boolean heapGiven(List<String> launcher) {
        return launcher.stream().anyMatch(a -> a.startsWith("-Xmx") || a.startsWith("-XX:MaxHeapSize") || a.startsWith("-XX:MaxRAM"));
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }

    static String kib(long kib) {
        return kib < 0 ? "-" : size(kib * 1024);
    }

    static String size(long bytes) {
        if (bytes >= 1L << 30) {
            return String.format(Locale.ROOT, "%.2f GiB", bytes / (double) (1L << 30));
        }
        if (bytes >= 1L << 20) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20));
        }
        return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
    }

    /** The bytes of the regular files under {@code dir}. */
    static long bytes(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            long total = 0;
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                total += Files.size(p);
            }
            return total;
        }
    }

    /** Deletes {@code dir} and everything under it (a checkpoint given with --dir lies elsewhere and stays). */
    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
