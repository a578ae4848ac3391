package org.stagecheck.tensor.compare;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.npy.Npy;

/**
 * A comparison of files streams: a JVM whose whole heap (32 MiB) is a sixth of the three files it
 * compares (expected, actual and tolerance, 64 MiB each) compares them under the derived policy
 * with a heat map, and finds what the comparison of the same tensors in memory finds.
 */
class StreamedHeapTest {
    private static final int ROWS = 4096;
    private static final int COLS = 4096;
    private static final String HEAP = "-Xmx32m";

    @TempDir
    Path dir;

    /** Run in the small JVM: compares the three files given and prints the comparison and the heat map's largest error. */
    public static final class Main {
        public static void main(String[] args) throws Exception {
            Operand e = Operand.NpyFile.open(Path.of(args[0]), DType.F32);
            Operand a = Operand.NpyFile.open(Path.of(args[1]), DType.F32);
            Operand tol = Operand.NpyFile.open(Path.of(args[2]), DType.F32);
            Comparator.Compared c = Comparator.compare(e, a, new Policy.Derived(1), tol, 256);
            System.out.println(c.comparison());
            System.out.println("map " + java.util.Arrays.stream(c.errorMap().error()).max().orElseThrow());
            System.out.println("max heap " + Runtime.getRuntime().maxMemory());
        }
    }

    @Test
    void aJvmWithASixthOfTheFilesAsHeapComparesThem() throws Exception {
        int n = ROWS * COLS;
        float[] ev = new float[n];
        float[] av = new float[n];
        float[] tv = new float[n];
        IntStream.range(0, ROWS).parallel().forEach(r -> {
            SplittableRandom rnd = new SplittableRandom(r);
            for (int i = r * COLS; i < (r + 1) * COLS; i++) {
                float v = (float) (rnd.nextDouble() * 4 - 2);
                ev[i] = v;
                av[i] = i % 5 == 0 ? Math.nextUp(Math.nextUp(v)) : v;
                tv[i] = 4 * Math.ulp(v);
            }
        });
        Shape shape = Shape.of(ROWS, COLS);
        Tensor e = Tensor.wrapFloats(shape, ev);
        Tensor a = Tensor.wrapFloats(shape, av);
        Tensor tol = Tensor.wrapFloats(shape, tv);
        List<Path> files = List.of(dir.resolve("e.npy"), dir.resolve("a.npy"), dir.resolve("t.npy"));
        Npy.write(files.get(0), e);
        Npy.write(files.get(1), a);
        Npy.write(files.get(2), tol);
        Comparison inMemory = Comparator.compare(e, a, new Policy.Derived(1), tol);
        double mapMax = java.util.Arrays.stream(ErrorMap.of(e, a, new Policy.Derived(1), tol, 256).error()).max().orElseThrow();

        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, HEAP, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                files.get(0).toString(), files.get(1).toString(), files.get(2).toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        List<String> lines = out.lines().toList();
        assertThat(lines).as(out).contains(inMemory.toString(), "map " + mapMax);
        long maxHeap = Long.parseLong(lines.getLast().substring("max heap ".length()));
        assertThat(3L * 4 * n).as("the files hold more than the small JVM's whole heap").isGreaterThan(5 * maxHeap);
        assertThat(inMemory.passed()).isTrue();
    }
}
