// tests/test_cuda_simclr.c — CPU/GPU parity of SimCLR's ops: NT-Xent (losses_cuda.cu
// ntxent_forward / ntxent_backward) and ReLU (dense_cuda.cu relu_forward / relu_backward).
// Each check runs the CPU op (ops_cpu) on host buffers and the CUDA op (ops_cuda) on device
// copies of the same inputs and compares every output; gradient buffers start nonzero on both
// sides, so the "+=" contract is checked too. Sizes are awkward on purpose (N = 2·37 views,
// D = 45; N = 2·300 views, more than a block of threads). The kernels sum in the CPU's order
// (serial loops in double), so only expf / log differ: tolerances atol 1e-6, rtol 1e-5;
// ReLU is exact (bit for bit); a second GPU run gives the same bits (determinism).
#include "testing.h"
#include "cuda_parity.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include <stdio.h>
#include <stdlib.h>

static const ops_backend *cpu = &ops_cpu, *gpu = &ops_cuda;

static void test_ntxent(int N, int D, float tau, unsigned tag) {
    size_t nz = (size_t)N * D, np = (size_t)N * N;
    float *z = test_rnd(nz, -1, 1, tag), *dz = test_rnd(nz, -1, 1, tag + 1);
    float *zn = test_zeros(nz), *probs = test_zeros(np), *loss = test_zeros((size_t)N);
    float *d_z = parity_upload(z, nz), *d_dz = parity_upload(dz, nz), *d_dz2 = parity_upload(dz, nz);
    float *d_zn = cuda_alloc(nz * sizeof(float), "zn"), *d_probs = cuda_alloc(np * sizeof(float), "probs");
    float *d_loss = cuda_alloc((size_t)N * sizeof(float), "loss"), *d_loss2 = cuda_alloc((size_t)N * sizeof(float), "loss");
    cpu->ntxent_forward(loss, zn, probs, z, N, D, tau);
    gpu->ntxent_forward(d_loss, d_zn, d_probs, d_z, N, D, tau);
    char name[160];
    snprintf(name, sizeof name, "cuda ntxent forward: normalised rows (N %d, D %d)", N, D);
    parity_check(name, zn, d_zn, nz, 1e-6, 1e-5);
    snprintf(name, sizeof name, "cuda ntxent forward: softmax over the other views (N %d, tau %g)", N, tau);
    parity_check(name, probs, d_probs, np, 1e-6, 1e-5);
    snprintf(name, sizeof name, "cuda ntxent forward: per-view loss (N %d)", N);
    parity_check(name, loss, d_loss, (size_t)N, 1e-6, 1e-5);
    cpu->ntxent_backward(dz, z, zn, probs, N, D, tau, 1.0f / N);
    gpu->ntxent_backward(d_dz, d_z, d_zn, d_probs, N, D, tau, 1.0f / N);
    snprintf(name, sizeof name, "cuda ntxent backward, accumulating (N %d, D %d)", N, D);
    parity_check(name, dz, d_dz, nz, 1e-6, 1e-5);
    gpu->ntxent_forward(d_loss2, d_zn, d_probs, d_z, N, D, tau);
    gpu->ntxent_backward(d_dz2, d_z, d_zn, d_probs, N, D, tau, 1.0f / N);
    snprintf(name, sizeof name, "cuda ntxent deterministic: loss (N %d)", N);
    parity_check_identical(name, d_loss, d_loss2, (size_t)N);
    snprintf(name, sizeof name, "cuda ntxent deterministic: gradient (N %d)", N);
    parity_check_identical(name, d_dz, d_dz2, nz);
    free(z), free(dz), free(zn), free(probs), free(loss);
    cuda_free(d_z), cuda_free(d_dz), cuda_free(d_dz2), cuda_free(d_zn), cuda_free(d_probs), cuda_free(d_loss);
    cuda_free(d_loss2);
}

static void test_relu(void) {
    size_t n = 100003;
    float *x = test_rnd(n, -1, 1, 90), *y = test_zeros(n), *dy = test_rnd(n, -1, 1, 91), *dx = test_rnd(n, -1, 1, 92);
    float *d_x = parity_upload(x, n), *d_y = cuda_alloc(n * sizeof(float), "relu out");
    float *d_dy = parity_upload(dy, n), *d_dx = parity_upload(dx, n);
    cpu->relu_forward(y, x, n);
    gpu->relu_forward(d_y, d_x, n);
    parity_check("cuda relu forward (100003)", y, d_y, n, 0, 0);
    cpu->relu_backward(dx, dy, x, n);
    gpu->relu_backward(d_dx, d_dy, d_x, n);
    parity_check("cuda relu backward, accumulating (100003)", dx, d_dx, n, 0, 0);
    free(x), free(y), free(dy), free(dx);
    cuda_free(d_x), cuda_free(d_y), cuda_free(d_dy), cuda_free(d_dx);
}

int main(void) {
    if (!parity_gpu_or_skip("cuda simclr ops")) return 0;
    printf("# GPU: %s\n", cuda_device_name());
    test_relu();
    test_ntxent(74, 45, 0.1f, 80);
    test_ntxent(600, 64, 0.5f, 82);
    return test_exit_code();
}
