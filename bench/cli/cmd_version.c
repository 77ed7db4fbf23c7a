// bench/cli/cmd_version.c — `posbench --version`: the version and commit (bench/version.h,
// build/git_commit.c), the compiler, OpenBLAS's build configuration, HDF5, MPI, the CUDA
// toolkit, runtime, driver, cuBLAS and the cuDNN attention route (core/cuda_version.h), the CPU and the
// instruction-set features it has and this build was compiled for. One "key: value" line each,
// so scripts can grep it and bug reports can paste it.
#include "cmd_version.h"
#include "../results/machine.h"
#include "../version.h"
#include "../../core/cuda_version.h"
#include "../../core/cpu/blas_kernels.h"
#include <cblas.h>
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// The features __builtin_cpu_supports knows that matter for the CPU kernels (OpenBLAS picks its
// own kernels at run time; DYNAMIC_ARCH in its config).
static void cpu_features(char *out, size_t len) {
    static const char *const names[] = {"sse4.2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512vnni"};
    int have[sizeof names / sizeof names[0]] = {0};
    __builtin_cpu_init();
    have[0] = __builtin_cpu_supports("sse4.2"), have[1] = __builtin_cpu_supports("avx");
    have[2] = __builtin_cpu_supports("avx2"), have[3] = __builtin_cpu_supports("fma");
    have[4] = __builtin_cpu_supports("avx512f"), have[5] = __builtin_cpu_supports("avx512bw");
    have[6] = __builtin_cpu_supports("avx512vl"), have[7] = __builtin_cpu_supports("avx512vnni");
    size_t used = 0;
    out[0] = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (have[i] && used < len) used += (size_t)snprintf(out + used, len - used, "%s%s", used ? " " : "", names[i]);
    if (!out[0]) snprintf(out, len, "none of sse4.2 avx avx2 fma avx512f");
}

// What the C code was compiled for: the baseline, or -march=native's features (make NATIVE=1).
static const char *compiled_for(void) {
#if defined(__AVX512F__)
    return "avx512f (make NATIVE=1)";
#elif defined(__AVX2__)
    return "avx2 (make NATIVE=1)";
#else
    return "x86-64 baseline (OpenBLAS chooses its kernels for this CPU at run time)";
#endif
}

// A note when OpenBLAS runs kernels older than the CPU: its run-time detection does not know
// every CPU (OpenBLAS 0.3.21 picks Prescott, SSE3, on some AVX-512 Xeons under a hypervisor;
// measured there: 4 vs 18-20 GFLOP/s for the run estimate's sgemm at 1 thread with
// OPENBLAS_CORETYPE=SkylakeX). NULL when the core is not one of those pre-AVX2 ones or the CPU
// has no AVX2.
// A note when OpenBLAS runs pre-AVX2 kernels on a CPU with AVX2 (blas_pick_kernels in main
// switches them unless OPENBLAS_CORETYPE was set by hand).
static const char *blas_note(const char *core, char *buf, size_t len) {
    const char *better = blas_better_core(core);
    if (!better) return NULL;
    snprintf(buf, len, "OpenBLAS runs its %s (pre-AVX2) kernels on a CPU with AVX2 because OPENBLAS_CORETYPE=%s was set; "
             "unset it (posbench then picks %s) or set it to %s for faster matrix products", core,
             getenv("OPENBLAS_CORETYPE") ? getenv("OPENBLAS_CORETYPE") : "", better, better);
    return buf;
}

int cmd_version(void) {
    char cpu[256], features[256], cuda[2048];
    machine_cpu_model(cpu, sizeof cpu);
    cpu_features(features, sizeof features);
    cuda_version_text(cuda, sizeof cuda);
    unsigned maj = 0, min = 0, rel = 0;
    char hdf5[64] = "unknown";
    if (H5get_libversion(&maj, &min, &rel) >= 0) snprintf(hdf5, sizeof hdf5, "%u.%u.%u", maj, min, rel);
    printf("posbench %s\n", POSBENCH_VERSION);
    printf("commit: %s\n", posbench_git_commit);
#if defined(__clang__)
    const char *cc = "clang";
#elif defined(__GNUC__)
    const char *cc = "gcc";
#else
    const char *cc = "cc";
#endif
#ifdef _OPENMP
    const int openmp = _OPENMP;
#else
    const int openmp = 0;
#endif
    printf("compiler: %s %s, C%ld, OpenMP %d\n", cc, __VERSION__, (long)(__STDC_VERSION__ / 100 % 100), openmp);
    char note_text[320];
    const char *core = openblas_get_corename(), *note = blas_note(core, note_text, sizeof note_text);
    printf("blas: %s (core %s)\n", openblas_get_config(), core);
    if (note) printf("blas_note: %s\n", note);
    printf("hdf5: %s\n", hdf5);
#ifdef POSBENCH_MPI
    printf("mpi: built in (one run across processes)\n");
#else
    printf("mpi: not built\n");
#endif
    fputs(cuda, stdout);
    printf("cpu: %s, %ld cores online\n", cpu, sysconf(_SC_NPROCESSORS_ONLN));
    printf("cpu_features: %s\n", features);
    printf("compiled_for: %s\n", compiled_for());
    return 0;
}
