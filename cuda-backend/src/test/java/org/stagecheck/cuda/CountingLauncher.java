package org.stagecheck.cuda;

import org.stagecheck.cuda.runtime.ForwardingLauncher;
import java.lang.foreign.MemorySegment;

import org.stagecheck.cuda.runtime.LaunchException;
import org.stagecheck.cuda.runtime.Launcher;

/** A launcher that counts the bytes it moves between host and device, and the bytes it clears on the device. */
final class CountingLauncher extends ForwardingLauncher {
    private long uploaded;
    private long downloaded;
    private long zeroed;

    CountingLauncher(Launcher inner) {
        super(inner);
    }

    /** The counts so far; {@link #reset} starts them again. */
    record Moved(long uploaded, long downloaded, long zeroed) {}

    Moved moved() {
        return new Moved(uploaded, downloaded, zeroed);
    }

    void reset() {
        uploaded = 0;
        downloaded = 0;
        zeroed = 0;
    }

    @Override
    public void upload(long address, MemorySegment src, long bytes) throws LaunchException {
        uploaded += bytes;
        super.upload(address, src, bytes);
    }

    @Override
    public void download(long address, MemorySegment dst, long bytes) throws LaunchException {
        downloaded += bytes;
        super.download(address, dst, bytes);
    }

    @Override
    public void zero(long address, long bytes) throws LaunchException {
        zeroed += bytes;
        super.zero(address, bytes);
    }
}
