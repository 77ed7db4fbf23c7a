// tests/test_cuda_kernels_v2.c — the CUDA backend's vectorised elementwise kernels
// (POSBENCH_KERNELS=v2, core/cuda/dense_vec_cuda.cu, optim_cuda.cu's one-launch AdamW) against
// the scalar v1 kernels and the CPU ops. Elementwise ops (GELU forward/backward, residual with
// and without drop path, the bf16 operand conversion seen through a bf16 product, AdamW) and
// the column sums (bias and LayerNorm parameter gradients: the same order per column) must be
// bit for bit v1's; LayerNorm's row statistics sum in another fixed order, so its outputs match
// the CPU within the reduction tolerance of tests/parity/cases_dense.c and themselves bitwise run to run.
// Sizes with n mod 4 and n mod 8 != 0 and arrays at 4-, 8- and 12-byte offsets, including
// arrays offset differently from each other (the scalar fallback). SKIP without a GPU.
#include "testing.h"
#include "cuda_parity.h"

#ifdef POSBENCH_CUDA
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include "../core/rng.h"
#include <stdio.h>
#include <stdlib.h>

#define ATOL_EW 1e-6
#define RTOL_EW 1e-5

static const ops_backend *cpu = &ops_cpu, *gpu = &ops_cuda;

// Device copies of host (n) at `off` floats past an allocation's start; bases freed by free_all.
static float *bases[64];
static int nbases;
static float *dev_at(const float *host, size_t n, int off) {
    float *b = cuda_alloc((n + (size_t)off) * sizeof(float), "v2 operand");
    if (host) cuda_to_device(b + off, host, n * sizeof(float));
    if (nbases == 64) die_fail("test: too many buffers");
    bases[nbases++] = b;
    return b + off;
}
static void free_all(void) {
    for (int i = 0; i < nbases; i++) cuda_free(bases[i]);
    nbases = 0;
}

// GELU forward and backward (accumulating) at offsets (o_out, o_in): v2 == v1 bitwise, v2 ~ CPU.
static void test_gelu(size_t n, int o_out, int o_in) {
    float *in = test_rnd(n, -4, 4, 10), *dout = test_rnd(n, -1, 1, 11), *din = test_rnd(n, -1, 1, 12);
    float *out = test_zeros(n);
    float *d_in = dev_at(in, n, o_in), *d_dout = dev_at(dout, n, o_in);
    float *d1 = dev_at(NULL, n, o_out), *d2 = dev_at(NULL, n, o_out);
    float *g1 = dev_at(din, n, o_out), *g2 = dev_at(din, n, o_out);
    cuda_set_kernels(CUDA_KERNELS_V1);
    gpu->gelu_forward(d1, d_in, n);
    gpu->gelu_backward(g1, d_dout, d_in, n);
    cuda_set_kernels(CUDA_KERNELS_V2);
    gpu->gelu_forward(d2, d_in, n);
    gpu->gelu_backward(g2, d_dout, d_in, n);
    cpu->gelu_forward(out, in, n);
    cpu->gelu_backward(din, dout, in, n);
    char name[160];
    snprintf(name, sizeof name, "cuda v2 gelu forward bitwise v1 (%zu, offsets %d/%d)", n, o_out, o_in);
    parity_check_identical(name, d1, d2, n);
    snprintf(name, sizeof name, "cuda v2 gelu backward bitwise v1 (%zu, offsets %d/%d)", n, o_out, o_in);
    parity_check_identical(name, g1, g2, n);
    snprintf(name, sizeof name, "cuda v2 gelu forward vs cpu (%zu, offsets %d/%d)", n, o_out, o_in);
    parity_check(name, out, d2, n, ATOL_EW, RTOL_EW);
    snprintf(name, sizeof name, "cuda v2 gelu backward vs cpu, accumulating (%zu, offsets %d/%d)", n, o_out, o_in);
    parity_check(name, din, g2, n, ATOL_EW, RTOL_EW);
    free(in); free(dout); free(din); free(out);
    free_all();
}

// Residual forward and backward with drop path scales (or none), B samples of S: v2 == v1
// bitwise and == CPU bitwise (the CPU's products are rounded as __fmul_rn).
static void test_residual(int B, size_t S, int keep, int off) {
    size_t n = (size_t)B * S;
    rng_addr a = {.seed = 42, .purpose = RNG_DROPPATH, .epoch = 3, .step = 17, .index = 5};
    float *ks = xcalloc((size_t)B, sizeof(float), "keep");
    cpu->drop_path_scales(ks, B, 0.5f, a);
    float *x = test_rnd(n, -1, 1, 20), *br = test_rnd(n, -1, 1, 21), *dout = test_rnd(n, -1, 1, 22);
    float *dx = test_rnd(n, -1, 1, 23), *dbr = test_rnd(n, -1, 1, 24), *out = test_zeros(n);
    float *d_ks = keep ? dev_at(ks, (size_t)B, 0) : NULL, *kh = keep ? ks : NULL;
    float *d_x = dev_at(x, n, off), *d_br = dev_at(br, n, off), *d_dout = dev_at(dout, n, off);
    float *o[2], *gx[2], *gb[2];
    for (int v = 0; v < 2; v++) {
        o[v] = dev_at(NULL, n, off);
        gx[v] = dev_at(dx, n, off);
        gb[v] = dev_at(dbr, n, off);
        cuda_set_kernels(v ? CUDA_KERNELS_V2 : CUDA_KERNELS_V1);
        gpu->residual_forward(o[v], d_x, d_br, d_ks, B, S);
        gpu->residual_backward(gx[v], gb[v], d_dout, d_ks, B, S);
    }
    cpu->residual_forward(out, x, br, kh, B, S);
    cpu->residual_backward(dx, dbr, dout, kh, B, S);
    char name[200];
    const char *what = keep ? "with drop path" : "plain";
    snprintf(name, sizeof name, "cuda v2 residual forward %s bitwise v1 (%dx%zu, offset %d)", what, B, S, off);
    parity_check_identical(name, o[0], o[1], n);
    snprintf(name, sizeof name, "cuda v2 residual backward x %s bitwise v1 (%dx%zu, offset %d)", what, B, S, off);
    parity_check_identical(name, gx[0], gx[1], n);
    snprintf(name, sizeof name, "cuda v2 residual backward branch %s bitwise v1 (%dx%zu, offset %d)", what, B, S, off);
    parity_check_identical(name, gb[0], gb[1], n);
    snprintf(name, sizeof name, "cuda v2 residual forward %s bitwise cpu (%dx%zu, offset %d)", what, B, S, off);
    parity_check(name, out, o[1], n, 0, 0);
    snprintf(name, sizeof name, "cuda v2 residual backward branch %s bitwise cpu (%dx%zu, offset %d)", what, B, S, off);
    parity_check(name, dbr, gb[1], n, 0, 0);
    free(ks); free(x); free(br); free(dout); free(dx); free(dbr); free(out);
    free_all();
}

// LayerNorm forward and backward: v2 against the CPU (reduction tolerances), bitwise run to
// run; the parameter gradients (column sums) bitwise v1.
static void test_layernorm(int N, int C, int off) {
    size_t n = (size_t)N * C;
    float *in = test_rnd(n, -2, 2, 30), *w = test_rnd((size_t)C, 0.5f, 1.5f, 31), *b = test_rnd((size_t)C, -1, 1, 32);
    float *dout = test_rnd(n, -1, 1, 33), *din = test_rnd(n, -1, 1, 34), *dw = test_rnd((size_t)C, -1, 1, 35);
    float *db = test_rnd((size_t)C, -1, 1, 36), *out = test_zeros(n), *mean = test_zeros((size_t)N), *rstd = test_zeros((size_t)N);
    float *d_in = dev_at(in, n, off), *d_w = dev_at(w, (size_t)C, 0), *d_b = dev_at(b, (size_t)C, 0);
    float *d_dout = dev_at(dout, n, off), *d_mean = dev_at(NULL, (size_t)N, 0), *d_rstd = dev_at(NULL, (size_t)N, 0);
    float *o[2], *gi[2], *gw[2], *gb[2];
    cuda_set_kernels(CUDA_KERNELS_V2);
    for (int r = 0; r < 2; r++) { // v2 twice
        o[r] = dev_at(NULL, n, off);
        gi[r] = dev_at(din, n, off);
        gpu->layernorm_forward(o[r], d_mean, d_rstd, d_in, d_w, d_b, N, C);
        gpu->layernorm_backward(gi[r], NULL, NULL, d_dout, d_in, d_w, d_mean, d_rstd, N, C);
    }
    for (int v = 0; v < 2; v++) { // parameter gradients from the same mean/rstd under v2 and v1
        cuda_set_kernels(v ? CUDA_KERNELS_V1 : CUDA_KERNELS_V2);
        gw[v] = dev_at(dw, (size_t)C, 0);
        gb[v] = dev_at(db, (size_t)C, 0);
        gpu->layernorm_backward(NULL, gw[v], gb[v], d_dout, d_in, d_w, d_mean, d_rstd, N, C);
    }
    cpu->layernorm_forward(out, mean, rstd, in, w, b, N, C);
    cpu->layernorm_backward(din, dw, db, dout, in, w, mean, rstd, N, C);
    double sum_atol = 5e-7 * N > 1e-5 ? 5e-7 * N : 1e-5;
    char name[200];
    snprintf(name, sizeof name, "cuda v2 layernorm forward vs cpu (%dx%d, offset %d)", N, C, off);
    parity_check(name, out, o[0], n, 1e-5, 1e-4);
    snprintf(name, sizeof name, "cuda v2 layernorm forward bitwise run to run (%dx%d, offset %d)", N, C, off);
    parity_check_identical(name, o[0], o[1], n);
    snprintf(name, sizeof name, "cuda v2 layernorm backward input vs cpu, accumulating (%dx%d, offset %d)", N, C, off);
    parity_check(name, din, gi[0], n, 1e-5, 1e-4);
    snprintf(name, sizeof name, "cuda v2 layernorm backward input bitwise run to run (%dx%d, offset %d)", N, C, off);
    parity_check_identical(name, gi[0], gi[1], n);
    snprintf(name, sizeof name, "cuda v2 layernorm dweight bitwise v1 (%dx%d, offset %d)", N, C, off);
    parity_check_identical(name, gw[0], gw[1], (size_t)C);
    snprintf(name, sizeof name, "cuda v2 layernorm dbias bitwise v1 (%dx%d, offset %d)", N, C, off);
    parity_check_identical(name, gb[0], gb[1], (size_t)C);
    snprintf(name, sizeof name, "cuda v2 layernorm dweight vs cpu (%dx%d, offset %d)", N, C, off);
    parity_check(name, dw, gw[0], (size_t)C, sum_atol, 1e-4);
    free(in); free(w); free(b); free(dout); free(din); free(dw); free(db); free(out); free(mean); free(rstd);
    free_all();
}

// The linear layer under v1 and v2: the bias gradient's column sums bitwise equal; in bf16 also
// the products (the operands' bf16 conversion is the same rounding, vectorised).
static void test_linear(int N, int IC, int OC, int off, int bf16) {
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = test_rnd(nin, -1, 1, 40), *w = test_rnd(nw, -1, 1, 41), *b = test_rnd((size_t)OC, -1, 1, 42);
    float *dout = test_rnd(nout, -1, 1, 43);
    float *d_in = dev_at(in, nin, off), *d_w = dev_at(w, nw, off), *d_b = dev_at(b, (size_t)OC, 0);
    float *d_dout = dev_at(dout, nout, off), *o[2], *gi[2], *gw[2], *gb[2];
    gpu->set_matmul_precision(bf16 ? MATMUL_BF16 : MATMUL_FP32);
    for (int v = 0; v < 2; v++) {
        cuda_set_kernels(v ? CUDA_KERNELS_V2 : CUDA_KERNELS_V1);
        o[v] = dev_at(NULL, nout, off);
        gi[v] = dev_at(NULL, nin, off);
        gw[v] = dev_at(NULL, nw, 0);
        gb[v] = dev_at(NULL, (size_t)OC, 0);
        gpu->linear_forward(o[v], d_in, d_w, d_b, N, IC, OC);
        gpu->linear_backward(gi[v], gw[v], gb[v], d_dout, d_in, d_w, N, IC, OC);
    }
    gpu->set_matmul_precision(MATMUL_FP32);
    char name[200];
    const char *p = bf16 ? "bf16" : "fp32";
    snprintf(name, sizeof name, "cuda v2 linear %s bias gradient bitwise v1 (%dx%d -> %d, offset %d)", p, N, IC, OC, off);
    parity_check_identical(name, gb[0], gb[1], (size_t)OC);
    if (bf16) {
        snprintf(name, sizeof name, "cuda v2 linear bf16 forward bitwise v1 (%dx%d -> %d, offset %d)", N, IC, OC, off);
        parity_check_identical(name, o[0], o[1], nout);
        snprintf(name, sizeof name, "cuda v2 linear bf16 input gradient bitwise v1 (%dx%d -> %d, offset %d)", N, IC, OC, off);
        parity_check_identical(name, gi[0], gi[1], nin);
        snprintf(name, sizeof name, "cuda v2 linear bf16 weight gradient bitwise v1 (%dx%d -> %d, offset %d)", N, IC, OC, off);
        parity_check_identical(name, gw[0], gw[1], nw);
    }
    free(in); free(w); free(b); free(dout);
    free_all();
}

// AdamW over a table of segments (odd sizes, offsets not multiples of 4, one without decay):
// the one-launch v2 kernel bitwise equal to v1's per-tensor launches and to the CPU's loop.
static void test_adamw_multi(void) {
    adamw_segment segs[4] = {{0, 1001, 1}, {1003, 7, 0}, {1011, 70001, 1}, {71013, 16384 * 2 + 5, 1}};
    size_t n = 71013 + 16384 * 2 + 5;
    float *p = test_rnd(n, -1, 1, 50), *g = test_rnd(n, -1, 1, 51), *m = test_rnd(n, -0.1f, 0.1f, 52);
    float *v = test_rnd(n, 0, 1e-2f, 53);
    float *dp[2], *dm[2], *dv[2], *d_g = dev_at(g, n, 0);
    for (int k = 0; k < 2; k++) {
        dp[k] = dev_at(p, n, 0);
        dm[k] = dev_at(m, n, 0);
        dv[k] = dev_at(v, n, 0);
        cuda_set_kernels(k ? CUDA_KERNELS_V2 : CUDA_KERNELS_V1);
        for (int t = 1; t <= 2; t++)
            gpu->adamw_update_multi(dp[k], d_g, dm[k], dv[k], segs, 4, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, t);
    }
    for (int t = 1; t <= 2; t++) cpu->adamw_update_multi(p, g, m, v, segs, 4, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, t);
    parity_check_identical("cuda v2 adamw one launch: params bitwise v1 (4 segments, 104786)", dp[0], dp[1], n);
    parity_check_identical("cuda v2 adamw one launch: first moments bitwise v1", dm[0], dm[1], n);
    parity_check_identical("cuda v2 adamw one launch: second moments bitwise v1", dv[0], dv[1], n);
    parity_check("cuda v2 adamw one launch: params vs cpu (2 steps)", p, dp[1], n, ATOL_EW, RTOL_EW);
    parity_check("cuda v2 adamw one launch: second moments vs cpu", v, dv[1], n, ATOL_EW, RTOL_EW);
    free(p); free(g); free(m); free(v);
    free_all();
}

int main(void) {
    if (!parity_gpu_or_skip("cuda kernels v2")) return 0;
    printf("# GPU: %s\n", cuda_device_name());
    test_gelu(100003, 0, 0);
    test_gelu(100003, 1, 1);  // same 4-byte offset: scalar prefix of 3, vector body, tail
    test_gelu(100003, 3, 2);  // offsets disagree modulo 16 bytes: the scalar kernel
    test_gelu(5, 0, 0);       // shorter than a vector's prefix + body
    test_residual(7, 1001, 1, 0);  // S mod 4 != 0 with drop path: the scalar kernel
    test_residual(7, 1004, 1, 0);  // S mod 4 == 0 with drop path: vectors within samples
    test_residual(7, 1004, 1, 1);  // ... at an offset: the scalar kernel
    test_residual(7, 1001, 0, 2);  // plain, 8-byte offset
    test_layernorm(37, 768, 0);
    test_layernorm(1000, 768, 0);  // parameter gradients over 4 row chunks
    test_layernorm(37, 19, 0);     // C mod 4 != 0: the scalar kernels
    test_layernorm(37, 768, 1);    // unaligned rows: the scalar kernels
    test_linear(1000, 64, 96, 0, 0);
    test_linear(37, 45, 29, 0, 1);
    test_linear(37, 45, 29, 1, 1);  // unaligned input: scalar loads, 16-byte bf16 stores
    test_linear(394, 768, 2304, 3, 1);
    test_adamw_multi();
    cuda_set_kernels(CUDA_KERNELS_V1);
    cuda_sync();
    return test_exit_code();
}

#else // no CUDA backend in this build

int main(void) {
    test_skip("cuda kernels v2", "this build has no CUDA backend");
    return 0;
}

#endif
