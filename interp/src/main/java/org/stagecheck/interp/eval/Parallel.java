package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Future;

/**
 * Runs a fixed list of independent tasks on up to {@code threads} threads. Callers split work
 * only across independent outputs and fix the task list from the problem's shape, never from
 * the thread count, so results are bit-identical for any thread count (docs/semantics.md,
 * "Parallelism").
 *
 * <p>One instance serves many runs: the worker threads are started on first use and end after a
 * few idle seconds, so an interpreter that is no longer used holds none. The calling thread runs
 * the last task itself rather than wait idle.
 */
public final class Parallel implements AutoCloseable {
    private final int threads;
    private ExecutorService pool;

    public Parallel(int threads) {
        this.threads = threads;
    }

    public int threads() {
        return threads;
    }

    /** Runs every task and returns when all are done; a task's exception is rethrown unchecked, a task's Error as itself. */
    public void runAll(List<Runnable> tasks) {
        if (threads == 1 || tasks.size() <= 1) {
            tasks.forEach(Runnable::run);
            return;
        }
        ExecutorService workers = pool();
        List<Future<?>> futures = new ArrayList<>(tasks.size() - 1);
        for (Runnable t : tasks.subList(0, tasks.size() - 1)) {
            futures.add(workers.submit(t));
        }
        try {
            try {
                tasks.getLast().run();
            } catch (Error e) {
                awaitQuietly(futures);
                throw e;
            } catch (RuntimeException e) {
                // the other tasks still finish before the failure is reported, as when a worker fails
                awaitQuietly(futures);
                throw new IllegalStateException("an evaluation task failed: " + e, e);
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while evaluating", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Error err) {
                // an OutOfMemoryError in a worker must reach the interpreter as itself (OUT_OF_MEMORY), not as INTERNAL
                throw err;
            }
            throw new IllegalStateException("an evaluation task failed: " + e.getCause(), e.getCause());
        }
    }

    /** Waits for every task, ignoring their failures (another failure is being reported). */
    private static void awaitQuietly(List<Future<?>> futures) throws InterruptedException {
        for (Future<?> f : futures) {
            try {
                f.get();
            } catch (ExecutionException ignored) {
                // the caller reports the first failure
            }
        }
    }

    private synchronized ExecutorService pool() {
        if (pool == null) {
            ThreadPoolExecutor p = new ThreadPoolExecutor(threads - 1, threads - 1, IDLE_SECONDS, TimeUnit.SECONDS,
                    new LinkedBlockingQueue<>(), r -> {
                        Thread t = new Thread(r, "stagecheck-interp");
                        t.setDaemon(true);
                        return t;
                    });
            p.allowCoreThreadTimeOut(true);
            pool = p;
        }
        return pool;
    }

    /** Seconds a worker waits for the next task before it ends. */
    private static final long IDLE_SECONDS = 5;

    @Override
    public synchronized void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
