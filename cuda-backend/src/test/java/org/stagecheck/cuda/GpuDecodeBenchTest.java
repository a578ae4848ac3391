package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.stagecheck.author.AuthorOptions;
import org.stagecheck.author.AuthorOutcome;
import org.stagecheck.author.Cut;
import org.stagecheck.author.ModelSpec;
import org.stagecheck.author.Author;
import org.stagecheck.cuda.lower.Kernels;
import org.stagecheck.cuda.runtime.DeviceBench;

/**
 * The GPU benchmark of the {@code small} decode step (bin/gpu-check): per-kernel bandwidth against
 * the device's peak and the launch overhead per stage that graph replay removes. Prints the
 * figures; asserts that they were measured, on copies that exceed the L2, with no kernel faulting
 * while timed. Skipped without a CUDA driver.
 */
@Tag("gpu")
class GpuDecodeBenchTest {
    @Test
    void smallDecodeStep() throws Exception {
        bench(Kernels.EXACT);
    }

    /** The same with fast kernels (docs/cuda.md, "Fast kernels"): the split matmuls' partial kernels are the figures to read. */
    @Test
    void smallDecodeStepWithFastKernels() throws Exception {
        bench(Kernels.FAST);
    }

    private static void bench(Kernels kernels) throws Exception {
        GpuTest.needsADriver();
        AuthorOutcome.Authored a = (AuthorOutcome.Authored) Author.author(ModelSpec.small(), Cut.decode(64), AuthorOptions.single());
        try (CudaSession s = new CudaBackend(GpuTest.device().withSegmentStages(64).withKernels(kernels)).prepare(a.program())) {
            System.out.println(kernels.spelling() + " kernels:");
            DeviceBench.Report r = DeviceBench.measure(s.runner(), a.bound(), Map.of("pos", 5L), 20);
            System.out.println(DeviceBench.text(r, 15));
            assertThat(r.kernels()).isNotEmpty();
            assertThat(r.eagerMs()).isPositive();
            assertThat(r.faultedStage()).as("a kernel faulted while timed").isNull();
            assertThat(r.l2Bytes()).as("the L2 size from the driver").isPositive();
            assertThat(r.copies() * r.copyBytes()).as("the rotated copies exceed the L2").isGreaterThanOrEqualTo(
                    Math.min(DeviceBench.ROTATION * r.l2Bytes(), DeviceBench.COPY_BUDGET - r.copyBytes()));
        }
    }
}
