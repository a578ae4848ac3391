package org.stagecheck.interp.eval;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs a fixed list of independent tasks on up to {@code threads} threads. Callers split work
 * only across independent outputs and fix the task list from the problem's shape, never from
 * the thread count, so results are bit-identical for any thread count (docs/semantics.md,
 * "Parallelism").
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
        if (pool == null) {
            pool = Executors.newFixedThreadPool(threads, r -> {
                Thread t = new Thread(r, "stagecheck-interp");
                t.setDaemon(true);
                return t;
            });
        }
        List<Future<?>> futures = new ArrayList<>(tasks.size());
        for (Runnable t : tasks) {
            futures.add(pool.submit(t));
        }
        try {
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

    @Override
    public void close() {
        if (pool != null) {
            pool.shutdownNow();
        }
    }
}
