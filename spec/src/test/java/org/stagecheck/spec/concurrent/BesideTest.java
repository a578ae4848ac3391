package org.stagecheck.spec.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * A task run beside the calling thread ({@link Beside}): it runs on its own thread, what it
 * throws reaches the caller at {@link Beside#join}, and when no thread can be started it runs on
 * the calling thread instead of failing the work ({@link Beside#start}), or the caller is told
 * so ({@link Beside#tryStart}).
 */
class BesideTest {

    @Test
    void a_check_runs_on_another_thread_and_is_done_when_joined() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        Beside b = Beside.start(() -> ranOn.set(Thread.currentThread()), Beside.platform("beside-test"));
        b.join();
        assertThat(ranOn.get()).isNotNull().isNotSameAs(Thread.currentThread());
        assertThat(ranOn.get().isAlive()).isFalse();
    }

    @Test
    void what_the_check_throws_is_thrown_by_join() {
        Beside fault = Beside.start(() -> {
            throw new IllegalStateException("a defect");
        }, Beside.platform("beside-test"));
        assertThatThrownBy(fault::join).isInstanceOf(IllegalStateException.class).hasMessage("a defect");
        Beside memory = Beside.tryStart(() -> {
            throw new OutOfMemoryError("heap");
        }, Beside.platform("beside-test"));
        assertThatThrownBy(memory::join).isInstanceOf(OutOfMemoryError.class).hasMessage("heap");
    }

    @Test
    void when_both_sides_fail_the_callers_error_is_thrown_with_the_checks_attached() {
        Beside memory = Beside.start(() -> {
            throw new OutOfMemoryError("beside");
        }, Beside.platform("beside-test"));
        OutOfMemoryError first = new OutOfMemoryError("caller");
        memory.joinAfter(first);
        assertThat(memory.running()).isFalse();
        assertThat(first.getSuppressed()).hasSize(1);
        assertThat(first.getSuppressed()[0]).isInstanceOf(OutOfMemoryError.class).hasMessage("beside");
        // a check that ended well attaches nothing
        Beside fine = Beside.start(() -> { }, Beside.platform("beside-test"));
        IllegalStateException other = new IllegalStateException("caller");
        fine.joinAfter(other);
        assertThat(other.getSuppressed()).isEmpty();
    }

    @Test
    void a_check_whose_thread_cannot_start_runs_on_the_calling_thread() {
        AtomicReference<Thread> ranOn = new AtomicReference<>();
        Beside b = Beside.start(() -> ranOn.set(Thread.currentThread()), r -> new Thread(r) {
            @Override
            public void start() {
                throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource limits reached");
            }
        });
        assertThat(ranOn.get()).isSameAs(Thread.currentThread());
        b.join();
        Beside failing = Beside.start(() -> {
            throw new IllegalArgumentException("still reported");
        }, r -> new Thread(r) {
            @Override
            public void start() {
                throw new OutOfMemoryError("unable to create native thread");
            }
        });
        assertThatThrownBy(failing::join).isInstanceOf(IllegalArgumentException.class).hasMessage("still reported");
        AtomicReference<Thread> notRun = new AtomicReference<>();
        assertThat(Beside.tryStart(() -> notRun.set(Thread.currentThread()), r -> new Thread(r) {
            @Override
            public void start() {
                throw new OutOfMemoryError("unable to create native thread");
            }
        })).isNull();
        assertThat(notRun.get()).isNull();
    }
}
