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
    /**
     * Collects the heap and starts a new peak: each timed step starts from a collected heap, so it
     * pays for its own garbage and survivors, not for the generator's or the previous step's.
     */
    void reset() {
        System.gc();
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() == MemoryType.HEAP) {
                p.resetPeakUsage();
            }
        }
    }

    /** The heap the JVM has committed now (memory it took from the system, touched or not). */
    long committedBytes() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted();
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
