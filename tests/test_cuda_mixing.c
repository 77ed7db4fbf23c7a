// tests/test_cuda_mixing.c — CPU/GPU parity of the CUDA token-mixing ops
// (core/cuda/mixing_cuda.cu): gMLP's spatial projection along tokens (with and without bias;
// backward into input, W and bias, accumulating) and the gate, at awkward sizes (3 images of 50
// tokens x 37 channels, 1 image of 17 x 5); determinism of the backward (two runs bitwise equal).
// Tolerances (|gpu - cpu| <= atol + rtol·|cpu|): the gate bit for bit (one rounded product,
// __fmul_rn); sgemm results atol max(1e-5, 2e-7·K) for a K-term sum, rtol 1e-4; the bias
// gradient (a sum of B·C terms) atol max(1e-5, 5e-7·B·C).
// Without a usable GPU it prints one SKIP line saying why.
#include "testing.h"
#include "cuda_parity.h"

#ifdef POSBENCH_CUDA
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include <stdio.h>
#include <stdlib.h>

static const ops_backend *cpu = &ops_cpu, *gpu = &ops_cuda;

static double sum_atol(double K, double per) {
    double a = per * K;
    return a > 1e-5 ? a : 1e-5;
}

static void test_token_mix(int B, int T, int C, unsigned tag) {
    size_t n = (size_t)B * T * C, nw = (size_t)T * T;
    float *in = test_rnd(n, -1, 1, tag), *W = test_rnd(nw, -1, 1, tag + 1), *b = test_rnd(T, -1, 1, tag + 2);
    float *dout = test_rnd(n, -1, 1, tag + 3), *din = test_rnd(n, -1, 1, tag + 4), *dW = test_rnd(nw, -1, 1, tag + 5);
    float *db = test_rnd(T, -1, 1, tag + 6), *out = xcalloc(n, sizeof(float), "out");
    float *d_in = parity_upload(in, n), *d_W = parity_upload(W, nw), *d_b = parity_upload(b, T);
    float *d_dout = parity_upload(dout, n), *d_din = parity_upload(din, n), *d_dW = parity_upload(dW, nw);
    float *d_db = parity_upload(db, T), *d_out = cuda_alloc(n * sizeof(float), "out");
    char name[160];
    cpu->token_mix_forward(out, in, W, b, B, T, C);
    gpu->token_mix_forward(d_out, d_in, d_W, d_b, B, T, C);
    snprintf(name, sizeof name, "cuda token mix forward (%d x %d x %d)", B, T, C);
    parity_check(name, out, d_out, n, sum_atol(T, 2e-7), 1e-4);
    cpu->token_mix_forward(out, in, W, NULL, B, T, C);
    gpu->token_mix_forward(d_out, d_in, d_W, NULL, B, T, C);
    snprintf(name, sizeof name, "cuda token mix forward, no bias (%d x %d x %d)", B, T, C);
    parity_check(name, out, d_out, n, sum_atol(T, 2e-7), 1e-4);
    cpu->token_mix_backward(din, dW, db, dout, in, W, B, T, C);
    gpu->token_mix_backward(d_din, d_dW, d_db, d_dout, d_in, d_W, B, T, C);
    snprintf(name, sizeof name, "cuda token mix backward input, accumulating (%d x %d x %d)", B, T, C);
    parity_check(name, din, d_din, n, sum_atol(T, 2e-7), 1e-4);
    snprintf(name, sizeof name, "cuda token mix backward W, accumulating (%d x %d x %d)", B, T, C);
    parity_check(name, dW, d_dW, nw, sum_atol((double)B * C, 2e-7), 1e-4);
    snprintf(name, sizeof name, "cuda token mix backward bias, accumulating (%d x %d x %d)", B, T, C);
    parity_check(name, db, d_db, T, sum_atol((double)B * C, 5e-7), 1e-4);
    // Determinism: a second backward from the same state into fresh copies gives the same bits.
    float *d_dW2 = parity_upload(dW, nw), *d_dW3 = parity_upload(dW, nw);
    gpu->token_mix_backward(NULL, d_dW2, NULL, d_dout, d_in, d_W, B, T, C);
    gpu->token_mix_backward(NULL, d_dW3, NULL, d_dout, d_in, d_W, B, T, C);
    snprintf(name, sizeof name, "cuda token mix backward W deterministic (%d x %d x %d)", B, T, C);
    parity_check_identical(name, d_dW2, d_dW3, nw);
    free(in); free(W); free(b); free(dout); free(din); free(dW); free(db); free(out);
    cuda_free(d_in); cuda_free(d_W); cuda_free(d_b); cuda_free(d_dout); cuda_free(d_din); cuda_free(d_dW);
    cuda_free(d_db); cuda_free(d_out); cuda_free(d_dW2); cuda_free(d_dW3);
}

static void test_gate(size_t n, unsigned tag) {
    float *a = test_rnd(n, -2, 2, tag), *g = test_rnd(n, -2, 2, tag + 1), *dout = test_rnd(n, -1, 1, tag + 2);
    float *da = test_rnd(n, -1, 1, tag + 3), *dg = test_rnd(n, -1, 1, tag + 4), *out = xcalloc(n, sizeof(float), "out");
    float *d_a = parity_upload(a, n), *d_g = parity_upload(g, n), *d_dout = parity_upload(dout, n);
    float *d_da = parity_upload(da, n), *d_dg = parity_upload(dg, n), *d_out = cuda_alloc(n * sizeof(float), "out");
    cpu->gate_forward(out, a, g, n);
    gpu->gate_forward(d_out, d_a, d_g, n);
    parity_check("cuda gate forward (bit for bit)", out, d_out, n, 0, 0);
    cpu->gate_backward(da, dg, dout, a, g, n);
    gpu->gate_backward(d_da, d_dg, d_dout, d_a, d_g, n);
    parity_check("cuda gate backward a, accumulating (bit for bit)", da, d_da, n, 0, 0);
    parity_check("cuda gate backward g, accumulating (bit for bit)", dg, d_dg, n, 0, 0);
    free(a); free(g); free(dout); free(da); free(dg); free(out);
    cuda_free(d_a); cuda_free(d_g); cuda_free(d_dout); cuda_free(d_da); cuda_free(d_dg); cuda_free(d_out);
}

int main(void) {
    if (!parity_gpu_or_skip("cuda mixing ops")) return 0;
    printf("# GPU: %s\n", cuda_device_name());
    test_token_mix(3, 50, 37, 100);
    test_token_mix(1, 17, 5, 200);
    test_gate(10007, 300);
    cuda_sync();
    return test_exit_code();
}

#else // no CUDA backend in this build

int main(void) {
    test_skip("cuda mixing ops", "this build has no CUDA backend");
    return 0;
}

#endif
