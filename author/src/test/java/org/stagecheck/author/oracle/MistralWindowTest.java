package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.oracle.HfConfig64.Family;
import org.stagecheck.author.oracle.TinyModels.Spec;

/**
 * Mistral's window: key j is visible to query p iff {@code p - W < j <= p}. Changing token j then
 * reaches positions {@code j .. j + W - 1} through one layer, and {@code j .. j + L (W - 1)} through L.
 */
class MistralWindowTest {
    private static final int[] TOKENS = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 1, 2, 3};
    private static final int CHANGED = 3;

    @Test
    void oneLayerWithWindowFourReachesExactlyTheFourPositionsFromTheChangedToken(@TempDir Path dir) {
        assertThat(reached(dir, Spec.of(Family.MISTRAL).withLayers(1).withWindow(4))).isEqualTo(range(CHANGED, CHANGED + 3));
    }

    @Test
    void twoLayersCarryTheChangeTwoWindowsOnAndNoFurther(@TempDir Path dir) {
        assertThat(reached(dir, Spec.of(Family.MISTRAL).withLayers(2).withWindow(4))).isEqualTo(range(CHANGED, CHANGED + 6));
    }

    @Test
    void withoutAWindowEveryLaterPositionIsReached(@TempDir Path dir) {
        assertThat(reached(dir, Spec.of(Family.MISTRAL).withLayers(1).withWindow(0))).isEqualTo(range(CHANGED, TOKENS.length - 1));
    }

    @Test
    void theCachedDecoderKeepsTheSameWindow(@TempDir Path dir) {
        HfForward64 model = HfForward64.open(TinyModels.write(dir, Spec.of(Family.MISTRAL).withLayers(1).withWindow(4), 5));
        double[][] full = model.forwardAll(TOKENS);
        double[][] stepped = new double[TOKENS.length][];
        for (int p = 0; p < TOKENS.length; p++) {
            stepped[p] = model.decode(TOKENS[p]);
        }
        LogitsAssert.close(stepped, full, 1e-12, "window 4 decode");
    }

    /** The positions whose logits change (bit for bit) when token {@link #CHANGED} is replaced. */
    private static String reached(Path dir, Spec spec) {
        HfForward64 model = HfForward64.open(TinyModels.write(dir, spec, 5));
        int[] other = TOKENS.clone();
        other[CHANGED] = 0;
        double[][] a = model.forwardAll(TOKENS);
        double[][] b = model.forwardAll(other);
        StringBuilder changed = new StringBuilder();
        for (int p = 0; p < TOKENS.length; p++) {
            if (!LogitsAssert.identical(a[p], b[p])) {
                changed.append(p).append(' ');
            }
        }
        return changed.toString().trim();
    }

    private static String range(int from, int to) {
        StringBuilder s = new StringBuilder();
        for (int p = from; p <= to; p++) {
            s.append(p).append(' ');
        }
        return s.toString().trim();
    }
}
