// core/cpu/blas_kernels.c — the OpenBLAS kernel set for CPUs its run-time detection does not know
// (blas_kernels.h). OpenBLAS built with DYNAMIC_ARCH (Debian's) picks its kernels once, when the
// library loads, from the CPU's family/model; a model newer than the library (0.3.21 on an Intel
// family 6 model 207, Emerald Rapids) falls back to "Prescott", SSE3 kernels: measured on this
// project's 2-core Xeon, sgemm ran at 4 GFLOP/s against 18-20 with OPENBLAS_CORETYPE=SkylakeX.
// The only switch OpenBLAS offers is that environment variable, read at load time, so the fix
// sets it and re-executes the program once, before anything else has run.
#include "blas_kernels.h"
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *blas_better_core(const char *current) {
    static const char *const pre_avx2[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom", "Sandybridge"};
    int old = 0;
    for (size_t i = 0; i < sizeof pre_avx2 / sizeof pre_avx2[0]; i++) old |= !strcmp(current, pre_avx2[i]);
    if (!old) return NULL;
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) return NULL; // the old kernels are right
    // OpenBLAS's SkylakeX kernels use AVX-512 F, CD, BW, DQ and VL; Haswell's AVX2 and FMA.
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl"))
        return "SkylakeX";
    return "Haswell";
}

void blas_pick_kernels(char **argv) {
    if (getenv("OPENBLAS_CORETYPE")) return; // the user's (or our earlier) choice stands: never loops
    const char *better = blas_better_core(openblas_get_corename());
    if (!better) return;
    if (setenv("OPENBLAS_CORETYPE", better, 1) != 0) return; // keep the slower kernels: results are the same kind
    fflush(NULL);
    execv("/proc/self/exe", argv);
    // Only reached when execv failed (no /proc): go on with OpenBLAS's own choice, and say so once.
    fprintf(stderr, "posbench: note: OpenBLAS chose its %s kernels on a CPU that has AVX2; re-running with "
                    "OPENBLAS_CORETYPE=%s failed, so matrix products run slower (set it yourself)\n",
            openblas_get_corename(), better);
    unsetenv("OPENBLAS_CORETYPE");
}
