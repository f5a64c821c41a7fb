/*
 * kernels_isa.h - TNGRT_ISA_KERNEL, the way kernels.c and the
 * kernels_<family>.c files define a libtngcrt kernel: one instantiation per
 * instruction set, picked once at load time. Private to libtngcrt.
 */
#ifndef TNGRT_KERNELS_ISA_H
#define TNGRT_KERNELS_ISA_H

/* The compute-heavy kernels are compiled three times, for AVX-512, AVX2 and
 * baseline x86-64, and the dynamic loader picks the widest the CPU has (an
 * ifunc, resolved once): the library stays portable while its float loops
 * vectorise 16 or 8 wide instead of 4. The Makefile turns FP contraction
 * off for the runtime, so no clone forms an FMA and all round alike: results
 * do not depend on the machine. (Clang 14's target_clones cannot be used:
 * it leaves the dispatcher under a suffixed name other files cannot call.)
 *
 * TNGRT_ISA_KERNEL(RET, NAME, (PARAMS), BODY...) defines NAME that way;
 * without x86-64 and GNU C, or with TNGRT_NO_ISA, a plain definition.
 *
 * The resolver runs while the dynamic loader relocates the program, before
 * a sanitizer's runtime has set up its shadow memory: it must not be
 * instrumented (an ASan check of __cpu_model there is a segfault before
 * main, make check SANITIZE=1). */
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__)) && !defined(TNGRT_NO_ISA)
#define TNGRT_ISA_KERNEL(ret, name, params, ...)                                        \
    __attribute__((target("avx512f"))) static ret name##__avx512 params { __VA_ARGS__ } \
    __attribute__((target("avx2"))) static ret name##__avx2 params { __VA_ARGS__ }      \
    static ret name##__base params { __VA_ARGS__ }                                      \
    __attribute__((used, no_sanitize("address", "undefined")))                         \
    static __typeof__(name##__base) *name##__resolve(void)                              \
    {                                                                                   \
        __builtin_cpu_init();                                                           \
        if (__builtin_cpu_supports("avx512f"))                                          \
            return name##__avx512;                                                      \
        if (__builtin_cpu_supports("avx2"))                                             \
            return name##__avx2;                                                        \
        return name##__base;                                                            \
    }                                                                                   \
    ret name params __attribute__((ifunc(#name "__resolve")));
#else
#define TNGRT_ISA_KERNEL(ret, name, params, ...) \
    ret name params { __VA_ARGS__ }
#endif

#endif
