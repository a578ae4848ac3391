package org.stagecheck.interp.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;

/**
 * The evaluator bench with ND4J as the baseline, run in one command (docs/bench.md):
 * {@code bin/mvn25 -B -q -pl interp test -Pbench [-Dbench.size=4096 -Dbench.rows=64]}. Tagged
 * "bench" and excluded from the normal test run. Prints the table and writes target/bench.md.
 */
@Tag("bench")
@Tag("slow")
class Nd4jBenchTest {

    static final class Nd4jBaseline implements Baseline {
        @Override
        public String name() {
            return "ND4J " + Nd4j.getBackend().getClass().getSimpleName();
        }

        @Override
        public double matmulSeconds(float[] a, float[] w, int m, int k, int n, int repeats) {
            INDArray x = Nd4j.createFromArray(a).reshape('c', m, k);
            INDArray y = Nd4j.createFromArray(w).reshape('c', k, n);
            INDArray out = Nd4j.create(org.nd4j.linalg.api.buffer.DataType.FLOAT, m, n);
            double best = Double.MAX_VALUE;
            for (int r = 0; r <= repeats; r++) {
                long t0 = System.nanoTime();
                x.mmuli(y, out);
                double s = (System.nanoTime() - t0) / 1e9;
                if (r > 0) {
                    best = Math.min(best, s);
                }
            }
            return best;
        }
    }

    @Test
    void benchAgainstNd4j() throws Exception {
        BenchOptions d = BenchOptions.defaults();
        BenchOptions o = new BenchOptions(Integer.getInteger("bench.size", d.size()), Integer.getInteger("bench.rows", d.rows()),
                Integer.getInteger("bench.threads", d.threads()), Integer.getInteger("bench.repeats", d.repeats()), new Nd4jBaseline());
        BenchReport r = EvaluatorBench.run(o);
        String table = r.toTable();
        System.out.println(table);
        Files.writeString(Path.of("target", "bench.md"), table);
        assertThat(r.rows()).isNotEmpty();
    }
}
