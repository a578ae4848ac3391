package org.stagecheck.author;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.stagecheck.author.oracle.HfConfig64;
import org.stagecheck.author.oracle.RotaryFrequencies64;

/**
 * The checkpoint families' rotary frequencies are the independent oracle's bit for bit (both
 * follow the reference's f32 steps, including torch's scalar-by-tensor division as a reciprocal
 * times the scalar): Llama 3.1/3.2 scaling puts frequencies in all three bands at these sizes.
 */
class RotaryTablesAgreementTest {
    @ParameterizedTest(name = "Dh {0}, theta {1}, llama3 factor {2}")
    @CsvSource({"64, 500000, 32, 1, 4, 8192", "128, 500000, 8, 1, 4, 8192", "8, 10000, 0, 0, 0, 0",
            "64, 1000000, 0, 0, 0, 0", "16, 10000, 8, 1, 4, 16", "12, 100, 2, 0.5, 3, 64"})
    void inverseFrequenciesEqualTheOracles(int headDim, double theta, double factor, double low, double high, int original) {
        RopeScaling scaling = factor == 0 ? RopeScaling.NONE : new RopeScaling.Llama3(factor, low, high, original);
        ModelSpec spec = new ModelSpec("m", 16, 16, 1, 1, 1, headDim, 16, theta, 1e-5, 0L,
                new Architecture(Family.LLAMA, false, false, false, false, 0, scaling, false), null);
        float[] ours = RotaryFrequencies.f32(spec);
        RotaryFrequencies64 oracle = RotaryFrequencies64.of(headDim, theta,
                factor == 0 ? null : new HfConfig64.Llama3Scaling(factor, low, high, original));
        for (int i = 0; i < ours.length; i++) {
            assertThat(Float.floatToRawIntBits(ours[i])).as("inv_freq[%d]", i)
                    .isEqualTo(Float.floatToRawIntBits(oracle.inverseFrequency(i)));
        }
        var tables = Weights.rope(spec, 40);
        for (int p : new int[] {0, 1, 7, 39}) {
            for (int i = 0; i < ours.length; i++) {
                double angle = oracle.angle(p, i);
                assertThat(tables.get("rope_cos").getFloat((long) p * ours.length + i)).as("cos p %d i %d", p, i).isEqualTo((float) Math.cos(angle));
            }
        }
    }
}
