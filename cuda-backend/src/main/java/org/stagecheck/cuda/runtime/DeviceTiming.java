package org.stagecheck.cuda.runtime;

/**
 * What {@link DeviceBench} needs of a device besides a {@link Launcher}: a timer that records an
 * event pair around work on the main stream, and the figures it compares against. The GPU's is
 * {@link DriverLauncher}; a test supplies a fake clock to check the benchmark's arithmetic.
 */
public interface DeviceTiming {
    /** The device's name, e.g. "NVIDIA H200". */
    String device();

    /** Peak DRAM bandwidth in GB/s. */
    double peakBandwidthGBs() throws LaunchException;

    /** Bytes of the device's L2 cache. */
    long l2CacheBytes() throws LaunchException;

    /** Milliseconds between an event recorded on the main stream before {@code work} and one after it, waited for. */
    float time(Work work) throws LaunchException;

    /** Device work to time: launches or replays made through the launcher. */
    @FunctionalInterface
    interface Work {
        void run() throws LaunchException;
    }
}
