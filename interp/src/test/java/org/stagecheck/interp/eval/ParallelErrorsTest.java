package org.stagecheck.interp.eval;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * Regression test: a worker's OutOfMemoryError came back wrapped in an
 * IllegalStateException, so a MatMul that exhausted the heap on several threads was reported as
 * INTERNAL ("a bug in stagecheck-interp") instead of OUT_OF_MEMORY, as it is on one thread.
 */
class ParallelErrorsTest {

    @Test
    void aWorkersErrorIsRethrownAsItselfOnAnyThreadCount() {
        for (int threads : new int[] {1, 3}) {
            try (Parallel par = new Parallel(threads)) {
                Runnable fine = () -> { };
                Runnable exhausted = () -> {
                    throw new OutOfMemoryError("test heap");
                };
                assertThatThrownBy(() -> par.runAll(List.of(fine, exhausted, fine)))
                        .as("%d threads", threads).isInstanceOf(OutOfMemoryError.class).hasMessage("test heap");
            }
        }
    }
}
