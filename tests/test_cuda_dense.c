// tests/test_cuda_dense.c — CPU/GPU parity of the CUDA dense ops (core/cuda/dense_cuda.cu):
// linear, LayerNorm, GELU, residual / drop path / dropout; zero (memory_cuda.cu); the losses
// (losses_cuda.cu) and the optimizer math (optim_cuda.cu).
// Each check runs the CPU op (ops_cpu) on host buffers and the CUDA op (ops_cuda) on device
// copies of the same inputs and compares every output and gradient. Gradient buffers start
// nonzero on both sides, so the "+=" contract is checked too. Sizes are awkward on purpose
// (37 rows, 45 -> 29 features, 19 channels, n not a multiple of any block size).
// Tolerances (|gpu - cpu| <= atol + rtol·|cpu|):
//   elementwise ops: atol 1e-6, rtol 1e-5 (GELU's CPU erf is a 1.5e-7 approximation);
//   reductions (LayerNorm, column sums) and sgemm: atol 1e-5, rtol 1e-4, because the GPU sums
//   in a different order (warp butterflies, lane trees, cuBLAS tiling) than the CPU's
//   sequential loops and OpenBLAS; long sums get more (gemm_atol, sum_atol);
//   random masks (dropout, drop path): bit for bit, they must be the CPU's draws;
//   sum of squares: relative error <= 1e-12 (both sum exact float squares in double).
#include "testing.h"
#include "cuda_parity.h"

#ifdef POSBENCH_CUDA
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include "../core/rng.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ATOL_EW 1e-6
#define RTOL_EW 1e-5
#define ATOL_MM 1e-5
#define RTOL_MM 1e-4

static const ops_backend *cpu = &ops_cpu, *gpu = &ops_cuda;

// The absolute tolerance for a result that sums K products (or terms) of values in [-1, 1]:
// the two libraries order and block the K-sum differently, so their rounding differs by an
// amount that grows with K (≈ ulp(1)·K covers it with margin); never below ATOL_MM.
static double gemm_atol(int K) {
    double a = 2e-7 * K;
    return a > ATOL_MM ? a : ATOL_MM;
}

// The absolute tolerance for a column sum over N rows of values in [-1, 1] (bias and LayerNorm
// parameter gradients): the CPU adds the rows one by one in float, so its rounding error is a
// random walk over partial sums of size ~√N (standard deviation ≈ 2e-8·N); the GPU's lane
// trees err less. 5e-7·N leaves ample margin after two accumulating passes, while a missing
// or doubled row would still be off by ~1.
static double sum_atol(int N) {
    double a = 5e-7 * N;
    return a > ATOL_MM ? a : ATOL_MM;
}

// ---------------------------------------------------------------- zero
static void test_zero(void) {
    size_t n = 1003, part = 1000; // zero the first 1000, the last 3 stay
    float *h = test_rnd(n, -1, 1, 1);
    float *d = parity_upload(h, n);
    cpu->zero(h, part);
    gpu->zero(d, part);
    parity_check("cuda zero (1000 of 1003)", h, d, n, 0, 0);
    free(h);
    cuda_free(d);
}

// ---------------------------------------------------------------- memory_peak
// The CUDA arena meter counts what cuda alloc hands out, as the CPU's does.
static void test_memory_peak(void) {
    gpu->memory_peak(1);
    size_t base = gpu->memory_peak(0);
    void *x = gpu->alloc(1000, "meter x"), *y = gpu->alloc(3000, "meter y");
    gpu->free(y);
    size_t peak = gpu->memory_peak(1), window = gpu->memory_peak(0);
    gpu->free(x);
    test_check("cuda memory_peak: peak of live arena bytes, reset", peak == base + 4000 && window == base + 1000,
               "base %zu, peak %zu, new window %zu", base, peak, window);
}

// ---------------------------------------------------------------- linear
// Forward with and without bias, backward with all gradients, then with only dbias.
static void test_linear(int N, int IC, int OC, unsigned tag) {
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = test_rnd(nin, -1, 1, tag), *w = test_rnd(nw, -1, 1, tag + 1), *b = test_rnd(OC, -1, 1, tag + 2);
    float *dout = test_rnd(nout, -1, 1, tag + 3);
    float *din = test_rnd(nin, -1, 1, tag + 4), *dw = test_rnd(nw, -1, 1, tag + 5), *db = test_rnd(OC, -1, 1, tag + 6);
    float *out = xcalloc(nout, sizeof(float), "out");
    float *d_in = parity_upload(in, nin), *d_w = parity_upload(w, nw), *d_b = parity_upload(b, OC);
    float *d_dout = parity_upload(dout, nout), *d_din = parity_upload(din, nin);
    float *d_dw = parity_upload(dw, nw), *d_db = parity_upload(db, OC);
    float *d_out = cuda_alloc(nout * sizeof(float), "out");
    char name[160];
    // forward sums IC products, din OC, dweight N (see gemm_atol); dbias sums N rows (sum_atol)
    cpu->linear_forward(out, in, w, b, N, IC, OC);
    gpu->linear_forward(d_out, d_in, d_w, d_b, N, IC, OC);
    snprintf(name, sizeof name, "cuda linear forward (%dx%d -> %d)", N, IC, OC);
    parity_check(name, out, d_out, nout, gemm_atol(IC), RTOL_MM);

    cpu->linear_forward(out, in, w, NULL, N, IC, OC);
    gpu->linear_forward(d_out, d_in, d_w, NULL, N, IC, OC);
    snprintf(name, sizeof name, "cuda linear forward, no bias (%dx%d -> %d)", N, IC, OC);
    parity_check(name, out, d_out, nout, gemm_atol(IC), RTOL_MM);

    cpu->linear_backward(din, dw, db, dout, in, w, N, IC, OC);
    gpu->linear_backward(d_din, d_dw, d_db, d_dout, d_in, d_w, N, IC, OC);
    snprintf(name, sizeof name, "cuda linear backward input, accumulating (%dx%d -> %d)", N, IC, OC);
    parity_check(name, din, d_din, nin, gemm_atol(OC), RTOL_MM);
    snprintf(name, sizeof name, "cuda linear backward weight, accumulating (%dx%d -> %d)", N, IC, OC);
    parity_check(name, dw, d_dw, nw, gemm_atol(N), RTOL_MM);
    snprintf(name, sizeof name, "cuda linear backward bias, accumulating (%dx%d -> %d)", N, IC, OC);
    parity_check(name, db, d_db, OC, sum_atol(N), RTOL_MM);

    // NULL gradients are skipped: only dbias this time, din and dweight must not move.
    cpu->linear_backward(NULL, NULL, db, dout, in, w, N, IC, OC);
    gpu->linear_backward(NULL, NULL, d_db, d_dout, d_in, d_w, N, IC, OC);
    snprintf(name, sizeof name, "cuda linear backward, bias only (%dx%d -> %d)", N, IC, OC);
    parity_check(name, db, d_db, OC, sum_atol(N), RTOL_MM);
    snprintf(name, sizeof name, "cuda linear backward, NULL din and dweight untouched (%dx%d -> %d)", N, IC, OC);
    float *din_before = parity_download(d_din, nin), *dw_before = parity_download(d_dw, nw);
    gpu->linear_backward(NULL, NULL, d_db, d_dout, d_in, d_w, N, IC, OC);
    float *din_after = parity_download(d_din, nin), *dw_after = parity_download(d_dw, nw);
    test_check(name, memcmp(din_before, din_after, nin * sizeof(float)) == 0 &&
                         memcmp(dw_before, dw_after, nw * sizeof(float)) == 0,
               "din and dweight bits before vs after");
    free(din_before); free(dw_before); free(din_after); free(dw_after);

    free(in); free(w); free(b); free(dout); free(din); free(dw); free(db); free(out);
    cuda_free(d_in); cuda_free(d_w); cuda_free(d_b); cuda_free(d_dout); cuda_free(d_din);
    cuda_free(d_dw); cuda_free(d_db); cuda_free(d_out);
}

// Two backward passes from the same inputs into fresh zeroed buffers give the same bits.
// train.precision=bf16: both backends round the operands to bf16 the same way (round to nearest
// even) and accumulate the exact bf16 products in fp32, so they differ only by summation order:
// the fp32 tolerances hold. Both are set back to MATMUL_FP32 after.
static void test_linear_bf16(int N, int IC, int OC, unsigned tag) {
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = test_rnd(nin, -1, 1, tag), *w = test_rnd(nw, -1, 1, tag + 1), *b = test_rnd(OC, -1, 1, tag + 2);
    float *dout = test_rnd(nout, -1, 1, tag + 3), *din = test_zeros(nin), *dw = test_zeros(nw), *db = test_zeros(OC);
    float *out = test_zeros(nout);
    float *d_in = parity_upload(in, nin), *d_w = parity_upload(w, nw), *d_b = parity_upload(b, OC);
    float *d_dout = parity_upload(dout, nout), *d_din = parity_upload(din, nin);
    float *d_dw = parity_upload(dw, nw), *d_db = parity_upload(db, OC);
    float *d_out = cuda_alloc(nout * sizeof(float), "out");
    cpu->set_matmul_precision(MATMUL_BF16);
    gpu->set_matmul_precision(MATMUL_BF16);
    char name[160];
    cpu->linear_forward(out, in, w, b, N, IC, OC);
    gpu->linear_forward(d_out, d_in, d_w, d_b, N, IC, OC);
    snprintf(name, sizeof name, "cuda linear forward, bf16 (%dx%d -> %d)", N, IC, OC);
    parity_check(name, out, d_out, nout, gemm_atol(IC), RTOL_MM);
    cpu->linear_backward(din, dw, db, dout, in, w, N, IC, OC);
    gpu->linear_backward(d_din, d_dw, d_db, d_dout, d_in, d_w, N, IC, OC);
    snprintf(name, sizeof name, "cuda linear backward input, bf16 (%dx%d -> %d)", N, IC, OC);
    parity_check(name, din, d_din, nin, gemm_atol(OC), RTOL_MM);
    snprintf(name, sizeof name, "cuda linear backward weight, bf16 (%dx%d -> %d)", N, IC, OC);
    parity_check(name, dw, d_dw, nw, gemm_atol(N), RTOL_MM);
    snprintf(name, sizeof name, "cuda linear backward bias, bf16 (%dx%d -> %d)", N, IC, OC);
    parity_check(name, db, d_db, OC, sum_atol(N), RTOL_MM);
    cpu->set_matmul_precision(MATMUL_FP32);
    gpu->set_matmul_precision(MATMUL_FP32);
    free(in); free(w); free(b); free(dout); free(din); free(dw); free(db); free(out);
    cuda_free(d_in); cuda_free(d_w); cuda_free(d_b); cuda_free(d_dout); cuda_free(d_din);
    cuda_free(d_dw); cuda_free(d_db); cuda_free(d_out);
}

static void test_linear_deterministic(int N, int IC, int OC, unsigned tag) {
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = test_rnd(nin, -1, 1, tag), *w = test_rnd(nw, -1, 1, tag + 1), *dout = test_rnd(nout, -1, 1, tag + 2);
    float *d_in = parity_upload(in, nin), *d_w = parity_upload(w, nw), *d_dout = parity_upload(dout, nout);
    float *g[2][3];
    for (int r = 0; r < 2; r++) {
        g[r][0] = cuda_alloc(nin * sizeof(float), "din");
        g[r][1] = cuda_alloc(nw * sizeof(float), "dweight");
        g[r][2] = cuda_alloc((size_t)OC * sizeof(float), "dbias");
        gpu->linear_backward(g[r][0], g[r][1], g[r][2], d_dout, d_in, d_w, N, IC, OC);
    }
    char name[160];
    snprintf(name, sizeof name, "cuda linear backward deterministic: input (%dx%d -> %d)", N, IC, OC);
    parity_check_identical(name, g[0][0], g[1][0], nin);
    snprintf(name, sizeof name, "cuda linear backward deterministic: weight (%dx%d -> %d)", N, IC, OC);
    parity_check_identical(name, g[0][1], g[1][1], nw);
    snprintf(name, sizeof name, "cuda linear backward deterministic: bias (%dx%d -> %d)", N, IC, OC);
    parity_check_identical(name, g[0][2], g[1][2], OC);
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 3; i++) cuda_free(g[r][i]);
    free(in); free(w); free(dout);
    cuda_free(d_in); cuda_free(d_w); cuda_free(d_dout);
}

// ---------------------------------------------------------------- layernorm
static void test_layernorm(int N, int C, unsigned tag) {
    size_t n = (size_t)N * C;
    float *in = test_rnd(n, -2, 2, tag), *w = test_rnd(C, 0.5f, 1.5f, tag + 1), *b = test_rnd(C, -1, 1, tag + 2);
    float *dout = test_rnd(n, -1, 1, tag + 3);
    float *din = test_rnd(n, -1, 1, tag + 4), *dw = test_rnd(C, -1, 1, tag + 5), *db = test_rnd(C, -1, 1, tag + 6);
    float *out = xcalloc(n, sizeof(float), "out"), *mean = xcalloc(N, sizeof(float), "mean");
    float *rstd = xcalloc(N, sizeof(float), "rstd");
    float *d_in = parity_upload(in, n), *d_w = parity_upload(w, C), *d_b = parity_upload(b, C);
    float *d_dout = parity_upload(dout, n), *d_din = parity_upload(din, n);
    float *d_dw = parity_upload(dw, C), *d_db = parity_upload(db, C);
    float *d_out = cuda_alloc(n * sizeof(float), "out");
    float *d_mean = cuda_alloc((size_t)N * sizeof(float), "mean");
    float *d_rstd = cuda_alloc((size_t)N * sizeof(float), "rstd");
    char name[160];
    cpu->layernorm_forward(out, mean, rstd, in, w, b, N, C);
    gpu->layernorm_forward(d_out, d_mean, d_rstd, d_in, d_w, d_b, N, C);
    snprintf(name, sizeof name, "cuda layernorm forward output (%dx%d)", N, C);
    parity_check(name, out, d_out, n, ATOL_MM, RTOL_MM);
    snprintf(name, sizeof name, "cuda layernorm forward mean (%dx%d)", N, C);
    parity_check(name, mean, d_mean, N, ATOL_MM, RTOL_MM);
    snprintf(name, sizeof name, "cuda layernorm forward rstd (%dx%d)", N, C);
    parity_check(name, rstd, d_rstd, N, ATOL_MM, RTOL_MM);

    // The backward pass reads the CPU's saved statistics on both sides, so it is tested alone.
    float *d_cmean = parity_upload(mean, N), *d_crstd = parity_upload(rstd, N);
    cpu->layernorm_backward(din, dw, db, dout, in, w, mean, rstd, N, C);
    gpu->layernorm_backward(d_din, d_dw, d_db, d_dout, d_in, d_w, d_cmean, d_crstd, N, C);
    snprintf(name, sizeof name, "cuda layernorm backward input, accumulating (%dx%d)", N, C);
    parity_check(name, din, d_din, n, ATOL_MM, RTOL_MM);
    snprintf(name, sizeof name, "cuda layernorm backward weight, accumulating (%dx%d)", N, C);
    parity_check(name, dw, d_dw, C, sum_atol(N), RTOL_MM);
    snprintf(name, sizeof name, "cuda layernorm backward bias, accumulating (%dx%d)", N, C);
    parity_check(name, db, d_db, C, sum_atol(N), RTOL_MM);

    // Only dbias: din and dweight are NULL.
    cpu->layernorm_backward(NULL, NULL, db, dout, in, w, mean, rstd, N, C);
    gpu->layernorm_backward(NULL, NULL, d_db, d_dout, d_in, d_w, d_cmean, d_crstd, N, C);
    snprintf(name, sizeof name, "cuda layernorm backward, bias only (%dx%d)", N, C);
    parity_check(name, db, d_db, C, sum_atol(N), RTOL_MM);

    // Determinism: two backward passes into fresh buffers give the same bits.
    float *g[2][3];
    for (int r = 0; r < 2; r++) {
        g[r][0] = cuda_alloc(n * sizeof(float), "din");
        g[r][1] = cuda_alloc((size_t)C * sizeof(float), "dweight");
        g[r][2] = cuda_alloc((size_t)C * sizeof(float), "dbias");
        gpu->layernorm_backward(g[r][0], g[r][1], g[r][2], d_dout, d_in, d_w, d_cmean, d_crstd, N, C);
    }
    snprintf(name, sizeof name, "cuda layernorm backward deterministic: input (%dx%d)", N, C);
    parity_check_identical(name, g[0][0], g[1][0], n);
    snprintf(name, sizeof name, "cuda layernorm backward deterministic: weight (%dx%d)", N, C);
    parity_check_identical(name, g[0][1], g[1][1], C);
    snprintf(name, sizeof name, "cuda layernorm backward deterministic: bias (%dx%d)", N, C);
    parity_check_identical(name, g[0][2], g[1][2], C);
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 3; i++) cuda_free(g[r][i]);

    free(in); free(w); free(b); free(dout); free(din); free(dw); free(db);
    free(out); free(mean); free(rstd);
    cuda_free(d_in); cuda_free(d_w); cuda_free(d_b); cuda_free(d_dout); cuda_free(d_din);
    cuda_free(d_dw); cuda_free(d_db); cuda_free(d_out); cuda_free(d_mean); cuda_free(d_rstd);
    cuda_free(d_cmean); cuda_free(d_crstd);
}

// ---------------------------------------------------------------- GELU
static void test_gelu(void) {
    size_t n = 100003;
    float *in = test_rnd(n, -4, 4, 30), *dout = test_rnd(n, -1, 1, 31), *din = test_rnd(n, -1, 1, 32);
    float *out = xcalloc(n, sizeof(float), "out");
    float *d_in = parity_upload(in, n), *d_dout = parity_upload(dout, n), *d_din = parity_upload(din, n);
    float *d_out = cuda_alloc(n * sizeof(float), "out");
    cpu->gelu_forward(out, in, n);
    gpu->gelu_forward(d_out, d_in, n);
    parity_check("cuda gelu forward (100003)", out, d_out, n, ATOL_EW, RTOL_EW);
    cpu->gelu_backward(din, dout, in, n);
    gpu->gelu_backward(d_din, d_dout, d_in, n);
    parity_check("cuda gelu backward, accumulating (100003)", din, d_din, n, ATOL_EW, RTOL_EW);
    free(in); free(dout); free(din); free(out);
    cuda_free(d_in); cuda_free(d_dout); cuda_free(d_din); cuda_free(d_out);
}

// ---------------------------------------------------------------- drop path, residual
static void test_drop_path_residual(void) {
    int B = 7;
    size_t S = 1001, n = (size_t)B * S;
    rng_addr a = {.seed = 42, .purpose = RNG_DROPPATH, .epoch = 3, .step = 17, .index = 5};

    // Keep decisions: many samples at p = 0.3 and at p = 0 (all kept), bit for bit.
    int many = 4099;
    float ps[2] = {0.3f, 0.0f};
    for (int i = 0; i < 2; i++) {
        float *keep = xcalloc(many, sizeof(float), "keep");
        float *d_keep = cuda_alloc((size_t)many * sizeof(float), "keep");
        cpu->drop_path_scales(keep, many, ps[i], a);
        gpu->drop_path_scales(d_keep, many, ps[i], a);
        float *d_ref = parity_upload(keep, many);
        char name[160];
        snprintf(name, sizeof name, "cuda drop path scales bit-identical to CPU (%d samples, p = %.1f)", many, ps[i]);
        parity_check_identical(name, d_ref, d_keep, many);
        free(keep);
        cuda_free(d_keep); cuda_free(d_ref);
    }

    float *keep = xcalloc(B, sizeof(float), "keep");
    cpu->drop_path_scales(keep, B, 0.5f, a);
    float *x = test_rnd(n, -1, 1, 40), *br = test_rnd(n, -1, 1, 41), *dout = test_rnd(n, -1, 1, 42);
    float *dx = test_rnd(n, -1, 1, 43), *dbr = test_rnd(n, -1, 1, 44), *out = xcalloc(n, sizeof(float), "out");
    float *d_keep = parity_upload(keep, B), *d_x = parity_upload(x, n), *d_br = parity_upload(br, n);
    float *d_dout = parity_upload(dout, n), *d_dx = parity_upload(dx, n), *d_dbr = parity_upload(dbr, n);
    float *d_out = cuda_alloc(n * sizeof(float), "out");
    cpu->residual_forward(out, x, br, keep, B, S);
    gpu->residual_forward(d_out, d_x, d_br, d_keep, B, S);
    parity_check("cuda residual forward with drop path (7x1001)", out, d_out, n, ATOL_EW, RTOL_EW);
    cpu->residual_forward(out, x, br, NULL, B, S);
    gpu->residual_forward(d_out, d_x, d_br, NULL, B, S);
    parity_check("cuda residual forward (7x1001)", out, d_out, n, ATOL_EW, RTOL_EW);
    cpu->residual_backward(dx, dbr, dout, keep, B, S);
    gpu->residual_backward(d_dx, d_dbr, d_dout, d_keep, B, S);
    parity_check("cuda residual backward x, accumulating (7x1001)", dx, d_dx, n, ATOL_EW, RTOL_EW);
    parity_check("cuda residual backward branch with drop path, accumulating (7x1001)", dbr, d_dbr, n,
                 ATOL_EW, RTOL_EW);
    cpu->residual_backward(NULL, dbr, dout, NULL, B, S);
    gpu->residual_backward(NULL, d_dbr, d_dout, NULL, B, S);
    parity_check("cuda residual backward branch only (7x1001)", dbr, d_dbr, n, ATOL_EW, RTOL_EW);
    parity_check("cuda residual backward, NULL dx untouched (7x1001)", dx, d_dx, n, 0, 0);
    free(keep); free(x); free(br); free(dout); free(dx); free(dbr); free(out);
    cuda_free(d_keep); cuda_free(d_x); cuda_free(d_br); cuda_free(d_dout); cuda_free(d_dx);
    cuda_free(d_dbr); cuda_free(d_out);
}

// ---------------------------------------------------------------- dropout
static void test_dropout(void) {
    size_t n = 100003;
    rng_addr a = {.seed = 7, .purpose = RNG_DROPOUT, .epoch = 1, .step = 123, .index = 2};
    float *in = test_rnd(n, -1, 1, 50), *dout = test_rnd(n, -1, 1, 51), *din = test_rnd(n, -1, 1, 52);
    float *out = xcalloc(n, sizeof(float), "out"), *mask = xcalloc(n, sizeof(float), "mask");
    float *d_in = parity_upload(in, n), *d_dout = parity_upload(dout, n), *d_din = parity_upload(din, n);
    float *d_out = cuda_alloc(n * sizeof(float), "out"), *d_mask = cuda_alloc(n * sizeof(float), "mask");
    cpu->dropout_forward(out, mask, in, n, 0.25f, a, 0);
    gpu->dropout_forward(d_out, d_mask, d_in, n, 0.25f, a, 0);
    float *d_ref = parity_upload(mask, n);
    parity_check_identical("cuda dropout mask bit-identical to CPU (100003, p = 0.25)", d_ref, d_mask, n);
    parity_check("cuda dropout forward (100003, p = 0.25)", out, d_out, n, ATOL_EW, RTOL_EW);
    // At an element offset (a micro-batch's slice of the whole tensor): the CPU's mask of that slice.
    size_t first = 50001, len = 30001;
    gpu->dropout_forward(d_out, d_mask, d_in + first, len, 0.25f, a, first);
    float *d_ref_part = parity_upload(mask + first, len);
    parity_check_identical("cuda dropout mask at element offset 50001 = the CPU's whole mask's slice", d_ref_part, d_mask, len);
    cuda_free(d_ref_part);
    cpu->dropout_backward(din, dout, mask, n);
    gpu->dropout_backward(d_din, d_dout, d_ref, n); // the CPU's mask, so backward is tested alone
    parity_check("cuda dropout backward, accumulating (100003)", din, d_din, n, ATOL_EW, RTOL_EW);
    free(in); free(dout); free(din); free(out); free(mask);
    cuda_free(d_in); cuda_free(d_dout); cuda_free(d_din); cuda_free(d_out); cuda_free(d_mask);
    cuda_free(d_ref);
}

// ---------------------------------------------------------------- losses
static void test_softmax_xent(int N, int K, unsigned tag) {
    size_t n = (size_t)N * K;
    float s = 0.1f, scale = 1.0f / N;
    float *logits = test_rnd(n, -8, 8, tag), *dl = test_rnd(n, -1, 1, tag + 1);
    float *loss = xcalloc(N, sizeof(float), "loss"), *probs = xcalloc(n, sizeof(float), "probs");
    int *target = xmalloc((size_t)N * sizeof(int), "target");
    for (int i = 0; i < N; i++) target[i] = i % 5 == 3 ? -1 : (i * 7919) % K; // some rows ignored
    float *d_logits = parity_upload(logits, n), *d_dl = parity_upload(dl, n);
    int *d_target = parity_upload_int(target, N);
    float *d_loss = cuda_alloc((size_t)N * sizeof(float), "loss"), *d_probs = cuda_alloc(n * sizeof(float), "probs");
    char name[160];
    cpu->softmax_xent_forward(loss, probs, logits, target, N, K, s);
    gpu->softmax_xent_forward(d_loss, d_probs, d_logits, d_target, N, K, s);
    snprintf(name, sizeof name, "cuda softmax xent forward probs (%dx%d, smoothing 0.1)", N, K);
    parity_check(name, probs, d_probs, n, ATOL_EW, RTOL_EW);
    snprintf(name, sizeof name, "cuda softmax xent forward loss, ignored rows 0 (%dx%d, smoothing 0.1)", N, K);
    parity_check(name, loss, d_loss, N, ATOL_EW, RTOL_EW);
    float *d_cprobs = parity_upload(probs, n); // backward reads the CPU's probs on both sides
    cpu->softmax_xent_backward(dl, probs, target, N, K, s, scale);
    gpu->softmax_xent_backward(d_dl, d_cprobs, d_target, N, K, s, scale);
    snprintf(name, sizeof name, "cuda softmax xent backward, accumulating, ignored rows untouched (%dx%d)", N, K);
    parity_check(name, dl, d_dl, n, ATOL_EW, RTOL_EW);
    free(logits); free(dl); free(loss); free(probs); free(target);
    cuda_free(d_logits); cuda_free(d_dl); cuda_free(d_target); cuda_free(d_loss);
    cuda_free(d_probs); cuda_free(d_cprobs);
}

static void test_mse(void) {
    int N = 37, D = 589;
    size_t n = (size_t)N * D;
    float *pred = test_rnd(n, -1, 1, 70), *target = test_rnd(n, -1, 1, 71), *dpred = test_rnd(n, -1, 1, 72);
    float *loss = xcalloc(N, sizeof(float), "loss");
    float *d_pred = parity_upload(pred, n), *d_target = parity_upload(target, n);
    float *d_dpred = parity_upload(dpred, n), *d_loss = cuda_alloc((size_t)N * sizeof(float), "loss");
    cpu->mse_forward(loss, pred, target, N, D);
    gpu->mse_forward(d_loss, d_pred, d_target, N, D);
    parity_check("cuda mse forward (37x589)", loss, d_loss, N, ATOL_EW, RTOL_EW);
    cpu->mse_backward(dpred, pred, target, N, D, 1.0f / N);
    gpu->mse_backward(d_dpred, d_pred, d_target, N, D, 1.0f / N);
    parity_check("cuda mse backward, accumulating (37x589)", dpred, d_dpred, n, ATOL_EW, RTOL_EW);
    free(pred); free(target); free(dpred); free(loss);
    cuda_free(d_pred); cuda_free(d_target); cuda_free(d_dpred); cuda_free(d_loss);
}

// ---------------------------------------------------------------- optimizer
static void test_sum_squares(size_t n, unsigned tag) {
    float *x = test_rnd(n, -3, 3, tag);
    float *d_x = parity_upload(x, n);
    double ref = cpu->sum_squares(x, n), got = gpu->sum_squares(d_x, n), again = gpu->sum_squares(d_x, n);
    double rel = fabs(got - ref) / fabs(ref);
    char name[160];
    snprintf(name, sizeof name, "cuda sum of squares (%zu)", n);
    test_check(name, rel <= 1e-12, "gpu %.17g cpu %.17g, relative error %.3g (<= 1e-12)", got, ref, rel);
    snprintf(name, sizeof name, "cuda sum of squares deterministic (%zu)", n);
    test_check(name, memcmp(&got, &again, sizeof got) == 0, "%.17g then %.17g", got, again);
    free(x);
    cuda_free(d_x);
}

static void test_scale(void) {
    size_t n = 100003;
    float *x = test_rnd(n, -2, 2, 80);
    float *d_x = parity_upload(x, n);
    cpu->scale(x, n, 0.37f);
    gpu->scale(d_x, n, 0.37f);
    parity_check("cuda scale (100003)", x, d_x, n, ATOL_EW, RTOL_EW);
    free(x);
    cuda_free(d_x);
}

static void test_adamw(int t) {
    size_t n = 100003;
    float *p = test_rnd(n, -1, 1, 90), *g = test_rnd(n, -1, 1, 91), *m = test_rnd(n, -0.1f, 0.1f, 92);
    float *v = test_rnd(n, 0, 1e-2f, 93);
    float *d_p = parity_upload(p, n), *d_g = parity_upload(g, n), *d_m = parity_upload(m, n);
    float *d_v = parity_upload(v, n);
    for (int step = t; step < t + 2; step++) { // two consecutive steps
        cpu->adamw_update(p, g, m, v, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, step);
        gpu->adamw_update(d_p, d_g, d_m, d_v, n, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, step);
    }
    char name[160];
    snprintf(name, sizeof name, "cuda adamw params (100003, steps %d-%d)", t, t + 1);
    parity_check(name, p, d_p, n, ATOL_EW, RTOL_EW);
    snprintf(name, sizeof name, "cuda adamw first moments (100003, steps %d-%d)", t, t + 1);
    parity_check(name, m, d_m, n, ATOL_EW, RTOL_EW);
    snprintf(name, sizeof name, "cuda adamw second moments (100003, steps %d-%d)", t, t + 1);
    parity_check(name, v, d_v, n, ATOL_EW, RTOL_EW);
    free(p); free(g); free(m); free(v);
    cuda_free(d_p); cuda_free(d_g); cuda_free(d_m); cuda_free(d_v);
}

// ---------------------------------------------------------------- empty sizes
// n = 0 / N = 0 calls launch nothing invalid and write nothing.
static void test_empty(void) {
    size_t n = 64;
    float *h = test_rnd(n, -1, 1, 99);
    float *d = parity_upload(h, n), *e = parity_upload(h, n);
    int *t = parity_upload_int((const int[]){1, 2}, 2);
    rng_addr a = {.seed = 1, .purpose = RNG_DROPOUT};
    gpu->zero(d, 0);
    gpu->linear_forward(d, e, e, e, 0, 4, 4);
    gpu->linear_backward(d, d, d, e, e, e, 0, 4, 4);
    gpu->layernorm_forward(d, d, d, e, e, e, 0, 8);
    gpu->layernorm_backward(d, NULL, NULL, e, e, e, e, e, 0, 8);
    gpu->gelu_forward(d, e, 0);
    gpu->gelu_backward(d, e, e, 0);
    gpu->residual_forward(d, e, e, NULL, 0, 8);
    gpu->residual_backward(d, d, e, NULL, 4, 0);
    gpu->drop_path_scales(d, 0, 0.5f, a);
    gpu->dropout_forward(d, d, e, 0, 0.5f, a, 0);
    gpu->dropout_backward(d, e, e, 0);
    gpu->softmax_xent_forward(d, d, e, t, 0, 5, 0.1f);
    gpu->softmax_xent_backward(d, e, t, 0, 5, 0.1f, 1.0f);
    gpu->mse_forward(d, e, e, 0, 8);
    gpu->mse_backward(d, e, e, 0, 8, 1.0f);
    gpu->scale(d, 0, 2.0f);
    gpu->adamw_update(d, e, d, d, 0, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.05f, 1);
    double ss = gpu->sum_squares(e, 0);
    cuda_sync();
    parity_check("cuda dense ops with n = 0 / N = 0 write nothing", h, d, n, 0, 0);
    test_check("cuda sum of squares of nothing is 0", ss == 0.0, "%g", ss);
    free(h);
    cuda_free(d); cuda_free(e); cuda_free(t);
}

int main(void) {
    if (!parity_gpu_or_skip("cuda dense ops")) return 0;
    printf("# GPU: %s\n", cuda_device_name());
    test_zero();
    test_linear(37, 45, 29, 1000);
    test_linear(4096, 384, 1152, 1100);
    test_memory_peak();
    test_linear_bf16(37, 45, 29, 1400);
    test_linear_bf16(4096, 384, 1152, 1500);
    test_linear_deterministic(37, 45, 29, 1200);
    test_linear_deterministic(4096, 384, 1152, 1300);
    test_linear(1000, 64, 96, 1600);             // column sums over 3 full row chunks and a partial one
    test_linear_deterministic(1000, 64, 96, 1700);
    test_layernorm(37, 19, 2000);
    test_layernorm(37, 768, 2100);
    test_layernorm(1000, 768, 2200);             // parameter gradients over 4 row chunks
    test_gelu();
    test_drop_path_residual();
    test_dropout();
    test_softmax_xent(37, 19, 3000);
    test_softmax_xent(37, 1000, 3100);
    test_mse();
    test_sum_squares(5, 4000);
    test_sum_squares(1000003, 4001);
    test_scale();
    test_adamw(1);
    test_adamw(7);
    test_empty();
    cuda_sync();
    return test_exit_code();
}

#else // no CUDA backend in this build

int main(void) {
    test_skip("cuda dense ops", "this build has no CUDA backend");
    return 0;
}

#endif
