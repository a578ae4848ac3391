package org.stagecheck.verifier;

import java.util.function.Function;

/**
 * A check run on a second platform thread while the calling thread runs another. The thread has
 * the JVM's default stack size (the {@code -Xss} the launcher's main thread has too), so an
 * expression too deep for one check's recursion is too deep on either thread; a caller that runs
 * {@code verify} on a thread it gave a larger stack gives that stack to UnreducedShard only. {@link #join} waits for it
 * whatever interrupts the wait (the report needs every check), then rethrows what the check
 * threw: an {@link Error} (out of memory) reaches the caller as it would have without the thread.
 */
final class Beside {
    /** The thread the check runs on; null when it ran on the calling thread. */
    private final Thread thread;
    private final Throwable[] thrown;

    private Beside(Thread thread, Throwable[] thrown) {
        this.thread = thread;
        this.thrown = thrown;
    }

    static Beside start(Runnable check) {
        return start(check, r -> Thread.ofPlatform().name("stagecheck-verify-beside").daemon(true).unstarted(r));
    }

    /**
     * Runs {@code check} on the thread {@code threads} makes, or, when that thread cannot start
     * (the process is at its limit of threads, an {@link OutOfMemoryError} from
     * {@link Thread#start}), on the calling thread now: the verification then takes longer but
     * gives the same report, instead of failing for want of a thread.
     */
    static Beside start(Runnable check, Function<Runnable, Thread> threads) {
        Throwable[] thrown = new Throwable[1];
        Runnable caught = () -> {
            try {
                check.run();
            } catch (Throwable e) {
                thrown[0] = e;
            }
        };
        Thread t = threads.apply(caught);
        try {
            t.start();
        } catch (OutOfMemoryError noThread) {
            caught.run();
            return new Beside(null, thrown);
        }
        return new Beside(t, thrown);
    }

    /** Waits for the check to end (its writes are then visible here) and rethrows what it threw. */
    void join() {
        boolean interrupted = false;
        while (thread != null) {
            try {
                thread.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        switch (thrown[0]) {
            case null -> { }
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            case Throwable e -> throw new IllegalStateException(e);
        }
    }
}
