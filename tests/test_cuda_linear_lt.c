// tests/test_cuda_linear_lt.c — the CUDA backend's cuBLASLt linear path (POSBENCH_LINEAR=lt,
// core/cuda/linear_lt_cuda.cu) under train.precision=bf16 against the CPU op: forward with the
// bias in the epilogue and without bias, backward (din, dW accumulating, dbias), at sizes that
// are not multiples of 8 and with operands at unaligned offsets (4 and 12 bytes past a
// 256-byte boundary); bitwise run to run; its workspace counted by the memory meter; and the
// cached bf16 weight copies kept true when the weights change (AdamW, upload, scale). Both
// sides round the operands to bf16 the same way and accumulate in fp32, so the fp32 GEMM
// tolerances of tests/parity/cases_dense.c hold (gemm_atol, sum_atol). SKIP without a GPU.
#include "testing.h"
#include "cuda_parity.h"

#ifdef POSBENCH_CUDA
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include <stdio.h>
#include <stdlib.h>

#define RTOL_MM 1e-4

static const ops_backend *cpu = &ops_cpu, *gpu = &ops_cuda;

static double gemm_atol(int K) { return 2e-7 * K > 1e-5 ? 2e-7 * K : 1e-5; }
static double sum_atol(int N) { return 5e-7 * N > 1e-5 ? 5e-7 * N : 1e-5; }

// A device copy of host (n) starting `offset` floats into its own allocation (base kept in *base).
static float *upload_at(const float *host, size_t n, int offset, float **base) {
    *base = cuda_alloc((n + (size_t)offset) * sizeof(float), "offset operand");
    cuda_to_device(*base + offset, host, n * sizeof(float));
    return *base + offset;
}

// Lt forward (with and without bias) and backward against the CPU, operands `off` floats past
// an allocation's start.
static void test_lt_parity(int N, int IC, int OC, int off, unsigned tag) {
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = test_rnd(nin, -1, 1, tag), *w = test_rnd(nw, -1, 1, tag + 1), *b = test_rnd(OC, -1, 1, tag + 2);
    float *dout = test_rnd(nout, -1, 1, tag + 3), *din = test_rnd(nin, -1, 1, tag + 4);
    float *dw = test_rnd(nw, -1, 1, tag + 5), *db = test_rnd(OC, -1, 1, tag + 6), *out = test_zeros(nout);
    float *bases[8];
    float *d_in = upload_at(in, nin, off, &bases[0]), *d_w = upload_at(w, nw, off, &bases[1]);
    float *d_b = upload_at(b, OC, off, &bases[2]), *d_dout = upload_at(dout, nout, off, &bases[3]);
    float *d_din = upload_at(din, nin, off, &bases[4]), *d_dw = upload_at(dw, nw, off, &bases[5]);
    float *d_db = upload_at(db, OC, off, &bases[6]), *d_out = upload_at(out, nout, off, &bases[7]);
    char name[200];
    cpu->linear_forward(out, in, w, b, N, IC, OC);
    gpu->linear_forward(d_out, d_in, d_w, d_b, N, IC, OC);
    snprintf(name, sizeof name, "cuda linear lt forward, bias epilogue (%dx%d -> %d, +%d floats)", N, IC, OC, off);
    parity_check(name, out, d_out, nout, gemm_atol(IC), RTOL_MM);
    cpu->linear_forward(out, in, w, NULL, N, IC, OC);
    gpu->linear_forward(d_out, d_in, d_w, NULL, N, IC, OC);
    snprintf(name, sizeof name, "cuda linear lt forward, no bias (%dx%d -> %d, +%d floats)", N, IC, OC, off);
    parity_check(name, out, d_out, nout, gemm_atol(IC), RTOL_MM);
    cpu->linear_backward(din, dw, db, dout, in, w, N, IC, OC);
    gpu->linear_backward(d_din, d_dw, d_db, d_dout, d_in, d_w, N, IC, OC);
    snprintf(name, sizeof name, "cuda linear lt backward input, accumulating (%dx%d -> %d, +%d floats)", N, IC, OC, off);
    parity_check(name, din, d_din, nin, gemm_atol(OC) + 1e-5, RTOL_MM);
    snprintf(name, sizeof name, "cuda linear lt backward weight, accumulating (%dx%d -> %d, +%d floats)", N, IC, OC, off);
    parity_check(name, dw, d_dw, nw, gemm_atol(N) + 1e-5, RTOL_MM);
    snprintf(name, sizeof name, "cuda linear lt backward bias, accumulating (%dx%d -> %d, +%d floats)", N, IC, OC, off);
    parity_check(name, db, d_db, OC, sum_atol(N), RTOL_MM);
    free(in); free(w); free(b); free(dout); free(din); free(dw); free(db); free(out);
    for (int i = 0; i < 8; i++) cuda_free(bases[i]);
}

// Forward and backward twice from the same inputs: the same bits (the cached algorithm, no
// in-place split-K reduction).
static void test_lt_deterministic(int N, int IC, int OC, unsigned tag) {
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = test_rnd(nin, -1, 1, tag), *w = test_rnd(nw, -1, 1, tag + 1), *b = test_rnd(OC, -1, 1, tag + 2);
    float *dout = test_rnd(nout, -1, 1, tag + 3);
    float *d_in = parity_upload(in, nin), *d_w = parity_upload(w, nw), *d_b = parity_upload(b, OC);
    float *d_dout = parity_upload(dout, nout), *g[2][4];
    for (int r = 0; r < 2; r++) {
        g[r][0] = cuda_alloc(nout * sizeof(float), "out");
        g[r][1] = cuda_alloc(nin * sizeof(float), "din");
        g[r][2] = cuda_alloc(nw * sizeof(float), "dweight");
        g[r][3] = cuda_alloc((size_t)OC * sizeof(float), "dbias");
        gpu->linear_forward(g[r][0], d_in, d_w, d_b, N, IC, OC);
        gpu->linear_backward(g[r][1], g[r][2], g[r][3], d_dout, d_in, d_w, N, IC, OC);
    }
    const char *what[4] = {"forward", "input gradient", "weight gradient", "bias gradient"};
    size_t len[4] = {nout, nin, nw, (size_t)OC};
    char name[200];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "cuda linear lt bitwise run to run: %s (%dx%d -> %d)", what[i], N, IC, OC);
        parity_check_identical(name, g[0][i], g[1][i], len[i]);
    }
    for (int r = 0; r < 2; r++)
        for (int i = 0; i < 4; i++) cuda_free(g[r][i]);
    free(in); free(w); free(b); free(dout);
    cuda_free(d_in); cuda_free(d_w); cuda_free(d_b); cuda_free(d_dout);
}

// The workspace is allocated through the backend allocator on the first Lt product: the live
// bytes the meter reports grow by at least its 32 MiB. Must run before any other Lt call.
static void test_lt_workspace_metered(void) {
    int N = 8, IC = 16, OC = 8;
    float *h = test_rnd(256, -1, 1, 7);
    float *d_in = parity_upload(h, (size_t)N * IC), *d_w = parity_upload(h, (size_t)OC * IC);
    float *d_out = cuda_alloc((size_t)N * OC * sizeof(float), "out");
    gpu->memory_peak(1);
    size_t before = gpu->memory_peak(0);
    gpu->linear_forward(d_out, d_in, d_w, NULL, N, IC, OC);
    gpu->memory_peak(1);
    size_t after = gpu->memory_peak(0);
    test_check("cuda linear lt workspace counted by the memory meter", after >= before + ((size_t)32 << 20),
               "live bytes %zu before the first Lt product, %zu after", before, after);
    free(h);
    cuda_free(d_in); cuda_free(d_w); cuda_free(d_out);
}

// The bf16 copy of a trained weight (one AdamW has updated) is reused while the weight is
// unchanged and refreshed after AdamW, an upload or a scale writes it: every forward matches the
// CPU on the weights of that moment.
static void test_lt_weight_copies(void) {
    int N = 37, IC = 45, OC = 29;
    size_t nin = (size_t)N * IC, nw = (size_t)OC * IC, nout = (size_t)N * OC;
    float *in = test_rnd(nin, -1, 1, 500), *w = test_rnd(nw, -1, 1, 501), *g = test_rnd(nw, -1, 1, 502);
    float *m = test_zeros(nw), *v = test_zeros(nw), *out = test_zeros(nout);
    float *d_in = parity_upload(in, nin), *d_w = parity_upload(w, nw), *d_g = parity_upload(g, nw);
    float *d_m = parity_upload(m, nw), *d_v = parity_upload(v, nw);
    float *d_out = cuda_alloc(nout * sizeof(float), "out"), *d_out2 = cuda_alloc(nout * sizeof(float), "out");
    adamw_segment seg = {0, nw, 1};
    char name[160];
    for (int step = 1; step <= 2; step++) { // AdamW marks the weight trained and writes it
        cpu->adamw_update_multi(w, g, m, v, &seg, 1, 1e-2f, 0.9f, 0.999f, 1e-8f, 0.05f, step);
        gpu->adamw_update_multi(d_w, d_g, d_m, d_v, &seg, 1, 1e-2f, 0.9f, 0.999f, 1e-8f, 0.05f, step);
        cpu->linear_forward(out, in, w, NULL, N, IC, OC);
        gpu->linear_forward(d_out, d_in, d_w, NULL, N, IC, OC);
        gpu->linear_forward(d_out2, d_in, d_w, NULL, N, IC, OC); // the cached copy again
        snprintf(name, sizeof name, "cuda linear lt cached weight after AdamW step %d", step);
        parity_check(name, out, d_out, nout, gemm_atol(IC), RTOL_MM);
        snprintf(name, sizeof name, "cuda linear lt cached weight reused bitwise (step %d)", step);
        parity_check_identical(name, d_out, d_out2, nout);
    }
    test_fill_uniform(w, nw, -1, 1, 503); // a checkpoint load
    gpu->upload(d_w, w, nw * sizeof(float));
    cpu->linear_forward(out, in, w, NULL, N, IC, OC);
    gpu->linear_forward(d_out, d_in, d_w, NULL, N, IC, OC);
    parity_check("cuda linear lt cached weight refreshed after an upload", out, d_out, nout, gemm_atol(IC), RTOL_MM);
    cpu->scale(w, nw, 0.5f); // an EMA-style write
    gpu->scale(d_w, nw, 0.5f);
    cpu->linear_forward(out, in, w, NULL, N, IC, OC);
    gpu->linear_forward(d_out, d_in, d_w, NULL, N, IC, OC);
    parity_check("cuda linear lt cached weight refreshed after a scale", out, d_out, nout, gemm_atol(IC), RTOL_MM);
    free(in); free(w); free(g); free(m); free(v); free(out);
    cuda_free(d_in); cuda_free(d_w); cuda_free(d_g); cuda_free(d_m); cuda_free(d_v);
    cuda_free(d_out); cuda_free(d_out2);
}

int main(void) {
    if (!parity_gpu_or_skip("cuda linear lt")) return 0;
    printf("# GPU: %s\n", cuda_device_name());
    cpu->set_matmul_precision(MATMUL_BF16);
    gpu->set_matmul_precision(MATMUL_BF16);
    cuda_set_linear_route(CUDA_LINEAR_LT);
    test_lt_workspace_metered();
    test_lt_parity(37, 45, 29, 0, 100);      // nothing a multiple of 8
    test_lt_parity(37, 45, 29, 1, 200);      // every operand 4 bytes past a 256-byte boundary
    test_lt_parity(394, 768, 2304, 3, 300);  // ViT-B's qkv shape at 2 images, 12-byte offsets
    test_lt_parity(4096, 384, 1152, 0, 400);
    test_lt_deterministic(394, 768, 3072, 600);
    test_lt_deterministic(37, 45, 29, 700);
    test_lt_weight_copies();
    cuda_set_kernels(CUDA_KERNELS_V2); // the vectorised bf16 conversion feeding Lt
    test_lt_parity(37, 45, 29, 1, 800);
    test_lt_parity(394, 768, 2304, 0, 900);
    cuda_set_kernels(CUDA_KERNELS_V1);
    cuda_set_linear_route(CUDA_LINEAR_GEMMEX);
    cpu->set_matmul_precision(MATMUL_FP32);
    gpu->set_matmul_precision(MATMUL_FP32);
    cuda_sync();
    return test_exit_code();
}

#else // no CUDA backend in this build

int main(void) {
    test_skip("cuda linear lt", "this build has no CUDA backend");
    return 0;
}

#endif
