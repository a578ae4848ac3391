package org.stagecheck.author.nd4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.tensor.Tensor;

/**
 * Compares the caches a run left with the reference's: the rows the step wrote (new keys after
 * rotary, new values) within {@link Agreement}'s tolerance, every other row bit-identical to what
 * was bound before the run (a program must not write where the math writes nothing).
 */
final class CacheCheck {
    private CacheCheck() {
    }

    /**
     * @param firstRow   the sequence's first row in the cache tensors (a batch row r: r*ctx)
     * @param written    the sequence's positions written by this step, {@code [from, to)}
     * @return the worst max |diff| / tolerance over the layers
     */
    static double assertCaches(String what, ModelSpec spec, Map<String, Tensor> before, Map<String, Tensor> after,
                               Nd4jTransformer.KvCache reference, int firstRow, int ctx, int from, int to) {
        double worst = 0;
        int width = spec.kvWidth();
        for (int l = 0; l < spec.layers(); l++) {
            for (boolean keys : new boolean[] {true, false}) {
                String name = (keys ? "kv_k.l" : "kv_v.l") + l;
                double[] ref = reference.flat(keys, l);
                Tensor got = after.get(name);
                worst = Math.max(worst, Agreement.assertClose(what + " " + name, ref, got, (long) firstRow * width));
                Tensor old = before.get(name);
                for (int row = 0; row < ctx; row++) {
                    if (row >= from && row < to) {
                        continue;
                    }
                    for (int j = 0; j < width; j++) {
                        long at = (long) (firstRow + row) * width + j;
                        if (Float.floatToRawIntBits(got.getFloat(at)) != Float.floatToRawIntBits(old.getFloat(at))) {
                            assertThat(got.getFloat(at)).as("%s %s row %d col %d was not written by the math but changed",
                                    what, name, row, j).isEqualTo(old.getFloat(at));
                        }
                    }
                }
            }
        }
        return worst;
    }
}
