/*
 * The fake CUDA driver (docs/cuda.md, "The fake driver"): a stand-in for libcuda.so.1 that runs
 * the backend's whole device path on a machine without a GPU. It is built at run time by the C
 * compiler and loaded in place of the driver (backend cuda-fake).
 *
 * What it holds the caller to, as the real driver does:
 *  - entry points are resolved only through cuGetProcAddress_v2, by name and API version (a
 *    symbol unknown, or asked for with a version older than the symbol, is CUDA_ERROR_NOT_FOUND);
 *  - cuInit first; a context made current on the calling thread (cuCtxSetCurrent is per thread)
 *    for every call that needs one, else CUDA_ERROR_INVALID_CONTEXT;
 *  - every copy, memset and free, and every pointer argument of a kernel, inside a live
 *    allocation (CUDA_ERROR_INVALID_VALUE); launch geometry within the device's limits;
 *  - stream capture: in global (or this thread's) capture mode a synchronous or unsafe call
 *    (cuStreamSynchronize on a capturing stream, cuMemcpy*, cuMemsetD8, cuMemAlloc, cuMemFree,
 *    cuModuleLoadData, cuModuleGetFunction: lazy loading since CUDA 12.2) fails with
 *    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and invalidates the capture, whose end then gives
 *    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED; a forked stream not joined back gives
 *    CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
 *  - a replayed graph whose baked pointer arguments no longer point into live allocations faults
 *    with CUDA_ERROR_ILLEGAL_ADDRESS, which, as on a GPU, sticks to the context until it is reset.
 *
 * It runs kernels: the module image given to cuModuleLoadData is the host-emulation library of
 * the same generated source (an ELF shared object for this host; anything else is refused as the
 * driver refuses a cubin for another GPU). It is written to a private temporary file, loaded with
 * dlopen, and its exported tables (sc_host_kernel_count, sc_host_kernel_name,
 * sc_host_kernel_arity) map kernel names to the numbers sc_host_launch takes. Launches run at
 * once, in the calling thread, in stream order. A capture records each launch with a copy of its
 * argument values; cuGraphLaunch replays the recording, running a forked stream's launches only
 * when the origin stream reaches the join that waits for them (the latest order the events allow,
 * so a missing join shows as stale values).
 *
 * For tests: fake_cuda_fail(symbol, rc) makes every later call of symbol return rc (0 clears;
 * during a capture the failure invalidates it, as a failed call does),
 * as does STAGECHECK_FAKE_CUDA_FAIL=symbol=rc[,symbol=rc...] when the library is loaded (the
 * parser is fake_cuda_fail_spec);
 * fake_cuda_reset(logging) clears the injected failures and the call log and turns logging on or
 * off; fake_cuda_log() returns the log, one line per call. Handles of streams, events and graphs
 * are the lowest free slot numbers (logged as stream#N, event#N, graph#N).
 *
 * Every entry point holds one process-wide lock, so launchers on several threads are serialised.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int CUresult;

enum {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_ILLEGAL_STATE = 401,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED = 900,
    CUDA_ERROR_STREAM_CAPTURE_INVALIDATED = 901,
    CUDA_ERROR_STREAM_CAPTURE_UNMATCHED = 902,
    CUDA_ERROR_STREAM_CAPTURE_UNJOINED = 904,
    CUDA_ERROR_UNKNOWN = 999,
};

#if defined(__x86_64__)
#define HOST_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define HOST_MACHINE EM_AARCH64
#else
#define HOST_MACHINE EM_NONE
#endif

#define CONTEXT 0xC0DEC0DEull
#define MAX_STREAMS 64
#define MAX_EVENTS 256
#define MAX_GRAPHS 4096
#define MAX_MODULES 256
#define MAX_ARGS 64
#define MAX_FAILS 32
#define CU_EVENT_DISABLE_TIMING 0x2

/* ---- the lock, the log, injected failures ------------------------------------------------- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void unlock_(pthread_mutex_t **m) { pthread_mutex_unlock(*m); }
#define LOCKED pthread_mutex_t *guard_ __attribute__((cleanup(unlock_))) = (pthread_mutex_lock(&mu), &mu)

static char *logbuf;
static size_t loglen, logcap;
static int logging;

static void say(const char *fmt, ...) {
    if (!logging) return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n >= (int) sizeof line) n = sizeof line - 1;
    if (loglen + n + 2 > logcap) {
        size_t cap = (logcap + n + 2) * 2;
        char *grown = realloc(logbuf, cap);
        if (!grown) return;
        logbuf = grown;
        logcap = cap;
    }
    memcpy(logbuf + loglen, line, n);
    loglen += n;
    logbuf[loglen++] = '\n';
    logbuf[loglen] = 0;
}

static struct { char symbol[64]; CUresult rc; } fails[MAX_FAILS];

static void set_fail(const char *symbol, CUresult rc) {
    int free_slot = -1;
    for (int i = 0; i < MAX_FAILS; i++) {
        if (fails[i].symbol[0] && strcmp(fails[i].symbol, symbol) == 0) {
            if (rc == 0) fails[i].symbol[0] = 0; else fails[i].rc = rc;
            return;
        }
        if (!fails[i].symbol[0] && free_slot < 0) free_slot = i;
    }
    if (rc != 0 && free_slot >= 0) {
        snprintf(fails[free_slot].symbol, sizeof fails[0].symbol, "%s", symbol);
        fails[free_slot].rc = rc;
    }
}

static int origin;                      /* the stream a capture began on; 0: none */
static int capture_invalid;

/* An injected failure; like any failed call during a capture, it invalidates the capture. */
static CUresult injected(const char *symbol) {
    for (int i = 0; i < MAX_FAILS; i++) {
        if (fails[i].symbol[0] && strcmp(fails[i].symbol, symbol) == 0) {
            say("%s injected %d", symbol, fails[i].rc);
            if (origin && strcmp(symbol, "cuStreamBeginCapture") != 0) capture_invalid = 1;
            return fails[i].rc;
        }
    }
    return 0;
}

#define INJECTED(name)                 \
    do {                               \
        CUresult inj_ = injected(name); \
        if (inj_) return inj_;         \
    } while (0)

/* Injects the failures of a STAGECHECK_FAKE_CUDA_FAIL value, "symbol=rc[,symbol=rc...]". */
__attribute__((visibility("default"))) void fake_cuda_fail_spec(const char *spec) {
    if (!spec) return;
    LOCKED;
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", spec);
    for (char *save = 0, *item = strtok_r(copy, ",", &save); item; item = strtok_r(0, ",", &save)) {
        char *eq = strchr(item, '=');
        if (!eq) continue;
        *eq = 0;
        set_fail(item, atoi(eq + 1));
    }
}

__attribute__((constructor)) static void read_env_failures(void) {
    fake_cuda_fail_spec(getenv("STAGECHECK_FAKE_CUDA_FAIL"));
}

__attribute__((visibility("default"))) void fake_cuda_fail(const char *symbol, int rc) {
    LOCKED;
    set_fail(symbol, rc);
}

__attribute__((visibility("default"))) void fake_cuda_reset(int log_calls) {
    LOCKED;
    memset(fails, 0, sizeof fails);
    loglen = 0;
    if (logbuf) logbuf[0] = 0;
    logging = log_calls;
}

__attribute__((visibility("default"))) const char *fake_cuda_log(void) {
    LOCKED;
    return logbuf ? logbuf : "";
}

/* ---- the device: context, allocations -------------------------------------------------- */

static int initialized;
static int context_refs;
static CUresult sticky;                 /* an error that poisons the context until it is reset */
static __thread uint64_t current;       /* the context current on this thread */

typedef struct { uint64_t base; size_t size; } allocation;
static allocation *allocs;
static size_t nallocs, capallocs;

/* The allocation holding [p, p + n), or -1. n == 0 asks only that p lies inside one. */
static long holding(uint64_t p, size_t n) {
    for (size_t i = 0; i < nallocs; i++) {
        uint64_t b = allocs[i].base, e = b + allocs[i].size;
        if (p >= b && p < e && (n == 0 || (p + n >= p && p + n <= e))) return (long) i;
    }
    return -1;
}

typedef struct {
    void *dl;
    int (*launch)(int, unsigned, unsigned, void **);
    int count;
} module;
static module modules[MAX_MODULES + 1];   /* slot 0 unused: a handle is its slot */

typedef struct { int module; int index; int arity; char *name; } function;
static function *functions;
static size_t nfunctions, capfunctions;

/* ---- streams, events, capture, graphs --------------------------------------------------- */

typedef struct {
    int kind;          /* 0: a launch, 1: the origin waits for a forked stream */
    int stream;
    int from;          /* kind 1: the stream waited for */
    long fn;
    unsigned grid, block;
    int nargs;
    uint64_t args[MAX_ARGS];
} node;

typedef struct { node *nodes; size_t n, cap; } nodes;

static int stream_live[MAX_STREAMS];
static int capturing[MAX_STREAMS];       /* the stream is part of the active capture */
static long launched[MAX_STREAMS];       /* launches captured on it */
static long joined[MAX_STREAMS];         /* of those, how many the origin has waited for */
static int capture_mode;                 /* 0 global, 1 thread-local, 2 relaxed */
static pthread_t capture_thread;
static nodes recording;

static struct {
    int live;
    unsigned flags;
    int stream;
    long mark;
    int in_capture;
    int recorded;
    double ms;
} events[MAX_EVENTS];

static struct { int live; nodes graph; } graphs[MAX_GRAPHS];
static struct { int live; int graph_id; nodes graph; } execs[MAX_GRAPHS];

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int push(nodes *ns, const node *n) {
    if (ns->n == ns->cap) {
        size_t cap = ns->cap ? ns->cap * 2 : 64;
        node *grown = realloc(ns->nodes, cap * sizeof(node));
        if (!grown) return 0;
        ns->nodes = grown;
        ns->cap = cap;
    }
    ns->nodes[ns->n++] = *n;
    return 1;
}

static void end_capture_state(void) {
    memset(capturing, 0, sizeof capturing);
    memset(launched, 0, sizeof launched);
    memset(joined, 0, sizeof joined);
    origin = 0;
    capture_invalid = 0;
    recording.n = 0;
}

/* Whether a capture forbids unsafe calls from this thread now (its mode decides). */
static int capture_forbids(void) {
    if (!origin) return 0;
    return capture_mode == 0 || (capture_mode == 1 && pthread_equal(capture_thread, pthread_self()));
}

/* An unsafe call during a capture: the call fails and the capture is invalidated. */
#define NOT_WHILE_CAPTURING(name)                                      \
    do {                                                               \
        if (capture_forbids()) {                                       \
            capture_invalid = 1;                                       \
            say("%s during capture: unsupported, capture invalidated", name); \
            return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;               \
        }                                                              \
    } while (0)

/* The calling thread's context, for calls that need one. */
static CUresult need_context(int allow_sticky) {
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (current != CONTEXT || context_refs == 0) return CUDA_ERROR_INVALID_CONTEXT;
    if (sticky && !allow_sticky) return sticky;
    return 0;
}

#define NEED_CONTEXT(allow_sticky)                    \
    do {                                              \
        CUresult ctx_ = need_context(allow_sticky);   \
        if (ctx_) return ctx_;                        \
    } while (0)

static int valid_stream(uint64_t s) { return s >= 1 && s < MAX_STREAMS && stream_live[s]; }
static int valid_event(uint64_t e) { return e >= 1 && e < MAX_EVENTS && events[e].live; }

/* Releases everything the context held: what resetting the primary context does. */
static void reset_context(void) {
    for (size_t i = 0; i < nallocs; i++) free((void *) (uintptr_t) allocs[i].base);
    nallocs = 0;
    for (int m = 1; m <= MAX_MODULES; m++) {
        if (modules[m].dl) dlclose(modules[m].dl);
        memset(&modules[m], 0, sizeof modules[m]);
    }
    for (size_t i = 0; i < nfunctions; i++) functions[i].module = 0;
    memset(stream_live, 0, sizeof stream_live);
    memset(events, 0, sizeof events);
    for (int g = 0; g < MAX_GRAPHS; g++) {
        free(graphs[g].graph.nodes);
        free(execs[g].graph.nodes);
    }
    memset(graphs, 0, sizeof graphs);
    memset(execs, 0, sizeof execs);
    end_capture_state();
    sticky = 0;
}

/* ---- running kernels --------------------------------------------------------------------- */

static const function *valid_function(uint64_t f) {
    if (f < 1 || f > nfunctions) return 0;
    const function *fn = &functions[f - 1];
    return fn->module ? fn : 0;
}

/* Every pointer argument (all but the element count) inside a live allocation. */
static int pointers_live(const function *fn, const uint64_t *args) {
    for (int i = 1; i < fn->arity; i++) {
        if (holding(args[i], 0) < 0) return 0;
    }
    return 1;
}

static CUresult run(const node *n) {
    const function *fn = valid_function((uint64_t) n->fn);
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    if (!pointers_live(fn, n->args)) return CUDA_ERROR_ILLEGAL_ADDRESS;
    uint64_t values[MAX_ARGS];
    void *params[MAX_ARGS];
    for (int i = 0; i < n->nargs; i++) {
        values[i] = n->args[i];
        params[i] = &values[i];
    }
    return modules[fn->module].launch(fn->index, n->grid, n->block, params) == 0 ? 0 : CUDA_ERROR_LAUNCH_FAILED;
}

/* ---- the entry points -------------------------------------------------------------------- */

static CUresult cuInit(unsigned flags) {
    LOCKED;
    INJECTED("cuInit");
    say("cuInit %u", flags);
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    initialized = 1;
    return 0;
}

static CUresult cuDeviceGet(int *dev, int ordinal) {
    LOCKED;
    INJECTED("cuDeviceGet");
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (!dev) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return 0;
}

static CUresult cuDeviceGetName(char *name, int len, int dev) {
    LOCKED;
    INJECTED("cuDeviceGetName");
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    snprintf(name, len, "stagecheck fake CUDA device (host emulation)");
    return 0;
}

static CUresult cuDeviceGetAttribute(int *value, int attribute, int dev) {
    LOCKED;
    INJECTED("cuDeviceGetAttribute");
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    switch (attribute) {
        case 1: *value = 1024; return 0;        /* max threads per block */
        case 5: *value = 2147483647; return 0;  /* max grid x */
        case 6: case 7: *value = 65535; return 0;
        case 36: *value = 1000000; return 0;    /* memory clock, kHz: nominal, this is not a GPU */
        case 37: *value = 64; return 0;         /* memory bus width, bits */
        case 38: *value = 4 << 20; return 0;    /* L2 cache size, bytes */
        default: return CUDA_ERROR_INVALID_VALUE;
    }
}

static CUresult cuDevicePrimaryCtxRetain(uint64_t *ctx, int dev) {
    LOCKED;
    INJECTED("cuDevicePrimaryCtxRetain");
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    context_refs++;
    *ctx = CONTEXT;
    return 0;
}

static CUresult cuDevicePrimaryCtxRelease(int dev) {
    LOCKED;
    INJECTED("cuDevicePrimaryCtxRelease");
    say("cuDevicePrimaryCtxRelease %d", dev);
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (context_refs == 0) return CUDA_ERROR_INVALID_CONTEXT;
    if (--context_refs == 0) reset_context();
    return 0;
}

static CUresult cuCtxSetCurrent(uint64_t ctx) {
    LOCKED;
    INJECTED("cuCtxSetCurrent");
    if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (ctx != 0 && (ctx != CONTEXT || context_refs == 0)) return CUDA_ERROR_INVALID_CONTEXT;
    current = ctx;
    return 0;
}

static long module_files;

static CUresult cuModuleLoadData(uint64_t *mod, const void *image) {
    LOCKED;
    INJECTED("cuModuleLoadData");
    NEED_CONTEXT(0);
    NOT_WHILE_CAPTURING("cuModuleLoadData");
    if (!mod || !image) return CUDA_ERROR_INVALID_VALUE;
    const Elf64_Ehdr *h = image;
    if (memcmp(h->e_ident, ELFMAG, SELFMAG) != 0) {
        say("cuModuleLoadData: not an ELF image");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (h->e_ident[EI_CLASS] != ELFCLASS64 || h->e_machine != HOST_MACHINE) {
        say("cuModuleLoadData: ELF for machine %d, not this one", h->e_machine);
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    if (h->e_type != ET_DYN) return CUDA_ERROR_INVALID_IMAGE;
    size_t size = h->e_shoff + (size_t) h->e_shnum * h->e_shentsize;
    int slot = 0;
    for (int m = 1; m <= MAX_MODULES && !slot; m++) {
        if (!modules[m].dl) slot = m;
    }
    if (!slot) return CUDA_ERROR_OUT_OF_MEMORY;
    const char *tmp = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/stagecheck-fake-module-%d-%ld-XXXXXX", tmp && *tmp ? tmp : "/tmp", (int) getpid(), ++module_files);
    int fd = mkstemp(path);
    if (fd < 0) return CUDA_ERROR_OUT_OF_MEMORY;
    const char *p = image;
    size_t left = size;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w <= 0) {
            close(fd);
            unlink(path);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        p += w;
        left -= (size_t) w;
    }
    close(fd);
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    unlink(path);
    if (!dl) {
        say("cuModuleLoadData: %s", dlerror());
        return CUDA_ERROR_INVALID_IMAGE;
    }
    int (*count)(void) = (int (*)(void)) dlsym(dl, "sc_host_kernel_count");
    void *launch = dlsym(dl, "sc_host_launch");
    if (!count || !launch || !dlsym(dl, "sc_host_kernel_name") || !dlsym(dl, "sc_host_kernel_arity")) {
        say("cuModuleLoadData: not a stagecheck emulation library");
        dlclose(dl);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    modules[slot].dl = dl;
    modules[slot].launch = (int (*)(int, unsigned, unsigned, void **)) launch;
    modules[slot].count = count();
    *mod = (uint64_t) slot;
    say("cuModuleLoadData module#%d kernels=%d", slot, modules[slot].count);
    return 0;
}

static CUresult cuModuleUnload(uint64_t mod) {
    LOCKED;
    INJECTED("cuModuleUnload");
    NEED_CONTEXT(1);
    NOT_WHILE_CAPTURING("cuModuleUnload");
    if (mod < 1 || mod > MAX_MODULES || !modules[mod].dl) return CUDA_ERROR_INVALID_HANDLE;
    dlclose(modules[mod].dl);
    memset(&modules[mod], 0, sizeof modules[mod]);
    for (size_t i = 0; i < nfunctions; i++) {
        if (functions[i].module == (int) mod) functions[i].module = 0;
    }
    say("cuModuleUnload module#%d", (int) mod);
    return 0;
}

static CUresult cuModuleGetFunction(uint64_t *fn, uint64_t mod, const char *name) {
    LOCKED;
    INJECTED("cuModuleGetFunction");
    NEED_CONTEXT(0);
    NOT_WHILE_CAPTURING("cuModuleGetFunction");
    if (!fn || !name) return CUDA_ERROR_INVALID_VALUE;
    if (mod < 1 || mod > MAX_MODULES || !modules[mod].dl) return CUDA_ERROR_INVALID_HANDLE;
    const char *(*names)(int) = (const char *(*)(int)) dlsym(modules[mod].dl, "sc_host_kernel_name");
    int (*arity)(int) = (int (*)(int)) dlsym(modules[mod].dl, "sc_host_kernel_arity");
    for (int i = 0; i < modules[mod].count; i++) {
        const char *n = names(i);
        if (!n || strcmp(n, name) != 0) continue;
        if (arity(i) < 1 || arity(i) > MAX_ARGS) return CUDA_ERROR_NOT_SUPPORTED;
        if (nfunctions == capfunctions) {
            size_t cap = capfunctions ? capfunctions * 2 : 256;
            function *grown = realloc(functions, cap * sizeof(function));
            if (!grown) return CUDA_ERROR_OUT_OF_MEMORY;
            functions = grown;
            capfunctions = cap;
        }
        functions[nfunctions] = (function) {(int) mod, i, arity(i), strdup(name)};
        *fn = ++nfunctions;
        return 0;
    }
    say("cuModuleGetFunction %s: not found", name);
    return CUDA_ERROR_NOT_FOUND;
}

static CUresult cuMemAlloc(uint64_t *p, size_t bytes) {
    LOCKED;
    INJECTED("cuMemAlloc");
    NEED_CONTEXT(0);
    NOT_WHILE_CAPTURING("cuMemAlloc");
    if (!p || bytes == 0) return CUDA_ERROR_INVALID_VALUE;
    void *m = aligned_alloc(256, (bytes + 255) / 256 * 256);
    if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
    if (nallocs == capallocs) {
        size_t cap = capallocs ? capallocs * 2 : 64;
        allocation *grown = realloc(allocs, cap * sizeof(allocation));
        if (!grown) {
            free(m);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
        allocs = grown;
        capallocs = cap;
    }
    /* device memory is not zeroed by cuMemAlloc: fill it with a pattern so a read before a write shows */
    memset(m, 0xA5, bytes);
    allocs[nallocs++] = (allocation) {(uint64_t) (uintptr_t) m, bytes};
    *p = (uint64_t) (uintptr_t) m;
    return 0;
}

static CUresult cuMemFree(uint64_t p) {
    LOCKED;
    INJECTED("cuMemFree");
    NEED_CONTEXT(1);
    NOT_WHILE_CAPTURING("cuMemFree");
    long i = holding(p, 0);
    if (i < 0 || allocs[i].base != p) {
        say("cuMemFree %#llx: not the start of a live allocation", (unsigned long long) p);
        return CUDA_ERROR_INVALID_VALUE;
    }
    free((void *) (uintptr_t) p);
    allocs[i] = allocs[--nallocs];
    return 0;
}

static CUresult cuMemsetD8(uint64_t p, unsigned char v, size_t n) {
    LOCKED;
    INJECTED("cuMemsetD8");
    NEED_CONTEXT(0);
    NOT_WHILE_CAPTURING("cuMemsetD8");
    if (n == 0) return 0;
    if (holding(p, n) < 0) {
        say("cuMemsetD8 %#llx +%zu: outside every allocation", (unsigned long long) p, n);
        return CUDA_ERROR_INVALID_VALUE;
    }
    memset((void *) (uintptr_t) p, v, n);
    return 0;
}

static CUresult cuMemcpyHtoD(uint64_t dst, const void *src, size_t n) {
    LOCKED;
    INJECTED("cuMemcpyHtoD");
    NEED_CONTEXT(0);
    NOT_WHILE_CAPTURING("cuMemcpyHtoD");
    if (n == 0) return 0;
    if (!src || holding(dst, n) < 0) {
        say("cuMemcpyHtoD %#llx +%zu: outside every allocation", (unsigned long long) dst, n);
        return CUDA_ERROR_INVALID_VALUE;
    }
    memcpy((void *) (uintptr_t) dst, src, n);
    return 0;
}

static CUresult cuMemcpyDtoH(void *dst, uint64_t src, size_t n) {
    LOCKED;
    INJECTED("cuMemcpyDtoH");
    NEED_CONTEXT(0);
    NOT_WHILE_CAPTURING("cuMemcpyDtoH");
    if (n == 0) return 0;
    if (!dst || holding(src, n) < 0) {
        say("cuMemcpyDtoH %#llx +%zu: outside every allocation", (unsigned long long) src, n);
        return CUDA_ERROR_INVALID_VALUE;
    }
    memcpy(dst, (const void *) (uintptr_t) src, n);
    return 0;
}

static CUresult cuStreamCreate(uint64_t *s, unsigned flags) {
    LOCKED;
    INJECTED("cuStreamCreate");
    NEED_CONTEXT(0);
    if (!s || flags > 1) return CUDA_ERROR_INVALID_VALUE;
    for (int i = 1; i < MAX_STREAMS; i++) {
        if (!stream_live[i]) {
            stream_live[i] = 1;
            *s = (uint64_t) i;
            say("cuStreamCreate stream#%d flags=%u", i, flags);
            return 0;
        }
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult cuStreamDestroy(uint64_t s) {
    LOCKED;
    INJECTED("cuStreamDestroy");
    NEED_CONTEXT(1);
    if (!valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    say("cuStreamDestroy stream#%d", (int) s);
    if (capturing[s]) {
        capture_invalid = 1;
        capturing[s] = 0;
    }
    stream_live[s] = 0;
    return 0;
}

static CUresult cuStreamSynchronize(uint64_t s) {
    LOCKED;
    INJECTED("cuStreamSynchronize");
    NEED_CONTEXT(0);
    if (!valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (capturing[s]) {
        capture_invalid = 1;
        say("cuStreamSynchronize stream#%d during capture: unsupported, capture invalidated", (int) s);
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    /* launches run when they are made: nothing is pending */
    return 0;
}

static CUresult cuEventCreate(uint64_t *e, unsigned flags) {
    LOCKED;
    INJECTED("cuEventCreate");
    NEED_CONTEXT(0);
    if (!e || (flags & ~0x7u)) return CUDA_ERROR_INVALID_VALUE;
    for (int i = 1; i < MAX_EVENTS; i++) {
        if (!events[i].live) {
            memset(&events[i], 0, sizeof events[i]);
            events[i].live = 1;
            events[i].flags = flags;
            *e = (uint64_t) i;
            say("cuEventCreate event#%d flags=%u", i, flags);
            return 0;
        }
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult cuEventDestroy(uint64_t e) {
    LOCKED;
    INJECTED("cuEventDestroy");
    NEED_CONTEXT(1);
    if (!valid_event(e)) return CUDA_ERROR_INVALID_HANDLE;
    say("cuEventDestroy event#%d", (int) e);
    events[e].live = 0;
    return 0;
}

static CUresult cuEventRecord(uint64_t e, uint64_t s) {
    LOCKED;
    INJECTED("cuEventRecord");
    NEED_CONTEXT(0);
    if (!valid_event(e) || !valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (capturing[s] && capture_invalid) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    events[e].stream = (int) s;
    events[e].mark = launched[s];
    events[e].in_capture = capturing[s];
    events[e].recorded = 1;
    events[e].ms = now_ms();
    say("cuEventRecord event#%d stream#%d", (int) e, (int) s);
    return 0;
}

static CUresult cuStreamWaitEvent(uint64_t s, uint64_t e, unsigned flags) {
    LOCKED;
    INJECTED("cuStreamWaitEvent");
    NEED_CONTEXT(0);
    if (!valid_event(e) || !valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    say("cuStreamWaitEvent stream#%d event#%d flags=%u", (int) s, (int) e, flags);
    if (!events[e].in_capture || !origin) return 0;   /* eager: launches ran already, in order */
    if (capture_invalid) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    capturing[s] = 1;   /* waiting on an event of the capture brings the stream into it */
    if ((int) s == origin && events[e].stream != origin) {
        joined[events[e].stream] = events[e].mark;
        node n = {.kind = 1, .stream = (int) s, .from = events[e].stream};
        if (!push(&recording, &n)) return CUDA_ERROR_OUT_OF_MEMORY;
    }
    return 0;
}

static CUresult cuEventSynchronize(uint64_t e) {
    LOCKED;
    INJECTED("cuEventSynchronize");
    NEED_CONTEXT(0);
    if (!valid_event(e)) return CUDA_ERROR_INVALID_HANDLE;
    if (events[e].in_capture && origin) {
        capture_invalid = 1;
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    }
    return 0;
}

static CUresult cuEventElapsedTime(float *ms, uint64_t start, uint64_t end) {
    LOCKED;
    INJECTED("cuEventElapsedTime");
    NEED_CONTEXT(0);
    if (!ms) return CUDA_ERROR_INVALID_VALUE;
    if (!valid_event(start) || !valid_event(end)) return CUDA_ERROR_INVALID_HANDLE;
    if ((events[start].flags | events[end].flags) & CU_EVENT_DISABLE_TIMING) return CUDA_ERROR_INVALID_HANDLE;
    if (!events[start].recorded || !events[end].recorded) return CUDA_ERROR_NOT_READY;
    *ms = (float) (events[end].ms - events[start].ms);
    return 0;
}

static CUresult cuLaunchKernel(uint64_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                               unsigned shared, uint64_t s, void **params, void **extra) {
    LOCKED;
    INJECTED("cuLaunchKernel");
    NEED_CONTEXT(0);
    const function *fn = valid_function(f);
    if (!fn || !valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    unsigned long long threads_per_block = (unsigned long long) bx * by * bz;
    if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || threads_per_block > 1024 || bx > 1024 || by > 1024
        || bz > 64 || gx > 2147483647u || gy > 65535 || gz > 65535 || shared > 48 * 1024) {
        say("cuLaunchKernel %s: grid %ux%ux%u block %ux%ux%u shared %u beyond the device's limits", fn->name, gx, gy, gz, bx, by, bz, shared);
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (gy != 1 || gz != 1 || by != 1 || bz != 1) return CUDA_ERROR_NOT_SUPPORTED;   /* the emulation grid is one-dimensional */
    if (!params || extra) return CUDA_ERROR_INVALID_VALUE;
    node n = {.kind = 0, .stream = (int) s, .fn = (long) f, .grid = gx, .block = bx, .nargs = fn->arity};
    for (int i = 0; i < fn->arity; i++) {
        if (!params[i]) return CUDA_ERROR_INVALID_VALUE;
        memcpy(&n.args[i], params[i], sizeof(uint64_t));
    }
    if (!pointers_live(fn, n.args)) {
        say("cuLaunchKernel %s: a pointer argument is outside every allocation", fn->name);
        return CUDA_ERROR_INVALID_VALUE;
    }
    const char *how = capturing[s] ? "captured" : (origin ? "outside-capture" : "eager");
    say("cuLaunchKernel %s grid=%u block=%u stream#%d threads=%llu %s", fn->name, gx, bx, (int) s,
        (unsigned long long) n.args[0], how);
    if (capturing[s]) {
        if (capture_invalid) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        launched[s]++;
        return push(&recording, &n) ? 0 : CUDA_ERROR_OUT_OF_MEMORY;
    }
    return run(&n);
}

static CUresult cuStreamBeginCapture(uint64_t s, int mode) {
    LOCKED;
    INJECTED("cuStreamBeginCapture");
    NEED_CONTEXT(0);
    if (!valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (mode < 0 || mode > 2) return CUDA_ERROR_INVALID_VALUE;
    if (capturing[s]) return CUDA_ERROR_ILLEGAL_STATE;
    if (origin) return CUDA_ERROR_NOT_SUPPORTED;   /* the fake keeps one capture at a time */
    end_capture_state();
    origin = (int) s;
    capture_mode = mode;
    capture_thread = pthread_self();
    capturing[s] = 1;
    say("cuStreamBeginCapture stream#%d mode=%d", (int) s, mode);
    return 0;
}

static CUresult cuStreamEndCapture(uint64_t s, uint64_t *graph) {
    LOCKED;
    INJECTED("cuStreamEndCapture");
    NEED_CONTEXT(0);
    if (!valid_stream(s) || !graph) return CUDA_ERROR_INVALID_VALUE;
    if (!origin || !capturing[s]) return CUDA_ERROR_ILLEGAL_STATE;
    *graph = 0;
    if ((int) s != origin) {
        capture_invalid = 1;
        return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    }
    int unjoined = 0;
    for (int i = 1; i < MAX_STREAMS; i++) {
        if (i != (int) s && capturing[i] && launched[i] > joined[i]) unjoined = 1;
    }
    int invalid = capture_invalid;
    say("cuStreamEndCapture stream#%d %s", (int) s, invalid ? "invalidated" : unjoined ? "unjoined" : "ok");
    if (invalid || unjoined) {
        end_capture_state();
        return invalid ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
    }
    for (int g = 1; g < MAX_GRAPHS; g++) {
        if (!graphs[g].live) {
            graphs[g].live = 1;
            graphs[g].graph.n = 0;
            for (size_t i = 0; i < recording.n; i++) {
                if (!push(&graphs[g].graph, &recording.nodes[i])) {
                    graphs[g].live = 0;
                    end_capture_state();
                    return CUDA_ERROR_OUT_OF_MEMORY;
                }
            }
            /* node streams are kept relative to the origin: 0 the origin, else the forked stream */
            for (size_t i = 0; i < graphs[g].graph.n; i++) {
                node *n = &graphs[g].graph.nodes[i];
                n->stream = n->stream == origin ? 0 : n->stream;
            }
            end_capture_state();
            *graph = (uint64_t) g;
            return 0;
        }
    }
    end_capture_state();
    return CUDA_ERROR_OUT_OF_MEMORY;
}

static CUresult cuGraphInstantiateWithFlags(uint64_t *exec, uint64_t graph, unsigned long long flags) {
    LOCKED;
    INJECTED("cuGraphInstantiateWithFlags");
    NEED_CONTEXT(0);
    if (!exec || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (graph < 1 || graph >= MAX_GRAPHS || !graphs[graph].live) return CUDA_ERROR_INVALID_HANDLE;
    for (int x = 1; x < MAX_GRAPHS; x++) {
        if (!execs[x].live) {
            execs[x].live = 1;
            execs[x].graph_id = (int) graph;
            execs[x].graph.n = 0;
            for (size_t i = 0; i < graphs[graph].graph.n; i++) {
                if (!push(&execs[x].graph, &graphs[graph].graph.nodes[i])) {
                    execs[x].live = 0;
                    return CUDA_ERROR_OUT_OF_MEMORY;
                }
            }
            *exec = (uint64_t) x;
            return 0;
        }
    }
    return CUDA_ERROR_OUT_OF_MEMORY;
}

/* Runs the pending launches of forked stream `from`, in their order. */
static CUresult run_pending(const nodes *g, size_t upto, int from, size_t *done_upto) {
    for (size_t i = *done_upto; i < upto; i++) {
        const node *n = &g->nodes[i];
        if (n->kind == 0 && n->stream == from) {
            CUresult rc = run(n);
            if (rc) return rc;
        }
    }
    *done_upto = upto;
    return 0;
}

static CUresult cuGraphLaunch(uint64_t exec, uint64_t s) {
    LOCKED;
    INJECTED("cuGraphLaunch");
    NEED_CONTEXT(0);
    if (exec < 1 || exec >= MAX_GRAPHS || !execs[exec].live || !valid_stream(s)) return CUDA_ERROR_INVALID_HANDLE;
    if (capturing[s]) return CUDA_ERROR_NOT_SUPPORTED;
    say("cuGraphLaunch graph#%d stream#%d", execs[exec].graph_id, (int) s);
    const nodes *g = &execs[exec].graph;
    /* per forked stream, the index up to which its launches have run */
    size_t side_done[MAX_STREAMS] = {0};
    for (size_t i = 0; i < g->n; i++) {
        const node *n = &g->nodes[i];
        CUresult rc = 0;
        if (n->kind == 1) {
            rc = run_pending(g, i, n->from, &side_done[n->from]);
        } else if (n->stream == 0) {
            rc = run(n);
        }
        if (rc == CUDA_ERROR_ILLEGAL_ADDRESS) {
            say("cuGraphLaunch graph#%d: a baked pointer argument is outside every allocation", execs[exec].graph_id);
            sticky = rc;
        }
        if (rc) return rc;
    }
    return 0;
}

static CUresult cuGraphExecDestroy(uint64_t exec) {
    LOCKED;
    INJECTED("cuGraphExecDestroy");
    NEED_CONTEXT(1);
    if (exec < 1 || exec >= MAX_GRAPHS || !execs[exec].live) return CUDA_ERROR_INVALID_HANDLE;
    execs[exec].live = 0;
    return 0;
}

static CUresult cuGraphDestroy(uint64_t graph) {
    LOCKED;
    INJECTED("cuGraphDestroy");
    NEED_CONTEXT(1);
    if (graph < 1 || graph >= MAX_GRAPHS || !graphs[graph].live) return CUDA_ERROR_INVALID_HANDLE;
    graphs[graph].live = 0;
    return 0;
}

static const struct { CUresult rc; const char *name; } names[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
    {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE"},
    {CUDA_ERROR_ILLEGAL_STATE, "CUDA_ERROR_ILLEGAL_STATE"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY"},
    {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS"},
    {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED"},
    {CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED"},
    {CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED"},
    {CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED"},
    {CUDA_ERROR_STREAM_CAPTURE_UNJOINED, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN"},
};

static CUresult cuGetErrorName(CUresult rc, const char **name) {
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i].rc == rc) {
            *name = names[i].name;
            return 0;
        }
    }
    *name = 0;
    return CUDA_ERROR_INVALID_VALUE;
}

/* Each entry point with the API version that introduced the ABI bound to its name (cuda.h's _v2 mappings). */
#define ENTRY(f, since) {#f, (void *) f, since}
static const struct { const char *name; void *fn; int since; } table[] = {
    ENTRY(cuInit, 2000), ENTRY(cuDeviceGet, 2000), ENTRY(cuDeviceGetName, 2000), ENTRY(cuDeviceGetAttribute, 2000),
    ENTRY(cuDevicePrimaryCtxRetain, 7000), ENTRY(cuDevicePrimaryCtxRelease, 11000), ENTRY(cuCtxSetCurrent, 4000),
    ENTRY(cuModuleLoadData, 2000), ENTRY(cuModuleUnload, 2000), ENTRY(cuModuleGetFunction, 2000),
    ENTRY(cuMemAlloc, 3020), ENTRY(cuMemFree, 3020), ENTRY(cuMemsetD8, 3020), ENTRY(cuMemcpyHtoD, 3020),
    ENTRY(cuMemcpyDtoH, 3020), ENTRY(cuStreamCreate, 2000), ENTRY(cuStreamDestroy, 4000),
    ENTRY(cuStreamSynchronize, 2000), ENTRY(cuEventCreate, 2000), ENTRY(cuEventDestroy, 4000), ENTRY(cuEventRecord, 2000),
    ENTRY(cuStreamWaitEvent, 3020), ENTRY(cuEventSynchronize, 2000), ENTRY(cuEventElapsedTime, 2000),
    ENTRY(cuLaunchKernel, 4000), ENTRY(cuStreamBeginCapture, 10010), ENTRY(cuStreamEndCapture, 10000),
    ENTRY(cuGraphInstantiateWithFlags, 11040), ENTRY(cuGraphLaunch, 10000), ENTRY(cuGraphExecDestroy, 10000),
    ENTRY(cuGraphDestroy, 10000), ENTRY(cuGetErrorName, 6000),
};

/* CU_GET_PROC_ADDRESS_SUCCESS, _SYMBOL_NOT_FOUND, _VERSION_NOT_SUFFICIENT */
enum { PROC_FOUND = 0, PROC_SYMBOL_NOT_FOUND = 1, PROC_VERSION_NOT_SUFFICIENT = 2 };

__attribute__((visibility("default"))) CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags,
                                                                    int *status) {
    if (!symbol || !pfn || flags > 2) return CUDA_ERROR_INVALID_VALUE;
    *pfn = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, symbol) != 0) continue;
        if (version < table[i].since) {
            if (status) *status = PROC_VERSION_NOT_SUFFICIENT;
            return CUDA_ERROR_NOT_FOUND;
        }
        *pfn = table[i].fn;
        if (status) *status = PROC_FOUND;
        return 0;
    }
    if (status) *status = PROC_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}
