/*
 * sc_rt.h - the runtime header of stagecheck's generated CUDA C (docs/cuda.md).
 *
 * One generated .cu compiles two ways:
 *   nvcc (__CUDACC__ defined): kernels are __global__ functions run on the GPU;
 *   g++  (host emulation):     a kernel is a plain function that the generated sc_host_launch
 *                              calls once per (block, thread) of the launch grid.
 * Generated kernels therefore use no block-level synchronisation, shared memory or warp
 * operations, and no atomics except the fault record's claim (sc_fault): every thread computes
 * whole output elements on its own, each reduction in the reference's order.
 *
 * Every floating operation goes through an sc_ helper: on the device the IEEE round-to-nearest
 * intrinsics (never contracted into an fma), on the host the plain operators compiled with
 * -ffp-contract=off. bf16, f16 and the 8-bit floats are converted by integer code equal to the
 * reference's (org.stagecheck.tensor.numeric: Bf16, F16, Fp8); the CUDA headers' conversions are not used because
 * their host paths canonicalise NaNs.
 *
 * Transcendental functions: SC_MATH_FAST selects the float functions (bounded by the CUDA math
 * library's ULP table); otherwise ("precise") each is computed in double and rounded once to f32,
 * as the reference does with StrictMath.
 */
#ifndef SC_RT_H
#define SC_RT_H

#include <stdint.h>

#ifdef __CUDACC__
#define SC_KERNEL extern "C" __global__ void
#define SC_DEV static __device__ __forceinline__
/* a grid-stride loop: the launch may have fewer threads than elements */
#define SC_FOR_EACH(e, n) \
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < (n); e += (long long)gridDim.x * blockDim.x)
#else
#include <math.h>
#include <string.h>
struct sc_dim3 { unsigned x; };
/* the emulated launch coordinates, set by sc_host_launch before each call of a kernel */
static sc_dim3 blockIdx, threadIdx, blockDim, gridDim;
#define SC_KERNEL extern "C" __attribute__((visibility("default"))) void
#define SC_DEV static inline
#define SC_FOR_EACH(e, n) \
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < (n); e += (long long)gridDim.x * blockDim.x)
/* run one kernel call per (block, thread) of a grid x block launch, as the device would */
#define SC_HOST_GRID(grid, block, call)                                   \
    do {                                                                 \
        gridDim.x = (grid);                                              \
        blockDim.x = (block);                                            \
        for (blockIdx.x = 0; blockIdx.x < gridDim.x; blockIdx.x++) {     \
            for (threadIdx.x = 0; threadIdx.x < blockDim.x; threadIdx.x++) { \
                call;                                                    \
            }                                                            \
        }                                                                \
    } while (0)
#endif

/* ---- bit casts ---------------------------------------------------------------------------- */

SC_DEV float sc_bits_f32(uint32_t b) {
#ifdef __CUDACC__
    return __uint_as_float(b);
#else
    float f;
    memcpy(&f, &b, 4);
    return f;
#endif
}

SC_DEV uint32_t sc_f32_bits(float f) {
#ifdef __CUDACC__
    return __float_as_uint(f);
#else
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
#endif
}

SC_DEV int sc_isnan(float x) { return x != x; }

/* ---- f32 arithmetic: IEEE, round to nearest even, never fused -------------------------------- */

#ifdef __CUDACC__
SC_DEV float sc_fadd(float a, float b) { return __fadd_rn(a, b); }
SC_DEV float sc_fsub(float a, float b) { return __fsub_rn(a, b); }
SC_DEV float sc_fmul(float a, float b) { return __fmul_rn(a, b); }
SC_DEV float sc_fdiv(float a, float b) { return __fdiv_rn(a, b); }
SC_DEV float sc_fma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
SC_DEV float sc_fsqrt(float a) { return __fsqrt_rn(a); }
SC_DEV double sc_dadd(double a, double b) { return __dadd_rn(a, b); }
SC_DEV double sc_ddiv(double a, double b) { return __ddiv_rn(a, b); }
SC_DEV double sc_dsqrt(double a) { return __dsqrt_rn(a); }
#else
SC_DEV float sc_fadd(float a, float b) { return a + b; }
SC_DEV float sc_fsub(float a, float b) { return a - b; }
SC_DEV float sc_fmul(float a, float b) { return a * b; }
SC_DEV float sc_fdiv(float a, float b) { return a / b; }
SC_DEV float sc_fma(float a, float b, float c) { return fmaf(a, b, c); }
SC_DEV float sc_fsqrt(float a) { return sqrtf(a); }
SC_DEV double sc_dadd(double a, double b) { return a + b; }
SC_DEV double sc_ddiv(double a, double b) { return a / b; }
SC_DEV double sc_dsqrt(double a) { return sqrt(a); }
#endif

/* Java's float remainder (truncated, sign of the dividend) is C's fmodf: exact on both sides */
SC_DEV float sc_frem(float a, float b) { return fmodf(a, b); }

/* Math.max / Math.min on floats: NaN if either is NaN (the first NaN), -0 below +0 */
SC_DEV float sc_fmax(float a, float b) {
    if (a != a) return a;
    if (a == 0.0f && b == 0.0f && sc_f32_bits(a) == 0x80000000u) return b;
    return a >= b ? a : b;
}

SC_DEV float sc_fmin(float a, float b) {
    if (a != a) return a;
    if (a == 0.0f && b == 0.0f && sc_f32_bits(b) == 0x80000000u) return b;
    return a <= b ? a : b;
}

/* ---- i32: two's complement with wrap-around (no undefined behaviour) ----------------------- */

SC_DEV int sc_iadd(int a, int b) { return (int)((uint32_t)a + (uint32_t)b); }
SC_DEV int sc_isub(int a, int b) { return (int)((uint32_t)a - (uint32_t)b); }
SC_DEV int sc_imul(int a, int b) { return (int)((uint32_t)a * (uint32_t)b); }
SC_DEV int sc_ineg(int a) { return (int)(0u - (uint32_t)a); }
SC_DEV int sc_iabs(int a) { return a < 0 ? sc_ineg(a) : a; }
SC_DEV int sc_imax(int a, int b) { return a >= b ? a : b; }
SC_DEV int sc_imin(int a, int b) { return a <= b ? a : b; }
/* Java's / and % (truncating); the caller faults on a zero divisor first. MIN / -1 wraps to MIN. */
SC_DEV int sc_idiv(int a, int b) { return b == 0 ? 0 : (b == -1 ? sc_ineg(a) : a / b); }
SC_DEV int sc_irem(int a, int b) { return (b == 0 || b == -1) ? 0 : a % b; }

/* Java's (int) of a float: truncation toward zero, saturating, NaN to 0 */
SC_DEV int sc_f2i(float f) {
    if (f != f) return 0;
    if (f >= 2147483648.0f) return 2147483647;
    if (f <= -2147483648.0f) return (int)0x80000000u;
    return (int)f;
}

/* i32 to f32, round to nearest even (both compilers' int-to-float conversion) */
SC_DEV float sc_i2f(int i) { return (float)i; }

/* ---- bf16: the top half of an f32 (Bf16.java) ----------------------------------------------- */

SC_DEV float sc_bf16_to_f32(uint16_t h) { return sc_bits_f32((uint32_t)h << 16); }

SC_DEV uint16_t sc_f32_to_bf16(float f) {
    uint32_t bits = sc_f32_bits(f);
    if (f != f) return (uint16_t)((bits >> 16) | 0x0040u); /* sign and top payload kept, quiet */
    uint32_t lsb = (bits >> 16) & 1u;
    return (uint16_t)((bits + 0x7FFFu + lsb) >> 16);
}

/* ---- f16: IEEE binary16 (F16.java) ---------------------------------------------------------- */

SC_DEV float sc_f16_to_f32(uint16_t h) {
    uint32_t sign = ((uint32_t)h & 0x8000u) << 16;
    uint32_t exp = ((uint32_t)h >> 10) & 0x1Fu;
    uint32_t mant = (uint32_t)h & 0x3FFu;
    if (exp == 0x1Fu) return sc_bits_f32(sign | 0x7F800000u | (mant << 13));
    if (exp == 0u) {
        float v = (float)mant * 5.9604644775390625e-8f; /* mant * 2^-24, exact */
        return sign == 0u ? v : -v;
    }
    return sc_bits_f32(sign | ((exp - 15u + 127u) << 23) | (mant << 13));
}

SC_DEV uint16_t sc_f32_to_f16(float f) {
    uint32_t bits = sc_f32_bits(f);
    uint32_t sign = (bits >> 16) & 0x8000u;
    if (f != f) return (uint16_t)(sign | 0x7E00u); /* the canonical quiet NaN of its sign */
    int exp = (int)((bits >> 23) & 0xFFu);
    uint32_t mant = bits & 0x7FFFFFu;
    if (exp == 0xFF) return (uint16_t)(sign | 0x7C00u);
    int e = exp - 127 + 15;
    if (e >= 0x1F) return (uint16_t)(sign | 0x7C00u);
    if (e <= 0) {
        if (e < -10) return (uint16_t)sign;
        uint32_t sig = mant | 0x800000u;
        int shift = 14 - e;
        uint32_t half = 1u << (shift - 1);
        uint32_t rest = sig & ((1u << shift) - 1u);
        uint32_t q = sig >> shift;
        if (rest > half || (rest == half && (q & 1u) == 1u)) q++;
        return (uint16_t)(sign | q);
    }
    uint32_t q = ((uint32_t)e << 10) | (mant >> 13);
    uint32_t rest = mant & 0x1FFFu;
    if (rest > 0x1000u || (rest == 0x1000u && (q & 1u) == 1u)) q++;
    return (uint16_t)(sign | q);
}

/* a value rounded to a storage dtype and widened back to f32: the value a cast keeps */
SC_DEV float sc_round_bf16(float f) { return sc_bf16_to_f32(sc_f32_to_bf16(f)); }
SC_DEV float sc_round_f16(float f) { return sc_f16_to_f32(sc_f32_to_f16(f)); }

/* ---- e4m3 / e5m2: the OCP 8-bit floats (Fp8.java) ------------------------------------------- */

/* the exact f32 value of an 8-bit code with `mb` mantissa bits and exponent bias `bias` */
SC_DEV float sc_fp8_to_f32(uint8_t c, int mb, int bias, int has_inf) {
    uint32_t sign = ((uint32_t)c & 0x80u) << 24;
    int e = (c & 0x7F) >> mb;
    int m = c & ((1 << mb) - 1);
    int max_exp = (1 << (7 - mb)) - 1;
    if (e == max_exp) {
        if (has_inf) {
            if (m == 0) return sc_bits_f32(sign | 0x7F800000u);
            return sc_bits_f32(sign | 0x7FC00000u);
        }
        if (m == (1 << mb) - 1) return sc_bits_f32(sign | 0x7FC00000u);
    }
    if (e == 0) {
        /* m * 2^(1 - bias - mb): a small integer times a normal power of two, exact */
        float v = (float)m * sc_bits_f32((uint32_t)(1 - bias - mb + 127) << 23);
        return sign ? -v : v;
    }
    return sc_bits_f32(sign | ((uint32_t)(e - bias + 127) << 23) | ((uint32_t)m << (23 - mb)));
}

/* the nearest code: ties to even, saturating to the largest finite value, NaN to the canonical NaN of its sign */
SC_DEV uint8_t sc_f32_to_fp8(float f, int mb, int bias, double max_finite) {
    uint32_t sign = (sc_f32_bits(f) >> 24) & 0x80u;
    if (f != f) return (uint8_t)(sign | 0x7Fu);
    double a = fabs((double)f);
    if (a == 0.0) return (uint8_t)sign;
    int min_normal_exp = 1 - bias;
    double r;
    if (isinf(a)) {
        r = max_finite;
    } else {
        int e = ilogb(a);
        if (e < min_normal_exp) e = min_normal_exp;
        double q = ldexp(1.0, e - mb);
        r = rint(a / q) * q; /* a / q is exact: q is a power of two */
        if (r > max_finite) r = max_finite;
    }
    int code;
    if (r == 0.0) {
        code = 0;
    } else {
        int re = ilogb(r);
        if (re < min_normal_exp) {
            code = (int)ldexp(r, mb - min_normal_exp);
        } else {
            int mant = (int)ldexp(r, mb - re) - (1 << mb);
            code = ((re + bias) << mb) | mant;
        }
    }
    return (uint8_t)(sign | (uint32_t)code);
}

SC_DEV float sc_e4m3_to_f32(uint8_t c) { return sc_fp8_to_f32(c, 3, 7, 0); }
SC_DEV float sc_e5m2_to_f32(uint8_t c) { return sc_fp8_to_f32(c, 2, 15, 1); }
SC_DEV uint8_t sc_f32_to_e4m3(float f) { return sc_f32_to_fp8(f, 3, 7, 448.0); }
SC_DEV uint8_t sc_f32_to_e5m2(float f) { return sc_f32_to_fp8(f, 2, 15, 57344.0); }
SC_DEV float sc_round_e4m3(float f) { return sc_e4m3_to_f32(sc_f32_to_e4m3(f)); }
SC_DEV float sc_round_e5m2(float f) { return sc_e5m2_to_f32(sc_f32_to_e5m2(f)); }

/* ---- transcendental functions --------------------------------------------------------------- */

#ifdef SC_MATH_FAST
SC_DEV float sc_exp(float x) { return expf(x); }
SC_DEV float sc_log(float x) { return logf(x); }
SC_DEV float sc_tanh(float x) { return tanhf(x); }
SC_DEV float sc_sin(float x) { return sinf(x); }
SC_DEV float sc_cos(float x) { return cosf(x); }
#ifdef __CUDACC__
SC_DEV float sc_rsqrt(float x) { return rsqrtf(x); }
#else
SC_DEV float sc_rsqrt(float x) { return 1.0f / sqrtf(x); }
#endif
SC_DEV float sc_sigmoid(float x) { return sc_fdiv(1.0f, sc_fadd(1.0f, expf(-x))); }
#else
SC_DEV float sc_exp(float x) { return (float)exp((double)x); }
SC_DEV float sc_log(float x) { return (float)log((double)x); }
SC_DEV float sc_tanh(float x) { return (float)tanh((double)x); }
SC_DEV float sc_sin(float x) { return (float)sin((double)x); }
SC_DEV float sc_cos(float x) { return (float)cos((double)x); }
/* 1 / sqrt(x) in double: both operations correctly rounded, so equal to the reference */
SC_DEV float sc_rsqrt(float x) { return (float)sc_ddiv(1.0, sc_dsqrt((double)x)); }
SC_DEV float sc_sigmoid(float x) { return (float)sc_ddiv(1.0, sc_dadd(1.0, exp(-(double)x))); }
#endif
/* sqrt and 1/x: a double result rounded to f32 equals the correctly rounded f32 operation */
SC_DEV float sc_sqrt(float x) { return sc_fsqrt(x); }
SC_DEV float sc_recip(float x) { return sc_fdiv(1.0f, x); }

/* ---- offsets: 64-bit affine sums with overflow detection ------------------------------------ */

/* acc + c * v, setting *ovf when the exact result does not fit in 64 bits */
SC_DEV long long sc_off_term(long long acc, long long c, long long v, int* ovf) {
    const long long MAX = 0x7FFFFFFFFFFFFFFFLL;
    if (c != 0 && v != 0) {
        unsigned long long ac = c < 0 ? 0ull - (unsigned long long)c : (unsigned long long)c;
        unsigned long long av = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
        if (av > (unsigned long long)MAX / ac) { *ovf = 1; return 0; }
    }
    long long p = c * v;
    if ((p > 0 && acc > MAX - p) || (p < 0 && acc < -MAX - 1 - p)) { *ovf = 1; return 0; }
    return acc + p;
}

/* ---- faults --------------------------------------------------------------------------------- */

/*
 * The fault record: F[0] = faulting stage + 1 (0: none), F[1] = code, F[2], F[3] = details,
 * F[4] = F[0] again once the details are complete (the control allocation holds 8 words).
 *
 * Which fault wins: the first thread to claim the record, and only that thread writes the
 * details, so the record is always one fault entire (never one thread's code with another's
 * details). Kernels run in stage order and each returns at once while F[0] is set, so the claim
 * comes from the first faulting stage; within that stage, from whichever of its faulting threads
 * claims first (on the GPU unspecified; in host emulation the first in launch order). Stages
 * that graph mode runs concurrently on the side stream (docs/cuda.md, "Graph mode") are the one
 * exception: of two such stages faulting at once, the first to claim wins.
 *
 * The claim is a compare-and-swap of F[0] from 0 to stage + 1; the claimer writes F[1..3], then
 * a fence, then F[4]. The host reads the record after the stream is synchronised; F[4] lets a
 * reader that did not wait tell a claimed record from a complete one.
 */
#define SC_FAULT_INDEX_OUT_OF_RANGE 1
#define SC_FAULT_BLOCK_OUT_OF_BOUNDS 2
#define SC_FAULT_OFFSET_OVERFLOW 3
#define SC_FAULT_DIV_BY_ZERO 4

SC_DEV void sc_fault(long long* F, int stage, int code, long long a, long long b) {
    unsigned long long key = (unsigned long long)stage + 1ull;
#ifdef __CUDACC__
    if (atomicCAS((unsigned long long*)&F[0], 0ull, key) != 0ull) return;
    volatile long long* v = F;
    v[1] = code;
    v[2] = a;
    v[3] = b;
    __threadfence();
    v[4] = (long long)key;
#else
    unsigned long long expected = 0ull;
    if (!__atomic_compare_exchange_n((unsigned long long*)&F[0], &expected, key, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        return;
    }
    __atomic_store_n(&F[1], (long long)code, __ATOMIC_RELAXED);
    __atomic_store_n(&F[2], a, __ATOMIC_RELAXED);
    __atomic_store_n(&F[3], b, __ATOMIC_RELAXED);
    __atomic_store_n(&F[4], (long long)key, __ATOMIC_RELEASE);
#endif
}

#endif
