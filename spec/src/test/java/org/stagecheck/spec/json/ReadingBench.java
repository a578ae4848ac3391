package org.stagecheck.spec.json;

import java.lang.ref.Reference;
import java.nio.file.Path;
import org.stagecheck.spec.ir.Program;

/**
 * The measurement behind docs/format.md, "Reading speed": times {@link JsonReader#read(Path)}
 * and {@link ProgramCodec#read(JNode)} on one file (the whole tree, as a string or stream is
 * read), then {@link ProgramFile#read} (the stages streamed, as the CLI reads a file), each
 * several times in one JVM (the first is the cold read a CLI run pays), and reports the heap the
 * tree, the program and the {@code ProgramFile} retain after a full collection. Not a test; run it from the repository root with the CLI jar:
 * <pre>
 * J=$(bin/find-jdk25); $J/bin/java -XX:+UseParallelGC -cp cli/target/stagecheck.jar \
 *     spec/src/test/java/org/stagecheck/spec/json/ReadingBench.java /tmp/big.json 3
 * </pre>
 */
public final class ReadingBench {
    private ReadingBench() {}

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    public static void main(String[] args) throws JsonFormatException {
        Path file = Path.of(args[0]);
        int reads = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        long base = usedAfterGc();
        for (int i = 0; i < reads; i++) {
            long t0 = System.nanoTime();
            JNode tree = new JsonReader().read(file);
            long t1 = System.nanoTime();
            Program program = new ProgramCodec().read(tree);
            long t2 = System.nanoTime();
            long both = usedAfterGc() - base;
            Reference.reachabilityFence(tree); // the tree is live for the first measurement
            tree = null;
            long programOnly = usedAfterGc() - base;
            System.out.printf("read %.0f ms + decode %.0f ms = %.0f ms; retained: tree %.0f MB, program %.0f MB (%d stages)%n",
                    (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t2 - t0) / 1e6,
                    (both - programOnly) / 1048576.0, programOnly / 1048576.0, program.stages().size());
        }
        for (int i = 0; i < reads; i++) {
            long t0 = System.nanoTime();
            ProgramFile read = ProgramFile.read(file);
            long t1 = System.nanoTime();
            long retained = usedAfterGc() - base;
            System.out.printf("ProgramFile.read %.0f ms; retained: %.0f MB (%d stages)%n",
                    (t1 - t0) / 1e6, retained / 1048576.0, read.program().stages().size());
            Reference.reachabilityFence(read);
        }
    }
}
