package org.stagecheck.author.nd4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.stagecheck.author.Author;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.backend.RunResult;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;

/**
 * Authors a cut and runs it on the interpreter with the tests' own inputs, keeping the state in
 * logical (unsplit) form between steps: a split run's cache shards are gathered back by the layout
 * docs/author.md states (chip c holds columns {@code [c*W/tp, (c+1)*W/tp)} of each cache, as
 * {@code <name>.c<c>}).
 */
final class AuthoredRuns {
    private AuthoredRuns() {
    }

    static AuthorOutcome.Authored author(ModelSpec spec, Cut cut, AuthorOptions options) {
        AuthorOutcome outcome = Author.author(spec, cut, options);
        assertThat(outcome).as("authoring %s with %s", cut, options).isInstanceOf(AuthorOutcome.Authored.class);
        return (AuthorOutcome.Authored) outcome;
    }

    /**
     * Runs {@code cut} written with {@code options} on the logical bound tensors and returns the
     * result with its caches gathered into logical {@code kv_k.l<i>}, {@code kv_v.l<i>}.
     */
    static Map<String, Tensor> run(ModelSpec spec, Cut cut, AuthorOptions options, Map<String, Tensor> logical,
                                   Map<String, Long> params) {
        AuthorOutcome.Authored authored = author(spec, cut, options);
        Map<String, Tensor> bound = options.tp() == 1 ? logical : Author.bindSplit(spec, cut, options, logical);
        RunResult result = new Interpreter(RunOptions.defaults()).run(authored.program(), bound, params);
        assertThat(result.faults()).as("faults running %s with %s", cut, options).isEmpty();
        Map<String, Tensor> out = new LinkedHashMap<>(result.tensors());
        if (options.tp() > 1) {
            for (int l = 0; l < spec.layers(); l++) {
                for (String base : new String[] {"kv_k.l" + l, "kv_v.l" + l}) {
                    out.put(base, gatherColumns(result, base, options.tp(), logical.get(base).shape()));
                }
            }
        }
        return out;
    }

    private static Tensor gatherColumns(RunResult result, String base, int tp, Shape logicalShape) {
        int rows = logicalShape.dim(0);
        int width = logicalShape.dim(1);
        int part = width / tp;
        float[] out = new float[rows * width];
        for (int c = 0; c < tp; c++) {
            Tensor shard = result.tensor(base + ".c" + c);
            assertThat(shard).as("cache shard %s.c%d", base, c).isNotNull();
            assertThat(shard.shape()).isEqualTo(Shape.of(rows, part));
            for (int r = 0; r < rows; r++) {
                for (int j = 0; j < part; j++) {
                    out[r * width + c * part + j] = shard.getFloat((long) r * part + j);
                }
            }
        }
        return Tensor.fromFloats(DType.F32, logicalShape, out);
    }

    /**
     * Caches of {@code rows} rows of finite values in [-1, 1) instead of zeros: rows a step must
     * not attend to then hold something that would show if the mask let them through, and rows
     * before the first position act as a history the program did not write.
     */
    static void fillCachesWithNoise(ModelSpec spec, Map<String, Tensor> logical, int rows, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (int l = 0; l < spec.layers(); l++) {
            for (String base : new String[] {"kv_k.l" + l, "kv_v.l" + l}) {
                float[] v = new float[rows * spec.kvWidth()];
                for (int i = 0; i < v.length; i++) {
                    v[i] = (float) (random.nextDouble() * 2 - 1);
                }
                logical.put(base, Tensor.fromFloats(DType.F32, Shape.of(rows, spec.kvWidth()), v));
            }
        }
    }
}
