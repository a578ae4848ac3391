package org.stagecheck.golden.bench;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Progress of a long bench, for a person watching stderr (never stdout, which holds the report):
 * a line when a phase starts, and while it runs a line every few seconds with how far it got.
 * Lines, not a redrawn status line, so that a log or a pipe (the launcher passes stderr through
 * one) shows them too.
 */
public final class Progress implements AutoCloseable {
    private final PrintWriter out;
    private final String name;
    private final long start = System.nanoTime();
    private final AtomicLong done = new AtomicLong();
    private final long everyMillis;
    private final ScheduledExecutorService ticker;
    private volatile String phase = "";
    private volatile long total;
    private volatile long phaseStart;

    private Progress(PrintWriter out, String name, long everyMillis) {
        this.out = out;
        this.name = name;
        this.everyMillis = everyMillis;
        if (out == null) {
            ticker = null;
            return;
        }
        ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "bench-progress");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(this::tick, everyMillis, everyMillis, TimeUnit.MILLISECONDS);
    }

    /** Lines to {@code err}, each opening with {@code name}: one per phase, and one every {@code everyMillis} while a phase runs. */
    public static Progress to(PrintWriter err, String name, long everyMillis) {
        return new Progress(err, name, everyMillis);
    }

    /** No lines (a library caller, a test). */
    public static Progress silent() {
        return new Progress(null, "", 0);
    }

    /** A new phase of {@code total} units (0 when it has no measure), announced now. */
    public void phase(String what, long total) {
        this.phase = what;
        this.total = total;
        this.done.set(0);
        this.phaseStart = System.nanoTime();
        print(what);
    }

    /** {@code n} more units of the current phase done. */
    public void advance(long n) {
        done.addAndGet(n);
    }

    private void tick() {
        long t = total;
        double secs = (System.nanoTime() - phaseStart) / 1e9;
        if (secs < everyMillis / 2e3) {
            return;   // the phase has just been announced
        }
        print(String.format(Locale.ROOT, "%s ... %s%.0f s", phase,
                t > 0 ? String.format(Locale.ROOT, "%.0f%%, ", 100.0 * Math.min(done.get(), t) / t) : "", secs));
    }

    private void print(String line) {
        if (out == null) {
            return;
        }
        synchronized (out) {
            out.printf(Locale.ROOT, "%s [%3.0f s]: %s%n", name, (System.nanoTime() - start) / 1e9, line);
            out.flush();
        }
    }

    @Override
    public void close() {
        if (ticker != null) {
            ticker.shutdownNow();
        }
    }
}
