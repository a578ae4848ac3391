package org.stagecheck.cuda.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A fault a kernel raised, reported late by the driver, passes two places that note where it was
 * reported: the launch that saw it ({@code ProgramRunner.launch}) and the step that launched the
 * kernels ({@code ProgramRunner.run}). Its message says once that the faulting kernel is not known.
 */
class UnattributedOnceTest {
    @Test
    void aLateFaultSaysOnceWhereItWasReported() {
        LaunchException raw = new LaunchException("CUDA_ERROR_ILLEGAL_ADDRESS", "cuLaunchKernel returned CUDA_ERROR_ILLEGAL_ADDRESS (700)");
        LaunchException atLaunch = ProgramRunner.unattributed(raw, "at the launch of stage 0 'load_x'");
        LaunchException atStep = ProgramRunner.unattributed(atLaunch, "while the step's kernels were launched or replayed");

        String m = atStep.getMessage();
        assertThat(m.split("the kernel that faulted is not known", -1)).as(m).hasSize(2);
        assertThat(m.split("\\(reported ", -1)).as(m).hasSize(2);
    }
}
