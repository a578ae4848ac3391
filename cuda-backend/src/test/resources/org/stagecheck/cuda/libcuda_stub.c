/*
 * A stand-in for libcuda.so.1 for tests on machines without a GPU: the driver entry points the
 * backend resolves through cuGetProcAddress_v2, each appending one line to a log the test reads
 * (stub_log). Memory is host memory (so uploads and downloads work); kernels do not run. Stream
 * capture follows the driver's rules closely enough to check the side stream: a stream joins a
 * capture by waiting on an event recorded in it, and ending the capture while a forked stream
 * has launches its origin did not wait for fails with CUDA_ERROR_STREAM_CAPTURE_UNJOINED (904).
 * Handles are small integers, logged as stream#N, event#N in creation order.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
#define MAXH 64

static char *logbuf;
static size_t loglen, logcap;
static int streams, events, graphs;
static int capturing[MAXH];     /* stream is part of the active capture */
static int origin;              /* the stream the capture began on, 0 when none */
static long launched[MAXH];     /* launches captured on each stream */
static long joined[MAXH];       /* launches of each stream the origin has waited for */
static int event_stream[MAXH];  /* stream an event was last recorded on */
static long event_mark[MAXH];   /* that stream's launch count then */
static int event_in_capture[MAXH];
static char names[4096][128];
static int functions;

static void say(const char *fmt, ...) {
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (loglen + n + 2 > logcap) {
        logcap = (logcap + n + 2) * 2;
        logbuf = realloc(logbuf, logcap);
    }
    memcpy(logbuf + loglen, line, n);
    loglen += n;
    logbuf[loglen++] = '\n';
    logbuf[loglen] = 0;
}

const char *stub_log(void) { return logbuf ? logbuf : ""; }

/* Forgets every handle and the log: each test starts from stream#1, event#1. */
void stub_reset(void) {
    loglen = 0;
    if (logbuf) logbuf[0] = 0;
    streams = events = graphs = functions = origin = 0;
    memset(capturing, 0, sizeof capturing);
    memset(launched, 0, sizeof launched);
    memset(joined, 0, sizeof joined);
}

static CUresult cuInit(unsigned flags) { say("cuInit %u", flags); return 0; }
static CUresult cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return 0; }
static CUresult cuDeviceGetName(char *name, int len, int dev) { snprintf(name, len, "stub device %d", dev); return 0; }
static CUresult cuDevicePrimaryCtxRetain(uint64_t *ctx, int dev) { *ctx = 0xC0; return 0; }
static CUresult cuDevicePrimaryCtxRelease(int dev) { say("cuDevicePrimaryCtxRelease %d", dev); return 0; }
static CUresult cuCtxSetCurrent(uint64_t ctx) { return 0; }
static CUresult cuModuleLoadData(uint64_t *mod, const void *image) { *mod = 0x40; return 0; }
static CUresult cuModuleUnload(uint64_t mod) { return 0; }
static CUresult cuModuleGetFunction(uint64_t *fn, uint64_t mod, const char *name) {
    snprintf(names[functions], sizeof names[0], "%s", name);
    *fn = ++functions;
    return 0;
}
static CUresult cuStreamCreate(uint64_t *s, unsigned flags) {
    *s = ++streams;
    say("cuStreamCreate stream#%d flags=%u", streams, flags);
    return 0;
}
static CUresult cuStreamDestroy(uint64_t s) { say("cuStreamDestroy stream#%d", (int) s); return 0; }
static CUresult cuEventCreate(uint64_t *e, unsigned flags) {
    *e = ++events;
    say("cuEventCreate event#%d flags=%u", events, flags);
    return 0;
}
static CUresult cuEventDestroy(uint64_t e) { say("cuEventDestroy event#%d", (int) e); return 0; }
static CUresult cuEventRecord(uint64_t e, uint64_t s) {
    if (e < 1 || e >= MAXH || s < 1 || s >= MAXH) return 400; /* CUDA_ERROR_INVALID_HANDLE */
    event_stream[e] = (int) s;
    event_mark[e] = launched[s];
    event_in_capture[e] = capturing[s];
    say("cuEventRecord event#%d stream#%d", (int) e, (int) s);
    return 0;
}
static CUresult cuStreamWaitEvent(uint64_t s, uint64_t e, unsigned flags) {
    if (e < 1 || e >= MAXH || s < 1 || s >= MAXH) return 400;
    if (event_in_capture[e]) {
        capturing[s] = 1;
        if ((int) s == origin && event_stream[e] != origin) {
            joined[event_stream[e]] = event_mark[e];
        }
    }
    say("cuStreamWaitEvent stream#%d event#%d flags=%u", (int) s, (int) e, flags);
    return 0;
}
static CUresult cuStreamSynchronize(uint64_t s) { return 0; }
static CUresult cuMemAlloc(uint64_t *p, size_t bytes) { *p = (uint64_t) (uintptr_t) calloc(1, bytes); return 0; }
static CUresult cuMemFree(uint64_t p) { free((void *) (uintptr_t) p); return 0; }
static CUresult cuMemsetD8(uint64_t p, unsigned char v, size_t n) { memset((void *) (uintptr_t) p, v, n); return 0; }
static CUresult cuMemcpyHtoD(uint64_t dst, const void *src, size_t n) { memcpy((void *) (uintptr_t) dst, src, n); return 0; }
static CUresult cuMemcpyDtoH(void *dst, uint64_t src, size_t n) { memcpy(dst, (const void *) (uintptr_t) src, n); return 0; }
static CUresult cuLaunchKernel(uint64_t f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                               unsigned shared, uint64_t s, void **params, void **extra) {
    if (f < 1 || f > (uint64_t) functions || s < 1 || s >= MAXH) return 400;
    if (capturing[s]) launched[s]++;
    say("cuLaunchKernel %s grid=%u block=%u stream#%d threads=%llu %s", names[f - 1], gx, bx, (int) s,
        (unsigned long long) *(uint64_t *) params[0], capturing[s] ? "captured" : (origin ? "outside-capture" : "eager"));
    return 0;
}
static CUresult cuStreamBeginCapture(uint64_t s, int mode) {
    memset(capturing, 0, sizeof capturing);
    memset(launched, 0, sizeof launched);
    memset(joined, 0, sizeof joined);
    origin = (int) s;
    capturing[s] = 1;
    say("cuStreamBeginCapture stream#%d mode=%d", (int) s, mode);
    return 0;
}
static CUresult cuStreamEndCapture(uint64_t s, uint64_t *graph) {
    int unjoined = 0;
    for (int i = 1; i < MAXH; i++) {
        if (i != (int) s && capturing[i] && launched[i] > joined[i]) unjoined = 1;
    }
    memset(capturing, 0, sizeof capturing);
    origin = 0;
    say("cuStreamEndCapture stream#%d %s", (int) s, unjoined ? "unjoined" : "ok");
    if (unjoined) { *graph = 0; return 904; }
    *graph = ++graphs;
    return 0;
}
static CUresult cuGraphInstantiateWithFlags(uint64_t *exec, uint64_t graph, unsigned long long flags) { *exec = 0x1000 + graph; return 0; }
static CUresult cuGraphLaunch(uint64_t exec, uint64_t s) { say("cuGraphLaunch graph#%d stream#%d", (int) (exec - 0x1000), (int) s); return 0; }
static CUresult cuGraphExecDestroy(uint64_t exec) { return 0; }
static CUresult cuGraphDestroy(uint64_t graph) { return 0; }
static CUresult cuGetErrorName(CUresult rc, const char **name) {
    *name = rc == 904 ? "CUDA_ERROR_STREAM_CAPTURE_UNJOINED" : rc == 400 ? "CUDA_ERROR_INVALID_HANDLE" : "CUDA_ERROR_UNKNOWN";
    return 0;
}

#define ENTRY(f) {#f, (void *) f}
static const struct { const char *name; void *fn; } table[] = {
    ENTRY(cuInit), ENTRY(cuDeviceGet), ENTRY(cuDeviceGetName), ENTRY(cuDevicePrimaryCtxRetain),
    ENTRY(cuDevicePrimaryCtxRelease), ENTRY(cuCtxSetCurrent), ENTRY(cuModuleLoadData), ENTRY(cuModuleUnload),
    ENTRY(cuModuleGetFunction), ENTRY(cuStreamCreate), ENTRY(cuStreamDestroy), ENTRY(cuEventCreate),
    ENTRY(cuEventDestroy), ENTRY(cuEventRecord), ENTRY(cuStreamWaitEvent), ENTRY(cuStreamSynchronize),
    ENTRY(cuMemAlloc), ENTRY(cuMemFree), ENTRY(cuMemsetD8), ENTRY(cuMemcpyHtoD), ENTRY(cuMemcpyDtoH),
    ENTRY(cuLaunchKernel), ENTRY(cuStreamBeginCapture), ENTRY(cuStreamEndCapture),
    ENTRY(cuGraphInstantiateWithFlags), ENTRY(cuGraphLaunch), ENTRY(cuGraphExecDestroy), ENTRY(cuGraphDestroy),
    ENTRY(cuGetErrorName),
};

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, uint64_t flags, int *status) {
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (strcmp(table[i].name, symbol) == 0) {
            *pfn = table[i].fn;
            if (status) *status = 0;
            return 0;
        }
    }
    *pfn = 0;
    if (status) *status = 1; /* CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND */
    return 500; /* CUDA_ERROR_NOT_FOUND */
}
