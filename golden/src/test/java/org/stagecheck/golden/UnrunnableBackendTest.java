package org.stagecheck.golden;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.stagecheck.backend.Backend;
import org.stagecheck.backend.RunResult;
import org.stagecheck.golden.Subjects.Subject;
import org.stagecheck.golden.debug.DebugInputException;
import org.stagecheck.golden.debug.Mismatch;
import org.stagecheck.backend.MathMode;
import org.stagecheck.spec.diag.Diagnostic;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.Tensor;

/**
 * A backend that cannot run at all here (no driver, no device: a fault before any stage) is bad
 * input for golden check and for diff's bisection, not a failed case or a stage to blame.
 */
class UnrunnableBackendTest {
    @TempDir
    Path tmp;

    private static final Backend NO_DEVICE = new Backend() {
        @Override
        public String name() {
            return "no-device";
        }

        @Override
        public RunResult run(Program program, Map<String, Tensor> bound, Map<String, Long> params, boolean trace) {
            return new RunResult(Map.of(), Map.of(), List.of(Diagnostic.atField("NO_CUDA_DRIVER", "/stages", "no driver here")), null);
        }
    };

    @Test
    void goldenCheckIsBadInputAndDiffRefusesToBlameAStage() throws Exception {
        Subject s = Subjects.examples().getFirst();
        Path dir = tmp.resolve("case");
        Golden.record(s.program(), s.bound(), s.params(), RecordOptions.defaults(), dir);
        CaseResult r = Golden.check(dir, new Actuals.FromBackend(NO_DEVICE));
        assertThat(r.status()).isEqualTo(CaseResult.Status.BAD_INPUT);
        assertThat(r.message()).contains("could not run").contains("NO_CUDA_DRIVER");
        assertThatThrownBy(() -> Mismatch.locate(s.program(), s.bound(), s.params(), NO_DEVICE,
                org.stagecheck.golden.debug.Judge.defaults(), MathMode.DEFAULT))
                .isInstanceOf(DebugInputException.class).hasMessageContaining("could not run");
    }
}
