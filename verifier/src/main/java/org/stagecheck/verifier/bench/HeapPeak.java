package org.stagecheck.verifier.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;

/**
 * The most heap in use since the last {@link #reset}: the sum over the heap's pools of their
 * peak usage (each pool's peak as the JVM tracks it, so the figure is an upper bound of the
 * heap the measured work held at once, garbage not yet collected included).
 */
final class HeapPeak {
    void reset() {
        System.gc();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                p.resetPeakUsage();
            }
        }
    }

    long peakMb() {
        long bytes = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP && p.getPeakUsage() != null) {
                bytes += p.getPeakUsage().getUsed();
            }
        }
        return bytes >> 20;
    }
}
