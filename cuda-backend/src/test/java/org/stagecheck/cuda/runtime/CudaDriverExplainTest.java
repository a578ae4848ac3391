package org.stagecheck.cuda.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The explanation of NO_BINARY_FOR_GPU matches what the module holds: SASS for sm_90 and PTX that newer GPUs compile. */
class CudaDriverExplainTest {
    @Test
    void noBinaryForGpuNamesTheSassAndThePtxFallBack() {
        assertThat(CudaDriver.explain(209))
                .contains("NO_BINARY_FOR_GPU", "SASS for sm_90", "PTX for compute_90", "compute capability 9.0 or newer")
                .doesNotContain("cubin");
    }
}
