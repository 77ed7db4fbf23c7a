// tests/cuda_parity.c — see cuda_parity.h.
#include "cuda_parity.h"
#include "testing.h"
#include "../core/common.h"
#include "../core/ops_cuda.h"
#include "../core/device.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int parity_gpu_or_skip(const char *program) {
    char why[256];
    if (cuda_usable(why, sizeof why)) {
        device_cuda_switches_from_env(); // POSBENCH_STREAM=own etc.: the routes the caller chose
        return 1;
    }
    test_skip(program, "%s", why);
    return 0;
}

float *parity_upload(const float *host, size_t n) {
    float *d = cuda_alloc(n * sizeof(float), "parity input");
    cuda_to_device(d, host, n * sizeof(float));
    return d;
}

int *parity_upload_int(const int *host, size_t n) {
    int *d = cuda_alloc(n * sizeof(int), "parity index");
    cuda_to_device(d, host, n * sizeof(int));
    return d;
}

float *parity_download(const float *dev, size_t n) {
    float *h = xmalloc(n * sizeof(float) + 1, "parity output");
    cuda_to_host(h, dev, n * sizeof(float));
    return h;
}

int parity_check(const char *name, const float *ref, const float *got_dev, size_t n, double atol,
                 double rtol) {
    float *got = parity_download(got_dev, n);
    size_t worst = 0, bad = 0;
    double worst_excess = -INFINITY, max_abs = 0;
    for (size_t i = 0; i < n; i++) {
        double diff = fabs((double)got[i] - (double)ref[i]);
        double excess = diff - (atol + rtol * fabs((double)ref[i]));
        if (!(excess <= 0)) bad++; // NaN counts as bad
        if (diff > max_abs || isnan(diff)) max_abs = isnan(diff) ? NAN : diff;
        if (excess > worst_excess || isnan(excess)) { worst_excess = excess; worst = i; }
    }
    int ok = bad == 0;
    if (n == 0)
        test_check(name, 1, "empty");
    else
        test_check(name, ok, "%zu elements, %zu outside |d| <= %.1e + %.1e|ref|; max |d| %.3g; worst [%zu] gpu %.9g cpu %.9g",
                   n, bad, atol, rtol, max_abs, worst, got[worst], ref[worst]);
    free(got);
    return ok;
}

int parity_check_identical(const char *name, const float *a_dev, const float *b_dev, size_t n) {
    float *a = parity_download(a_dev, n), *b = parity_download(b_dev, n);
    size_t differ = 0;
    for (size_t i = 0; i < n; i++) differ += memcmp(a + i, b + i, sizeof(float)) != 0;
    int ok = differ == 0;
    test_check(name, ok, "%zu of %zu elements differ bitwise", differ, n);
    free(a); free(b);
    return ok;
}
