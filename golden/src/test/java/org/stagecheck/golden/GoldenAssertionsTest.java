package org.stagecheck.golden;

import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.stagecheck.golden.assertj.GoldenAssertions.assertThat;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.backend.RunResult;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.tensor.Tensor;

class GoldenAssertionsTest {
    @TempDir
    Path tmp;

    @Test
    void matchGoldenPassesTheReferenceAndFailsWithTheTextReport() throws Exception {
        Subjects.Subject s = Subjects.examples().stream().filter(x -> x.name().equals("tiled-matmul-multicast")).findFirst().orElseThrow();
        Path c = tmp.resolve("mm");
        Golden.record(s.program(), s.bound(), s.params(), RecordOptions.defaults(), c);
        RunResult r = new Interpreter(RunOptions.defaults()).run(s.program(), s.bound(), s.params());
        assertThat(r).matchGolden(c);

        Map<String, Tensor> wrong = new LinkedHashMap<>(r.tensors());
        Tensor out = wrong.get("c");
        float[] v = out.toFloats();
        v[7] += 1;
        wrong.put("c", Tensor.fromFloats(out.dtype(), out.shape(), v));
        assertThatThrownBy(() -> assertThat(wrong).matchGolden(c))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("FAIL      mm")
                .hasMessageContaining("1 of 256 elements mismatch")
                .hasMessageContaining("at [0, 7]")
                .hasMessageContaining("would pass with");
        wrong.remove("c");
        assertThatThrownBy(() -> assertThat(wrong).matchGolden(c)).hasMessageContaining("no actual value for output 'c'");
    }
}
