package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.util.Map;

import org.junit.jupiter.api.Test;
import org.stagecheck.backend.RunResult;
import org.stagecheck.cuda.runtime.CudaDriver;
import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.spec.gen.GenOptions;
import org.stagecheck.spec.gen.RandomPrograms;
import org.stagecheck.spec.ir.Program;
import org.stagecheck.tensor.RandomBindings;

/**
 * On a machine without a CUDA driver the device backend fails cleanly: opening the driver says
 * "no CUDA driver", and a run is a diagnostic, not a crash. (Skipped where a driver is present:
 * the GPU tests cover that machine.)
 */
class NoDriverTest {
    private static boolean driverPresent() {
        try {
            CudaDriver.system();
            return true;
        } catch (LaunchException e) {
            return false;
        }
    }

    @Test
    void openingTheDriverSaysThereIsNone() {
        assumeFalse(driverPresent(), "a CUDA driver is present on this machine");
        assertThatThrownBy(CudaDriver::system).isInstanceOf(LaunchException.class)
                .hasMessageContaining("no CUDA driver")
                .satisfies(e -> assertThat(((LaunchException) e).errorName()).isEqualTo("NO_CUDA_DRIVER"));
    }

    @Test
    void aDeviceRunWithoutADriverIsADiagnostic() {
        assumeFalse(driverPresent(), "a CUDA driver is present on this machine");
        Program p = RandomPrograms.generate(3, GenOptions.small());
        RunResult r = new CudaBackend(CudaOptions.device().withCache(TestBackends.cache())).run(p, RandomBindings.forProgram(p, 3),
                Map.of("pos", 0L, "layer", 0L));
        assertThat(r.ok()).isFalse();
        assertThat(r.faults()).singleElement().satisfies(d -> {
            assertThat(d.code()).isEqualTo("NO_CUDA_DRIVER");
            assertThat(d.message()).contains("no CUDA driver");
        });
    }
}
