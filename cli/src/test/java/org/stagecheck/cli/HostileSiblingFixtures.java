package org.stagecheck.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The files {@link HostileInputSiblingsTest} adds to {@link HostileInputFixtures}: named pipes
 * where a program, a report, a manifest or a tensor belongs (opening one with no writer blocks
 * for ever), link loops, directories where files belong, content that is not UTF-8, a program with
 * a parameter, reports of every wrong shape, and an output directory that already holds a file.
 */
final class HostileSiblingFixtures {
    private HostileSiblingFixtures() {
    }

    static void write(Path dir) throws IOException, InterruptedException {
        HostileInputFixtures.write(dir);
        Files.copy(Path.of("../examples/unsplit/tp2-matmul-allreduce.json"), dir.resolve("parent.json"));
        Files.copy(Path.of("../examples/scalar-offset-kv-ring.json"), dir.resolve("kv.json"));
        fifo(dir.resolve("fifo.json"));
        Path manifestPipe = Files.createDirectories(dir.resolve("in-fifo-manifest"));
        fifo(manifestPipe.resolve("inputs.json"));
        Path tensorPipe = Files.createDirectories(dir.resolve("in-fifo-npy"));
        Files.copy(dir.resolve("inputs/bias.npy"), tensorPipe.resolve("bias.npy"));
        fifo(tensorPipe.resolve("x.npy"));
        HostileInputFixtures.copyTree(dir.resolve("trace"), dir.resolve("trace-fifo"));
        Files.delete(dir.resolve("trace-fifo/y.npy"));
        fifo(dir.resolve("trace-fifo/y.npy"));
        HostileInputFixtures.copyTree(dir.resolve("case"), dir.resolve("case-fifo"));
        Files.delete(dir.resolve("case-fifo/program.json"));
        fifo(dir.resolve("case-fifo/program.json"));

        Files.createDirectories(dir.resolve("dir.json"));
        Files.createSymbolicLink(dir.resolve("loop.json"), dir.resolve("loop.json"));
        Files.createSymbolicLink(dir.resolve("loopdir"), dir.resolve("loopdir"));
        Files.write(dir.resolve("bad8.json"), "{\"format\": \"\u00ff\u00fe\"}".getBytes(StandardCharsets.ISO_8859_1));
        Path full = Files.createDirectories(dir.resolve("full"));
        Files.writeString(full.resolve("keep.txt"), "a file of the user's");

        Files.writeString(dir.resolve("rep-array.json"), "[]");
        Files.writeString(dir.resolve("rep-nocommand.json"), "{}");
        Files.writeString(dir.resolve("rep-min.json"), "{\"command\": \"golden check\", \"holds\": false}");
        CliRunner passing = CliRunner.run("golden", "check", dir.resolve("case").toString(), "--json");
        Files.writeString(dir.resolve("rep-pass.json"), passing.out());
    }

    /** A named pipe with no writer (mkfifo: Java has no call for it). */
    private static void fifo(Path path) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("mkfifo", path.toString()).inheritIO().start();
        if (p.waitFor() != 0) {
            throw new IOException("mkfifo " + path + " failed");
        }
    }
}
