// Many threads fault at once, each with its own (stage, code, a, b); after every round the fault
// record must be one thread's tuple entire, and complete. Built against sc_rt.h by the host
// compiler (FaultRecordRaceTest). Usage: fault_race THREADS MILLISECONDS: rounds for that long;
// prints "rounds R mixed M incomplete I" (mixed: a record that is no thread's fault; incomplete:
// one thread's fault without its completion mark) and exits 0 only when M and I are 0.
#include "sc_rt.h"
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* the record straddles a cache-line boundary (F[0], F[1] on one line, F[2..] on the next), so
   two cores' stores to it do not reach memory as one line each: a record written without a
   claim then mixes two threads' fields far more often */
alignas(64) static long long lines[16];
static long long* const F = lines + 6;
static int threads;

static long now_millis() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* round r starts when started_round becomes r; the threads fault while `faulting` is set and
   count themselves into `finished`; `stop` ends them */
static int started_round = -1, finished, stop, faulting;

static void wait_until(int* word, int value) {
    for (long spins = 0; __atomic_load_n(word, __ATOMIC_ACQUIRE) != value; spins++) {
        if (spins > 1000) sched_yield();
    }
}

/* threads of one stage fault together, as the threads of one kernel do: the stage is shared
   by half the threads, the code and details are each thread's own */
static long long stage_of(int t) { return t % 2; }
static long long code_of(int t) { return t + 1; }
/* each thread faults at element after element (a grid-stride loop's), each with its own details,
   for about ROUND_NANOS a round */
enum { FAULTS = 64, ROUND_NANOS = 200000 };
static long long a_of(int t, int k) { return 1000003LL * (t + 1) * FAULTS + k; }
static long long b_of(int t, int k) { return -7LL * ((t + 1) * FAULTS + k) - 1; }

static void* faulter(void* arg) {
    int t = (int)(long)arg;
    for (int r = 0;; r++) {
        wait_until(&started_round, r);
        if (__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) return 0;
        /* fault at least once, then until told to stop: the threads running then make their
           last stores within a few instructions of each other, the moment a record written
           without a claim mixes */
        int k = 0;
        do {
            sc_fault(F, (int)stage_of(t), (int)code_of(t), a_of(t, k), b_of(t, k));
            k = (k + 1) % FAULTS;
        } while (__atomic_load_n(&faulting, __ATOMIC_RELAXED));
        __atomic_add_fetch(&finished, 1, __ATOMIC_ACQ_REL);
    }
    return 0;
}

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: fault_race THREADS MILLISECONDS\n");
        return 2;
    }
    threads = atoi(argv[1]);
    long millis = atol(argv[2]);
    pthread_t* ts = (pthread_t*)calloc(threads, sizeof(pthread_t));
    for (int t = 0; t < threads; t++) pthread_create(&ts[t], 0, faulter, (void*)(long)t);
    long mixed = 0, incomplete = 0;
    long until = now_millis() + millis;
    int rounds = 0;
    for (int r = 0; now_millis() < until; r++, rounds++) {
        for (int i = 0; i < 8; i++) F[i] = 0;
        __atomic_store_n(&finished, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&faulting, 1, __ATOMIC_RELEASE);
        __atomic_store_n(&started_round, r, __ATOMIC_RELEASE);
        struct timespec pause = {0, ROUND_NANOS};
        nanosleep(&pause, 0);
        __atomic_store_n(&faulting, 0, __ATOMIC_RELEASE);
        wait_until(&finished, threads);
        /* the thread whose code the record holds: its stage and details must be there too */
        long long t = F[1] - 1;
        long long k = t < 0 || t >= threads ? -1 : F[2] - a_of((int)t, 0);
        if (k < 0 || k >= FAULTS || F[0] != stage_of((int)t) + 1 || F[3] != b_of((int)t, (int)k)) {
            if (mixed < 5) fprintf(stderr, "round %d: record (%lld, %lld, %lld, %lld) is no thread's fault\n", r, F[0], F[1], F[2], F[3]);
            mixed++;
        } else if (F[4] != F[0]) {
            incomplete++;
        }
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&started_round, rounds, __ATOMIC_RELEASE);
    for (int t = 0; t < threads; t++) pthread_join(ts[t], 0);
    printf("rounds %d mixed %ld incomplete %ld\n", rounds, mixed, incomplete);
    return mixed == 0 && incomplete == 0 ? 0 : 1;
}
