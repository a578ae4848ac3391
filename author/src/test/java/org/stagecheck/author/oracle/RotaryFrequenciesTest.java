package org.stagecheck.author.oracle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.author.oracle.HfConfig64.Family;
import org.stagecheck.author.oracle.HfConfig64.Llama3Scaling;
import org.stagecheck.author.oracle.TestCheckpointWriter.Dtype;
import org.stagecheck.author.oracle.TinyModels.Spec;

/** inv_freq by hand from FAMILIES.md's formulas, the f32 rounding the reference does, and llama3's bands. */
class RotaryFrequenciesTest {

    @Test
    void defaultFrequenciesAreThetaToTheMinusTwoIOverDhRoundedToF32() {
        // Dh = 8, theta = 10000: inv_freq[i] = 10000^(-2i/8) = 1, 0.1, 0.01, 0.001
        RotaryFrequencies64 r = RotaryFrequencies64.of(8, 10000, null);
        assertThat(r.pairs()).isEqualTo(4);
        assertThat(r.inverseFrequency(0)).isEqualTo(1f);
        assertThat(r.inverseFrequency(1)).isEqualTo(0.1f);
        assertThat(r.inverseFrequency(2)).isEqualTo(0.01f, within(1e-9f));
        assertThat(r.inverseFrequency(3)).isEqualTo(0.001f, within(1e-10f));
        // the reference keeps 0.1 as the f32 0.100000001490116..., not the double 0.1
        assertThat((double) r.inverseFrequency(1)).isNotEqualTo(0.1);
        // and the angle pos * inv_freq is an f32 product: 3 * 0.1f rounds to 0.3f = 0.30000001192...,
        // where the double product of the same f32 frequency would be 0.30000000447...
        assertThat(r.angle(3, 1)).isEqualTo(0.3f);
        assertThat((double) r.angle(3, 1)).isNotEqualTo(3 * (double) 0.1f);
    }

    @Test
    void llama3ScalesEachBandAsTheFormulaSays() {
        // Dh = 8, theta = 1e6: inv_freq = 1, 1e6^-0.25 = 0.0316228, 1e-3, 1e6^-0.75 = 3.16228e-5
        // wavelen = 2 pi / inv_freq = 6.283, 198.7, 6283.2, 198692
        // old = 8192, low_freq_factor 1, high_freq_factor 4: old/high = 2048, old/low = 8192
        //   i = 0, 1: wavelen < 2048, unchanged
        //   i = 3: wavelen > 8192, divided by factor 8: 3.16228e-5 / 8 = 3.952847e-6
        //   i = 2: between: s = (8192 / 6283.185 - 1) / (4 - 1) = 0.3037973 / 3 = 0.1012658
        //          inv' = (1 - s) * 1e-3 / 8 + s * 1e-3 = 1.123418e-4 + 1.012658e-4 = 2.136075e-4
        RotaryFrequencies64 r = RotaryFrequencies64.of(8, 1e6, new Llama3Scaling(8, 1, 4, 8192));
        assertThat(r.inverseFrequency(0)).isEqualTo(1f);
        assertThat((double) r.inverseFrequency(1)).isCloseTo(0.0316228, within(0.0316228 * 1e-6));
        assertThat((double) r.inverseFrequency(2)).isCloseTo(2.136075e-4, within(2.136075e-4 * 1e-6));
        assertThat((double) r.inverseFrequency(3)).isCloseTo(3.952847e-6, within(3.952847e-6 * 1e-6));
    }

    @Test
    void llama3WithEveryFrequencyInTheUnchangedBandIsNoScaling() {
        // Dh = 8, theta = 10000: the longest wavelength is 2 pi / 0.001 = 6283, below old/high = 32768/4
        RotaryFrequencies64 plain = RotaryFrequencies64.of(8, 10000, null);
        for (double factor : new double[] {1, 8}) {
            RotaryFrequencies64 scaled = RotaryFrequencies64.of(8, 10000, new Llama3Scaling(factor, 1, 4, 32768));
            for (int i = 0; i < 4; i++) {
                assertThat(scaled.inverseFrequency(i)).as("factor %s, i %d", factor, i).isEqualTo(plain.inverseFrequency(i));
            }
        }
    }

    @Test
    void aLlama3CheckpointAtFactorOneInTheUnchangedBandGivesTheUnscaledLogits(@TempDir Path dir) {
        Spec spec = Spec.of(Family.LLAMA);
        int[] tokens = {2, 4, 6, 8, 10};
        Map<String, Object> config = new LinkedHashMap<>(TinyModels.config(spec));
        config.put("rope_theta", 10000.0);
        double[][] plain = write(dir.resolve("plain"), config, spec).forwardAll(tokens);
        config.put("rope_scaling", Map.of("rope_type", "llama3", "factor", 1.0, "low_freq_factor", 1.0, "high_freq_factor", 4.0,
                "original_max_position_embeddings", 8192));
        double[][] scaled = write(dir.resolve("scaled"), config, spec).forwardAll(tokens);
        for (int p = 0; p < tokens.length; p++) {
            assertThat(scaled[p]).as("position %d", p).isEqualTo(plain[p]);
        }
        // a band that does move changes the logits (so the comparison above can fail)
        config.put("rope_scaling", Map.of("rope_type", "llama3", "factor", 8.0, "low_freq_factor", 1.0, "high_freq_factor", 4.0,
                "original_max_position_embeddings", 4));
        assertThat(write(dir.resolve("moved"), config, spec).forwardAll(tokens)[4]).isNotEqualTo(plain[4]);
    }

    @Test
    void hubAndV5RotaryKeysReadAlike() throws Exception {
        ObjectMapper json = new ObjectMapper();
        String shapes = "\"architectures\": [\"LlamaForCausalLM\"], \"vocab_size\": 5, \"hidden_size\": 8, \"intermediate_size\": 4,"
                + " \"num_hidden_layers\": 1, \"num_attention_heads\": 2, \"num_key_value_heads\": 1, ";
        HfConfig64 hub = HfConfig64.parse(json.readTree("{" + shapes + "\"rope_theta\": 500000.0, \"rope_scaling\": {\"type\": \"llama3\","
                + " \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 8192}}"), "hub");
        HfConfig64 v5 = HfConfig64.parse(json.readTree("{" + shapes + "\"rope_parameters\": {\"rope_theta\": 500000.0, \"rope_type\": \"llama3\","
                + " \"factor\": 8.0, \"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 8192}}"), "v5");
        assertThat(v5).isEqualTo(hub);
        assertThat(hub.ropeTheta()).isEqualTo(500000.0);
        assertThat(hub.llama3()).isEqualTo(new Llama3Scaling(8, 1, 4, 8192));
        assertThat(hub.headDim()).isEqualTo(4);
        HfConfig64 none = HfConfig64.parse(json.readTree("{" + shapes + "\"rope_scaling\": null}"), "none");
        assertThat(none.ropeTheta()).isEqualTo(10000.0);
        assertThat(none.llama3()).isNull();
    }

    private static HfForward64 write(Path dir, Map<String, Object> config, Spec spec) {
        TestCheckpointWriter.writeConfig(dir, config);
        TestCheckpointWriter.writeSingle(dir, TinyModels.weights(spec, 17), Dtype.F32);
        return HfForward64.open(dir);
    }
}
