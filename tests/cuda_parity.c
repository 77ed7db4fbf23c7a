// tests/cuda_parity.c — see cuda_parity.h.
#include "cuda_parity.h"
#include "testing.h"
#include "../core/common.h"
#include "../core/ops_cuda.h"
#include "../core/device.h"
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

// A new host array (free with free()) holding n floats of a device array.
static float *parity_download(const float *dev, size_t n) {
    float *h = xmalloc(n * sizeof(float) + 1, "parity output");
    cuda_to_host(h, dev, n * sizeof(float));
    return h;
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
