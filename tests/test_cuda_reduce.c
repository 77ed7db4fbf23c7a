// tests/test_cuda_reduce.c — CPU/GPU parity of the CUDA reductions and memory calls
// (core/cuda/reduce_cuda.cu, core/cuda/memory_cuda.cu against core/cpu/reduce_cpu.c,
// core/cpu/memory_cpu.c), through the op tables ops_cpu / ops_cuda.
//   sum: |gpu - cpu| <= 1e-12·Σ|x| (both sum exact float values in double, in different fixed
//        orders), and two GPU sums of the same data are bitwise equal; n = 0 gives 0;
//   class_rank, argmax_rows: the same integers as the CPU on rows with many ties (logits on a
//        coarse grid) and rows holding NaN / ±Inf (rank K); awkward N (not a block multiple);
//   memory: alloc is zeroed, upload -> copy -> download returns the bytes, zero clears exactly
//        n floats, free(NULL) and synchronize return; an upload from a pinned host buffer
//        (pin_host) and a download into it return the bytes, and unpin_host releases it (also
//        an unaligned start inside a larger buffer, and unpin of a buffer never pinned).
// Without a usable GPU (or without the CUDA backend) the program prints one SKIP line.
#include "testing.h"
#include <stdio.h>

#ifdef POSBENCH_CUDA
#include "cuda_parity.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ops_backend *cpu = &ops_cpu, *gpu = &ops_cuda;

static float *rnd(size_t n, float lo, float hi, unsigned tag) {
    float *x = xmalloc(n * sizeof(float) + 1, "test tensor");
    test_fill_uniform(x, n, lo, hi, tag);
    return x;
}

// ---------------------------------------------------------------- sum
static void test_sum(size_t n, unsigned tag) {
    float *x = rnd(n, -2.0f, 3.0f, tag);
    float *d_x = parity_upload(x, n);
    double ref = cpu->sum(x, n), got = gpu->sum(d_x, n), again = gpu->sum(d_x, n);
    double mag = 0.0;
    for (size_t i = 0; i < n; i++) mag += fabs((double)x[i]);
    char name[96];
    snprintf(name, sizeof name, "cuda sum parity (n = %zu)", n);
    test_check(name, fabs(got - ref) <= 1e-12 * mag, "gpu %.17g cpu %.17g (|d| %.3g, bound %.3g)",
               got, ref, fabs(got - ref), 1e-12 * mag);
    snprintf(name, sizeof name, "cuda sum deterministic (n = %zu)", n);
    test_check(name, memcmp(&got, &again, sizeof got) == 0, "%.17g vs %.17g", got, again);
    cuda_free(d_x);
    free(x);
}

static void test_sum_empty(void) {
    float *d = cuda_alloc(sizeof(float), "empty");
    double s = gpu->sum(d, 0);
    test_check("cuda sum of nothing is 0", s == 0.0, "got %g", s);
    cuda_free(d);
}

// ---------------------------------------------------------------- class_rank, argmax_rows
static int *download_int(const int *dev, int n) {
    int *h = xmalloc((size_t)n * sizeof(int) + 1, "test ints");
    cuda_to_host(h, dev, (size_t)n * sizeof(int));
    return h;
}

static int count_differences(const int *a, const int *b, int n, int *first) {
    int diff = 0;
    *first = -1;
    for (int i = 0; i < n; i++)
        if (a[i] != b[i]) {
            if (*first < 0) *first = i;
            diff++;
        }
    return diff;
}

static void test_rank_argmax(int N, int K, unsigned tag) {
    size_t n = (size_t)N * K;
    float *z = rnd(n, 0.0f, 5.0f, tag);
    for (size_t i = 0; i < n; i++) z[i] = floorf(z[i]); // values 0..4: ties in every row
    int *target = xmalloc((size_t)N * sizeof(int), "targets");
    for (int r = 0; r < N; r++) {
        target[r] = (r * 5 + 3) % K;
        if (r % 11 == 4) z[(size_t)r * K + (r * 3) % K] = NAN; // a NaN somewhere in the row
        if (r % 13 == 6) z[(size_t)r * K + (r * 7) % K] = (r % 2) ? INFINITY : -INFINITY;
    }
    float *d_z = parity_upload(z, n);
    int *d_t = parity_upload_int(target, (size_t)N);
    int *d_rank = cuda_alloc((size_t)N * sizeof(int), "ranks"), *d_arg = cuda_alloc((size_t)N * sizeof(int), "argmax");
    int *rank = xmalloc((size_t)N * sizeof(int), "ranks"), *arg = xmalloc((size_t)N * sizeof(int), "argmax");
    cpu->class_rank(rank, z, target, N, K);
    cpu->argmax_rows(arg, z, N, K);
    gpu->class_rank(d_rank, d_z, d_t, N, K);
    gpu->argmax_rows(d_arg, d_z, N, K);
    int *g_rank = download_int(d_rank, N), *g_arg = download_int(d_arg, N);

    int nonfinite = 0, tied_top = 0;
    for (int r = 0; r < N; r++) {
        nonfinite += rank[r] == K;
        const float *row = z + (size_t)r * K;
        for (int k = arg[r] + 1; k < K; k++) tied_top += row[k] == row[arg[r]];
    }
    int first, diff = count_differences(rank, g_rank, N, &first);
    char name[96];
    snprintf(name, sizeof name, "cuda class_rank parity (%d x %d)", N, K);
    test_check(name, diff == 0 && nonfinite > 0,
               "%d of %d rows differ (first %d: gpu %d cpu %d); %d non-finite rows", diff, N, first,
               first >= 0 ? g_rank[first] : 0, first >= 0 ? rank[first] : 0, nonfinite);
    diff = count_differences(arg, g_arg, N, &first);
    snprintf(name, sizeof name, "cuda argmax_rows parity (%d x %d)", N, K);
    test_check(name, diff == 0 && tied_top > 0,
               "%d of %d rows differ (first %d: gpu %d cpu %d); %d ties at the maximum", diff, N,
               first, first >= 0 ? g_arg[first] : 0, first >= 0 ? arg[first] : 0, tied_top);
    cuda_free(d_z); cuda_free(d_t); cuda_free(d_rank); cuda_free(d_arg);
    free(z); free(target); free(rank); free(arg); free(g_rank); free(g_arg);
}

// ---------------------------------------------------------------- memory
static void test_memory(void) {
    size_t n = 100003;
    float *a = gpu->alloc(n * sizeof(float), "test arena"), *b = gpu->alloc(n * sizeof(float), "test arena");
    float *zero = xcalloc(n, sizeof(float), "zeros");
    parity_check("cuda alloc: zeroed", zero, a, n, 0.0, 0.0);

    float *host = rnd(n, -1.0f, 1.0f, 9100);
    float *back = xcalloc(n, sizeof(float), "download");
    gpu->upload(a, host, n * sizeof(float));
    gpu->copy(b, a, n * sizeof(float));
    gpu->copy(b, b, n * sizeof(float)); // same range: nothing to do
    gpu->copy(b, a, 0);
    gpu->download(back, b, n * sizeof(float));
    test_check("cuda upload, copy, download round trip", memcmp(host, back, n * sizeof(float)) == 0,
               "%zu floats", n);

    gpu->zero(b, n - 3); // the last 3 keep their values
    gpu->synchronize();
    memset(back, 0xff, n * sizeof(float));
    gpu->download(back, b, n * sizeof(float));
    int ok = 1;
    for (size_t i = 0; i < n; i++) ok &= i < n - 3 ? back[i] == 0.0f : back[i] == host[i];
    test_check("cuda zero clears exactly n floats", ok, "n %zu of %zu", n - 3, n);

    gpu->free(a);
    gpu->free(b);
    gpu->free(NULL);
    gpu->synchronize();
    test_pass("cuda free, free(NULL), synchronize return", "ok");
    free(zero); free(host); free(back);
}

// Uploads from and downloads into page-locked host memory (the model's input staging buffer).
static void test_pinned(size_t n, size_t start) {
    float *buf = rnd(n + start, -1.0f, 1.0f, 9200), *host = buf + start;
    float *keep = xmalloc(n * sizeof(float), "copy");
    memcpy(keep, host, n * sizeof(float));
    float *d = gpu->alloc(n * sizeof(float), "pinned test");
    gpu->pin_host(host, n * sizeof(float));
    gpu->upload(d, host, n * sizeof(float));
    memset(host, 0, n * sizeof(float));
    gpu->download(host, d, n * sizeof(float));
    char name[160];
    snprintf(name, sizeof name, "cuda upload from / download into a pinned host buffer (%zu floats at +%zu)", n, start);
    test_check(name, memcmp(host, keep, n * sizeof(float)) == 0, "bytes differ after the round trip");
    gpu->unpin_host(host);
    gpu->unpin_host(keep); // never pinned: nothing to undo
    gpu->upload(d, keep, n * sizeof(float)); // pageable again
    gpu->download(host, d, n * sizeof(float));
    snprintf(name, sizeof name, "cuda upload after unpin_host (%zu floats)", n);
    test_check(name, memcmp(host, keep, n * sizeof(float)) == 0, "bytes differ");
    gpu->free(d);
    free(buf); free(keep);
}

int main(void) {
    if (!parity_gpu_or_skip("cuda reductions and memory")) return 0;
    test_sum(5, 9000);
    test_sum(1000003, 9001);
    test_sum(257, 9002); // two blocks, the second holding one element
    test_sum_empty();
    test_rank_argmax(37, 19, 9010);
    test_rank_argmax(1000, 10, 9011);
    test_rank_argmax(4099, 64, 9012);
    test_memory();
    test_pinned(1000003, 0);
    test_pinned(77, 3);
    cuda_sync();
    return test_exit_code();
}

#else // no CUDA backend in this build

int main(void) {
    test_skip("cuda reductions and memory", "this build has no CUDA backend");
    return 0;
}

#endif
