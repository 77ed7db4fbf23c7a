// tests/test_cuda_attention.c — CPU/GPU parity of the CUDA attention op
// (core/cuda/attention_cuda.cu against core/cpu/attention_cpu.c). Each case runs the forward
// (out, probs) and the backward (dqkv, and dbias when the bias is on) on both backends from the
// same inputs; the gradient buffers start nonzero on both sides (gradients accumulate). Cases
// cover head sizes 8..128, T from 17 to 401 (long rows shrink the kernels' query tiles), MP3
// key subsets (with and without the cls token), the additive bias, LT / LE group masks with
// queries that see no key (zeros, no NaN), and all options at once. The backward is run twice
// into fresh buffers and must agree bit for bit (and dbias alone, dqkv NULL, gives the same bits).
// Without a usable GPU (or without the CUDA backend) the program prints one SKIP line.
#include "testing.h"
#include <stdio.h>

#ifdef POSBENCH_CUDA
#include "attention_cases.h"
#include "cuda_parity.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/ops_cuda.h"
#include "../core/rng.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

// Forward tolerances: same scores up to FMA rounding, expf vs the CPU's polynomial exp (both
// ≈ 1 ulp). Gradient tolerances are looser: the GPU sums in a different order than the CPU
// (FMA chains and 32-lane warp reductions vs separate multiply/add and 16-lane partials).
#define FWD_ATOL 1e-6
#define FWD_RTOL 1e-5
#define GRAD_ATOL 1e-5
#define GRAD_RTOL 1e-4

// Fully masked query rows on the GPU: probs rows (every head) and out rows exactly zero, the
// q channels of dqkv exactly their prefilled values (zero gradient), and nothing NaN anywhere.
static void check_masked_rows(const attention_case *cf, const int *kv, const int *group,
                              const float *out_g, const float *probs_g, const float *dqkv_g,
                              const float *dqkv0) {
    const int B = cf->B, T = cf->T, C = cf->C, H = cf->H, M = cf->M;
    size_t n_out = (size_t)B * T * C, n_probs = (size_t)B * H * T * M, n_qkv = n_out * 3;
    float *out = parity_download(out_g, n_out);
    float *probs = parity_download(probs_g, n_probs);
    float *dqkv = parity_download(dqkv_g, n_qkv);
    size_t nan = 0, bad = 0;
    int empty = 0;
    for (size_t e = 0; e < n_out; e++) nan += isnan(out[e]) != 0;
    for (size_t e = 0; e < n_probs; e++) nan += isnan(probs[e]) != 0;
    for (size_t e = 0; e < n_qkv; e++) nan += isnan(dqkv[e]) != 0;
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            if (attention_case_visible_keys(cf, kv, group, b, i) > 0) continue;
            empty++;
            for (int h = 0; h < H; h++)
                for (int m = 0; m < M; m++)
                    bad += probs[(((size_t)b * H + h) * T + i) * M + m] != 0.0f;
            for (int c = 0; c < C; c++) {
                bad += out[((size_t)b * T + i) * C + c] != 0.0f;
                size_t q = ((size_t)b * T + i) * 3 * C + c;
                bad += memcmp(&dqkv[q], &dqkv0[q], sizeof(float)) != 0;
            }
        }
    char name[160];
    snprintf(name, sizeof name, "cuda attention masked rows zero (%s)", cf->label);
    test_check(name, empty > 0 && bad == 0 && nan == 0,
               "%d fully masked query rows, %zu nonzero probs/out or changed dq entries, %zu NaN",
               empty, bad, nan);
    free(out); free(probs); free(dqkv);
}

static void run_case(const attention_case *cf) {
    const int B = cf->B, T = cf->T, C = cf->C, H = cf->H, M = cf->M;
    const size_t n_qkv = (size_t)B * T * 3 * C, n_out = (size_t)B * T * C;
    const size_t n_probs = (size_t)B * H * T * M, n_bias = (size_t)H * T * T;
    char name[160];

    // ---- inputs (host) ----
    attention_inputs in;
    attention_inputs_make(&in, cf, 1.0f, 91, 1);
    float *qkv = in.qkv, *dout = in.dout, *dqkv0 = in.dqkv0, *bias = in.bias, *dbias0 = in.dbias0;
    int *kv = in.kv, *group = in.group;
    attention_desc dh = in.desc;

    // ---- CPU reference ----
    float *out_c = xcalloc(n_out, sizeof(float), "test out");
    float *probs_c = xcalloc(n_probs, sizeof(float), "test probs");
    float *dqkv_c = xmalloc(n_qkv * sizeof(float), "test dqkv");
    memcpy(dqkv_c, dqkv0, n_qkv * sizeof(float));
    float *dbias_c = NULL, *scratch_c = NULL;
    if (cf->bias) {
        dbias_c = xmalloc(n_bias * sizeof(float), "test dbias");
        memcpy(dbias_c, dbias0, n_bias * sizeof(float));
        scratch_c = xcalloc(n_probs, sizeof(float), "test scratch");
    }
    ops_cpu.attention_forward(out_c, probs_c, qkv, &dh);
    ops_cpu.attention_backward(dqkv_c, dbias_c, scratch_c, dout, qkv, out_c, probs_c, &dh);

    // ---- GPU (scratch only with the bias, as models/vit.c passes it) ----
    float *qkv_g = parity_upload(qkv, n_qkv), *dout_g = parity_upload(dout, n_out);
    float *bias_g = cf->bias ? parity_upload(bias, n_bias) : NULL;
    int *kv_g = kv ? parity_upload_int(kv, (size_t)B * M) : NULL;
    int *group_g = group ? parity_upload_int(group, (size_t)B * T) : NULL;
    attention_desc dd = dh;
    dd.kv_index = kv_g; dd.bias = bias_g; dd.group = group_g;
    float *out_g = cuda_alloc(n_out * sizeof(float), "test out");
    float *probs_g = cuda_alloc(n_probs * sizeof(float), "test probs");
    ops_cuda.attention_forward(out_g, probs_g, qkv_g, &dd);
    float *dqkv_g = parity_upload(dqkv0, n_qkv), *dqkv2_g = parity_upload(dqkv0, n_qkv);
    float *dbias_g = NULL, *dbias2_g = NULL, *dbias3_g = NULL, *scratch_g = NULL;
    if (cf->bias) {
        dbias_g = parity_upload(dbias0, n_bias);
        dbias2_g = parity_upload(dbias0, n_bias);
        dbias3_g = parity_upload(dbias0, n_bias);
        scratch_g = cuda_alloc(n_probs * sizeof(float), "test scratch");
    }
    ops_cuda.attention_backward(dqkv_g, dbias_g, scratch_g, dout_g, qkv_g, out_g, probs_g, &dd);
    ops_cuda.attention_backward(dqkv2_g, dbias2_g, scratch_g, dout_g, qkv_g, out_g, probs_g, &dd);
    if (cf->bias) // dbias alone (dqkv NULL) must take the same path to the same bits
        ops_cuda.attention_backward(NULL, dbias3_g, scratch_g, dout_g, qkv_g, out_g, probs_g, &dd);
    cuda_sync();

    // ---- checks ----
    snprintf(name, sizeof name, "cuda attention forward out (%s)", cf->label);
    parity_check(name, out_c, out_g, n_out, FWD_ATOL, FWD_RTOL);
    snprintf(name, sizeof name, "cuda attention forward probs (%s)", cf->label);
    parity_check(name, probs_c, probs_g, n_probs, FWD_ATOL, FWD_RTOL);
    snprintf(name, sizeof name, "cuda attention backward dqkv (%s)", cf->label);
    parity_check(name, dqkv_c, dqkv_g, n_qkv, GRAD_ATOL, GRAD_RTOL);
    snprintf(name, sizeof name, "cuda attention backward deterministic dqkv (%s)", cf->label);
    parity_check_identical(name, dqkv_g, dqkv2_g, n_qkv);
    if (cf->bias) {
        snprintf(name, sizeof name, "cuda attention backward dbias (%s)", cf->label);
        parity_check(name, dbias_c, dbias_g, n_bias, GRAD_ATOL, GRAD_RTOL);
        snprintf(name, sizeof name, "cuda attention backward deterministic dbias (%s)", cf->label);
        parity_check_identical(name, dbias_g, dbias2_g, n_bias);
        snprintf(name, sizeof name, "cuda attention backward dbias without dqkv (%s)", cf->label);
        parity_check_identical(name, dbias_g, dbias3_g, n_bias);
    }
    if (cf->mode != ATTN_MASK_NONE)
        check_masked_rows(cf, kv, group, out_g, probs_g, dqkv_g, dqkv0);

    // ---- cleanup ----
    cuda_free(qkv_g); cuda_free(dout_g); cuda_free(bias_g); cuda_free(kv_g); cuda_free(group_g);
    cuda_free(out_g); cuda_free(probs_g); cuda_free(dqkv_g); cuda_free(dqkv2_g);
    cuda_free(dbias_g); cuda_free(dbias2_g); cuda_free(dbias3_g); cuda_free(scratch_g);
    attention_inputs_free(&in);
    free(out_c); free(probs_c); free(dqkv_c); free(dbias_c); free(scratch_c);
}

int main(void) {
    if (!parity_gpu_or_skip("cuda attention")) return 0;
    static const attention_case cases[] = {
        // label                              B   T    C    H  M    kv           bias mode            tag
        {"plain, T=17, hs=8",                  2, 17,  32,  4, 17,  KV_ALL,      0, ATTN_MASK_NONE, 100},
        {"T=50, hs=32",                        2, 50,  64,  2, 50,  KV_ALL,      0, ATTN_MASK_NONE, 110},
        {"T=65, hs=64",                        2, 65,  64,  1, 65,  KV_ALL,      0, ATTN_MASK_NONE, 120},
        {"T=197, hs=64",                       2, 197, 384, 6, 197, KV_ALL,      0, ATTN_MASK_NONE, 130},
        {"T=33, hs=128",                       2, 33,  256, 2, 33,  KV_ALL,      0, ATTN_MASK_NONE, 140},
        {"T=40, hs=16",                        3, 40,  64,  4, 40,  KV_ALL,      0, ATTN_MASK_NONE, 150},
        {"bias, T=401, hs=128 (8-row tiles)",  2, 401, 256, 2, 401, KV_ALL,      1, ATTN_MASK_NONE, 155},
        {"kv subset M=20 no cls, T=50",        2, 50,  64,  4, 20,  KV_NO_CLS,   0, ATTN_MASK_NONE, 160},
        {"kv subset M=33 with cls, T=65",      3, 65,  128, 2, 33,  KV_WITH_CLS, 0, ATTN_MASK_NONE, 170},
        {"bias, T=50, hs=32",                  3, 50,  64,  2, 50,  KV_ALL,      1, ATTN_MASK_NONE, 180},
        {"group LT, T=33",                     2, 33,  64,  4, 33,  KV_ALL,      0, ATTN_MASK_LT,   190},
        {"group LE, kv M=16, T=33",            2, 33,  64,  4, 16,  KV_NO_CLS,   0, ATTN_MASK_LE,   200},
        {"kv + bias + group LE, T=65",         3, 65,  128, 2, 24,  KV_NO_CLS,   1, ATTN_MASK_LE,   210},
        {"kv + bias + group LT, T=197, hs=64", 2, 197, 384, 6, 49,  KV_WITH_CLS, 1, ATTN_MASK_LT,   220},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) run_case(&cases[k]);
    return test_exit_code();
}

#else

int main(void) {
    test_skip("cuda attention", "this build has no CUDA backend");
    return 0;
}

#endif
