package org.stagecheck.spec.concurrent;

import java.util.function.Function;

/**
 * A task run on a second platform thread beside the calling thread (the verifier's checks beside
 * UnreducedShard; a program file's stages decoded beside its reading). The thread has the JVM's
 * default stack size (the {@code -Xss} the launcher's main thread has too), so an expression too
 * deep for one task's recursion is too deep on either thread; a caller that runs on a thread it
 * gave a larger stack keeps that stack for its own part only. {@link #join} waits for the task
 * whatever interrupts the wait, then rethrows what the task threw: an {@link Error} (out of
 * memory) reaches the caller as it would have without the thread.
 */
public final class Beside {
    /** The thread the task runs on; null when it ran on the calling thread. */
    private final Thread thread;
    private final Throwable[] thrown;

    private Beside(Thread thread, Throwable[] thrown) {
        this.thread = thread;
        this.thrown = thrown;
    }

    /** A daemon platform thread named {@code name}, for {@link #start} and {@link #tryStart}. */
    public static Function<Runnable, Thread> platform(String name) {
        return r -> Thread.ofPlatform().name(name).daemon(true).unstarted(r);
    }

    /**
     * Runs {@code task} on the thread {@code threads} makes, or, when that thread cannot start
     * (the process is at its limit of threads, an {@link OutOfMemoryError} from
     * {@link Thread#start}), on the calling thread now: the work then takes longer but gives the
     * same result, instead of failing for want of a thread.
     */
    public static Beside start(Runnable task, Function<Runnable, Thread> threads) {
        Throwable[] thrown = new Throwable[1];
        Runnable caught = caught(task, thrown);
        Beside b = tryStart(caught, threads, thrown);
        if (b != null) {
            return b;
        }
        caught.run();
        return new Beside(null, thrown);
    }

    /**
     * Runs {@code task} on the thread {@code threads} makes; null when that thread cannot start,
     * for a caller that does the work another way then (a task that waits for the caller cannot
     * run on the caller's thread).
     */
    public static Beside tryStart(Runnable task, Function<Runnable, Thread> threads) {
        Throwable[] thrown = new Throwable[1];
        return tryStart(caught(task, thrown), threads, thrown);
    }

    private static Runnable caught(Runnable task, Throwable[] thrown) {
        return () -> {
            try {
                task.run();
            } catch (Throwable e) {
                thrown[0] = e;
            }
        };
    }

    private static Beside tryStart(Runnable caught, Function<Runnable, Thread> threads, Throwable[] thrown) {
        Thread t = threads.apply(caught);
        try {
            t.start();
        } catch (OutOfMemoryError noThread) {
            return null; // Thread.start's error when the process may start no more threads
        }
        return new Beside(t, thrown);
    }

    /** Whether the task is still running. */
    public boolean running() {
        return thread != null && thread.isAlive();
    }

    /** Waits for the task to end, whatever interrupts the wait (the interrupt is kept); its writes are then visible here. */
    public void awaitEnd() {
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
    }

    /**
     * Waits for the task to end ({@link #awaitEnd}) while the caller's own part is failing with
     * {@code first}: what the task threw is attached to {@code first} as suppressed, so the
     * failure the caller rethrows is its own and the task's is not lost (without this, the task's
     * error, thrown by {@link #join} in a {@code finally}, would replace the caller's).
     */
    public void joinAfter(Throwable first) {
        awaitEnd();
        if (thrown[0] != null && thrown[0] != first) {
            first.addSuppressed(thrown[0]);
        }
    }

    /** Waits for the task to end ({@link #awaitEnd}) and rethrows what it threw. */
    public void join() {
        awaitEnd();
        switch (thrown[0]) {
            case null -> { }
            case RuntimeException e -> throw e;
            case Error e -> throw e;
            case Throwable e -> throw new IllegalStateException(e);
        }
    }
}
