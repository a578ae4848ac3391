package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.lower.CudaSource;
import org.stagecheck.cuda.lower.Kernel;
import org.stagecheck.cuda.runtime.LauncherFactory;
import org.stagecheck.interp.Interpreter;
import org.stagecheck.interp.RunOptions;
import org.stagecheck.spec.ir.ComputeOp;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.spec.ir.Stage;
import org.stagecheck.spec.ir.StageKind;

/**
 * The differential test catches a lowering bug: one MatMul kernel of the tiny decode step gets a
 * transposed index into B (it reads B[j, k] for B[k, j], wrapped to stay inside B), and the
 * traced comparison with the reference names exactly that stage as the first divergent one.
 */
@Tag("slow")
class PlantedBugTest {
    @Test
    void aTransposedIndexInOneKernelIsCaughtAndTheStageNamed() throws Exception {
        AuthorOutcome.Authored a = TinyModelDifferentialTest.author(Cut.decode(TinyModelDifferentialTest.CTX), AuthorOptions.single());
        Program p = a.program();
        CudaModule.Lowered lowered = CudaModule.lower(List.of(p));
        // the first matmul with an untransposed B [K, N] of more than one row and column
        Stage target = null;
        for (Stage st : p.stages()) {
            if (st.kind() instanceof StageKind.Compute c && c.op() instanceof ComputeOp.MatMul mm && !mm.transposeB()) {
                var b = p.buffersByName().get(st.ins().get(1)).shape();
                if (b.rank() == 2 && b.dim(0) > 1 && b.dim(1) > 1) {
                    target = st;
                    break;
                }
            }
        }
        assertThat(target).as("a matmul in tiny decode").isNotNull();
        int kDim = p.buffersByName().get(target.ins().get(1)).shape().dim(0);
        int n = p.buffersByName().get(target.ins().get(1)).shape().dim(1);
        Kernel k = lowered.programs().getFirst().kernelsOf(p.stages().indexOf(target)).getFirst();
        String text = lowered.source().text();
        int at = text.indexOf("SC_KERNEL " + k.name() + "(");
        int end = text.indexOf("\n}\n", at);
        String kernel = text.substring(at, end);
        // B[k, j] read as B[j, k] (indices wrapped so that the read stays inside B, as a real bug might not)
        String planted = kernel.replace("bOff + kk * " + n + " + j", "bOff + (j % " + kDim + ") * " + n + " + (kk % " + n + ")");
        assertThat(planted).isNotEqualTo(kernel);
        CudaSource buggy = new CudaSource(text.substring(0, at) + planted + text.substring(end), lowered.source().kernels());

        RunResult ref = new Interpreter(RunOptions.defaults().withThreads(1)).run(p, a.bound(), a.params(), true);
        try (CudaModule m = CudaModule.build(new CudaModule.Lowered(lowered.programs(), buggy), TestBackends.emulation(),
                LauncherFactory.emulation())) {
            RunResult act = CudaSession.of(m, 0).step(a.bound(), a.params(), true);
            List<String> report = Agreement.compare(p, ref, act);
            assertThat(report).isNotEmpty();
            assertThat(report.getFirst()).startsWith("first divergent stage '" + target.id() + "' (Compute MatMul)");
        }
    }
}
