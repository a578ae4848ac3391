package org.stagecheck.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.stagecheck.cuda.runtime.DeviceBench;

/**
 * The device bench's report of launch overhead: a difference of two timings taken apart (the
 * kernels alone on data beyond L2, the step on its own data), which is negative when a step runs
 * faster than its kernels alone; the report then says the overhead is below its resolution and
 * never prints a negative time.
 */
class DeviceBenchReportTest {
    /** Two kernels of 850 us alone each: 1.7 ms of kernels per step. */
    private static DeviceBench.Report report(double eagerMs, double graphMs) {
        List<DeviceBench.KernelTime> kernels = List.of(new DeviceBench.KernelTime("s0", "k0", 1 << 20, 850, 1.2, true),
                new DeviceBench.KernelTime("s1", "k1", 1 << 20, 850, 1.2, true));
        return new DeviceBench.Report("fake", 1000, 1 << 20, 2, 10, 4, 1 << 20, kernels, eagerMs, graphMs, null);
    }

    @Test
    void aReplayedStepFasterThanItsKernelsAloneIsBelowResolutionNotANegativeOverhead() {
        DeviceBench.Report r = report(5.179, 0.765);
        assertThat(r.graphOverheadMicros()).isNegative();
        String text = DeviceBench.text(r, 2);
        assertThat(text).contains("step eager 5.179 ms (3.05x the kernels alone), graphs 0.765 ms (0.45x)")
                .contains("launch overhead per kernel: eager 1739.50 us, graphs below timing resolution (2207.00 us per stage saved by replay)")
                .doesNotContainPattern("-\\d");
    }

    @Test
    void positiveOverheadsArePrintedAndAReplayNotFasterSavesNothing() {
        DeviceBench.Report r = report(1.8, 1.9);
        assertThat(DeviceBench.text(r, 2)).contains("launch overhead per kernel: eager 50.00 us, graphs 100.00 us"
                + " (replay saved nothing measurable: 50.00 us per stage slower)").doesNotContainPattern("-\\d");
        assertThat(DeviceBench.Report.overheadText(0)).isEqualTo("below timing resolution");
        assertThat(DeviceBench.Report.overheadText(-3.1)).isEqualTo("below timing resolution");
        assertThat(DeviceBench.Report.overheadText(3.1)).isEqualTo("3.10 us");
    }
}
