package org.stagecheck.tensor.safetensors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SequencedMap;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.spec.ir.DType;
import org.stagecheck.spec.ir.Shape;
import org.stagecheck.tensor.Tensor;
import org.stagecheck.tensor.TensorSlices;
import org.stagecheck.tensor.npy.TensorFileException;

/**
 * A block read (a chip's share of a split weight) gives exactly the bits of the whole tensor read,
 * viewed as stored or transposed, then sliced: every dtype, blocks at the edges and inside, and
 * matrices taller than the transpose's strip of 64 rows.
 */
class SafetensorsBlockReadTest {
    @TempDir
    Path dir;

    private static Tensor random(DType dtype, Shape shape, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        int n = (int) shape.elementCount();
        if (dtype == DType.F32) {
            float[] v = new float[n];
            for (int i = 0; i < n; i++) {
                v[i] = Float.intBitsToFloat(r.nextInt());
            }
            return Tensor.wrapFloats(shape, v);
        }
        short[] v = new short[n];
        for (int i = 0; i < n; i++) {
            v[i] = (short) r.nextInt();
        }
        return Tensor.wrapBits16(dtype, shape, v);
    }

    @Test
    void everyBlockIsTheSliceOfTheWholeRead() throws Exception {
        SequencedMap<String, Tensor> m = new LinkedHashMap<>();
        m.put("bf16", random(DType.BF16, Shape.of(150, 70), 1));
        m.put("f16", random(DType.F16, Shape.of(70, 65), 2));
        m.put("f32", random(DType.F32, Shape.of(3, 129), 3));
        Path f = dir.resolve("m.safetensors");
        SafetensorsWriter.write(f, m, Map.of());
        try (SafetensorsFile st = SafetensorsFile.open(f)) {
            for (String name : m.keySet()) {
                int rows = m.get(name).shape().dim(0);
                int cols = m.get(name).shape().dim(1);
                for (boolean transposed : new boolean[] {false, true}) {
                    Tensor whole = transposed ? st.readTransposed(name) : st.read(name);
                    for (int[] range : new int[][] {{0, rows}, {0, 1}, {1, rows}, {rows / 2, rows}, {rows / 3, rows / 3 + 1 + rows / 3}}) {
                        // rows of the stored matrix: the viewed axis 0 as stored, axis 1 transposed
                        Tensor byRows = st.readBlock(name, range[0], range[1], 0, cols, transposed);
                        Tensor expected = TensorSlices.slice2d(whole, transposed ? 1 : 0, range[0], range[1]);
                        assertThat(byRows.bitEquals(expected)).as(name + " rows " + range[0] + ".." + range[1] + (transposed ? " transposed" : "")).isTrue();
                    }
                    for (int[] range : new int[][] {{0, cols}, {0, 1}, {cols - 1, cols}, {cols / 2, cols}, {cols / 4, cols / 2 + 3}}) {
                        Tensor byCols = st.readBlock(name, 0, rows, range[0], range[1], transposed);
                        Tensor expected = TensorSlices.slice2d(whole, transposed ? 0 : 1, range[0], range[1]);
                        assertThat(byCols.bitEquals(expected)).as(name + " cols " + range[0] + ".." + range[1] + (transposed ? " transposed" : "")).isTrue();
                    }
                }
            }
        }
    }

    @Test
    void aBlockOutsideTheMatrixIsRefusedNamingIt() throws Exception {
        SequencedMap<String, Tensor> m = new LinkedHashMap<>();
        m.put("w", random(DType.BF16, Shape.of(4, 6), 1));
        m.put("v", random(DType.BF16, Shape.of(6), 2));
        Path f = dir.resolve("m.safetensors");
        SafetensorsWriter.write(f, m, Map.of());
        try (SafetensorsFile st = SafetensorsFile.open(f)) {
            assertThatThrownBy(() -> st.readBlock("w", 0, 5, 0, 6, false)).isExactlyInstanceOf(TensorFileException.class)
                    .hasMessageContaining("tensor 'w' has shape [4, 6]; rows [0, 5) and columns [0, 6) do not fit it");
            assertThatThrownBy(() -> st.readBlock("w", 2, 2, 0, 6, true)).isExactlyInstanceOf(TensorFileException.class);
            assertThatThrownBy(() -> st.readBlock("v", 0, 1, 0, 1, false)).isExactlyInstanceOf(TensorFileException.class)
                    .hasMessageContaining("not two dimensions");
        }
    }
}
