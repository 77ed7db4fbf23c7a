// tests/test_cuda_attention_fused.c — parity of the fused CUDA attention
// (core/cuda/attention_fused_cuda.cu, attention_desc.keep_probs = 0) against the CPU op
// (core/cpu/attention_cpu.c) and against the materialising CUDA kernels (keep_probs = 1), from
// the same inputs. Per case: out, dqkv (prefilled nonzero: gradients accumulate) and dbias
// (when the bias is on) within tolerance of both references; the forward writes nothing of
// probs past the row log-sum-exp (B, H, T) (the rest of the buffer keeps its sentinel); rows
// that see no key give zero out and zero dq and nothing is NaN; forward and backward run twice
// give the same bits, and so does dbias computed alone (dqkv NULL). Cases: odd T (1..401), M
// (1..197), head sizes 8..128 (24 and 40: not a multiple of the warp), MP3 key subsets with
// and without the cls token, bias, LT / LE group masks, and every combination.
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

// Same tolerances as tests/parity/cases_attention.c: the fused kernels round differently (online
// softmax, normalisation after P·V, D = dout·out) but stay within float rounding of both.
#define FWD_ATOL 1e-6
#define FWD_RTOL 1e-5
#define GRAD_ATOL 1e-5
#define GRAD_RTOL 1e-4
#define SENTINEL 12345.0f

// probs past the lse (B, H, T) untouched; masked rows: out zero, dq channels unchanged,
// lse +inf; no NaN in out or dqkv.
static void check_state_and_masked_rows(const attention_case *cf, const int *kv, const int *group,
                                        const float *out_g, const float *probs_g,
                                        const float *dqkv_g, const float *dqkv0) {
    const int B = cf->B, T = cf->T, C = cf->C, H = cf->H, M = cf->M;
    size_t n_out = (size_t)B * T * C, n_probs = (size_t)B * H * T * M, n_lse = (size_t)B * H * T;
    float *out = parity_download(out_g, n_out), *probs = parity_download(probs_g, n_probs);
    float *dqkv = parity_download(dqkv_g, 3 * n_out);
    char name[160];
    size_t touched = 0;
    for (size_t e = n_lse; e < n_probs; e++) touched += probs[e] != SENTINEL;
    snprintf(name, sizeof name, "fused attention keeps only lse (B, H, T) (%s)", cf->label);
    test_check(name, touched == 0, "%zu of %zu probs elements past B·H·T = %zu written", touched,
               n_probs - n_lse, n_lse);
    size_t nan = 0, bad = 0;
    int empty = 0;
    for (size_t e = 0; e < n_out; e++) nan += isnan(out[e]) != 0;
    for (size_t e = 0; e < 3 * n_out; e++) nan += isnan(dqkv[e]) != 0;
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            if (attention_case_visible_keys(cf, kv, group, b, i) > 0) continue;
            empty++;
            for (int h = 0; h < H; h++) bad += !(isinf(probs[((size_t)b * H + h) * T + i]) &&
                                                 probs[((size_t)b * H + h) * T + i] > 0);
            for (int c = 0; c < C; c++) {
                bad += out[((size_t)b * T + i) * C + c] != 0.0f;
                size_t q = ((size_t)b * T + i) * 3 * C + c;
                bad += memcmp(&dqkv[q], &dqkv0[q], sizeof(float)) != 0;
            }
        }
    int want_empty = cf->mode != ATTN_MASK_NONE;
    snprintf(name, sizeof name, "fused attention masked rows zero, no NaN (%s)", cf->label);
    test_check(name, (!want_empty || empty > 0) && bad == 0 && nan == 0,
               "%d query rows see no key, %zu nonzero out / changed dq / finite lse, %zu NaN",
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
    attention_inputs_make(&in, cf, 1.5f, 93, 0);
    float *qkv = in.qkv, *dout = in.dout, *dqkv0 = in.dqkv0, *bias = in.bias, *dbias0 = in.dbias0;
    int *kv = in.kv, *group = in.group;
    attention_desc dh = in.desc;
    float *sentinel = xmalloc(n_probs * sizeof(float), "test probs sentinel");
    for (size_t e = 0; e < n_probs; e++) sentinel[e] = SENTINEL;

    // ---- CPU reference (ignores keep_probs) ----
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

    // ---- GPU inputs ----
    float *qkv_g = parity_upload(qkv, n_qkv), *dout_g = parity_upload(dout, n_out);
    float *bias_g = cf->bias ? parity_upload(bias, n_bias) : NULL;
    int *kv_g = kv ? parity_upload_int(kv, (size_t)B * M) : NULL;
    int *group_g = group ? parity_upload_int(group, (size_t)B * T) : NULL;
    attention_desc dd = dh;
    dd.kv_index = kv_g; dd.bias = bias_g; dd.group = group_g;
    attention_desc dm = dd; // materialising
    dm.keep_probs = 1;

    // ---- fused, twice; materialising once ----
    float *out_g[2], *probs_g[2], *dqkv_g[2], *dbias_g[2] = {NULL, NULL};
    float *scratch_g = cf->bias ? cuda_alloc(n_probs * sizeof(float), "test scratch") : NULL;
    for (int k = 0; k < 2; k++) {
        out_g[k] = cuda_alloc(n_out * sizeof(float), "test out");
        probs_g[k] = parity_upload(sentinel, n_probs);
        dqkv_g[k] = parity_upload(dqkv0, n_qkv);
        if (cf->bias) dbias_g[k] = parity_upload(dbias0, n_bias);
        ops_cuda.attention_forward(out_g[k], probs_g[k], qkv_g, &dd);
        ops_cuda.attention_backward(dqkv_g[k], dbias_g[k], scratch_g, dout_g, qkv_g, out_g[k],
                                    probs_g[k], &dd);
    }
    float *dbias_alone_g = NULL;
    if (cf->bias) { // dbias alone (dqkv NULL) must give the same bits
        dbias_alone_g = parity_upload(dbias0, n_bias);
        ops_cuda.attention_backward(NULL, dbias_alone_g, scratch_g, dout_g, qkv_g, out_g[0],
                                    probs_g[0], &dd);
    }
    float *out_m = cuda_alloc(n_out * sizeof(float), "test out (materialising)");
    float *probs_m = cuda_alloc(n_probs * sizeof(float), "test probs (materialising)");
    float *dqkv_m = parity_upload(dqkv0, n_qkv);
    float *dbias_m = cf->bias ? parity_upload(dbias0, n_bias) : NULL;
    ops_cuda.attention_forward(out_m, probs_m, qkv_g, &dm);
    ops_cuda.attention_backward(dqkv_m, dbias_m, scratch_g, dout_g, qkv_g, out_m, probs_m, &dm);
    cuda_sync();

    // ---- against the CPU ----
    snprintf(name, sizeof name, "fused attention out vs cpu (%s)", cf->label);
    parity_check(name, out_c, out_g[0], n_out, FWD_ATOL, FWD_RTOL);
    snprintf(name, sizeof name, "fused attention dqkv vs cpu (%s)", cf->label);
    parity_check(name, dqkv_c, dqkv_g[0], n_qkv, GRAD_ATOL, GRAD_RTOL);
    if (cf->bias) {
        snprintf(name, sizeof name, "fused attention dbias vs cpu (%s)", cf->label);
        parity_check(name, dbias_c, dbias_g[0], n_bias, GRAD_ATOL, GRAD_RTOL);
    }
    // ---- against the materialising kernels ----
    float *out_mh = parity_download(out_m, n_out), *dqkv_mh = parity_download(dqkv_m, n_qkv);
    snprintf(name, sizeof name, "fused attention out vs materialising (%s)", cf->label);
    parity_check(name, out_mh, out_g[0], n_out, FWD_ATOL, FWD_RTOL);
    snprintf(name, sizeof name, "fused attention dqkv vs materialising (%s)", cf->label);
    parity_check(name, dqkv_mh, dqkv_g[0], n_qkv, GRAD_ATOL, GRAD_RTOL);
    float *dbias_mh = NULL;
    if (cf->bias) {
        dbias_mh = parity_download(dbias_m, n_bias);
        snprintf(name, sizeof name, "fused attention dbias vs materialising (%s)", cf->label);
        parity_check(name, dbias_mh, dbias_g[0], n_bias, GRAD_ATOL, GRAD_RTOL);
    }
    // ---- determinism ----
    snprintf(name, sizeof name, "fused attention deterministic out (%s)", cf->label);
    parity_check_identical(name, out_g[0], out_g[1], n_out);
    snprintf(name, sizeof name, "fused attention deterministic lse (%s)", cf->label);
    parity_check_identical(name, probs_g[0], probs_g[1], (size_t)B * H * T);
    snprintf(name, sizeof name, "fused attention deterministic dqkv (%s)", cf->label);
    parity_check_identical(name, dqkv_g[0], dqkv_g[1], n_qkv);
    if (cf->bias) {
        snprintf(name, sizeof name, "fused attention deterministic dbias (%s)", cf->label);
        parity_check_identical(name, dbias_g[0], dbias_g[1], n_bias);
        snprintf(name, sizeof name, "fused attention dbias without dqkv (%s)", cf->label);
        parity_check_identical(name, dbias_g[0], dbias_alone_g, n_bias);
    }
    check_state_and_masked_rows(cf, kv, group, out_g[0], probs_g[0], dqkv_g[0], dqkv0);

    // ---- cleanup ----
    for (int k = 0; k < 2; k++) {
        cuda_free(out_g[k]); cuda_free(probs_g[k]); cuda_free(dqkv_g[k]); cuda_free(dbias_g[k]);
    }
    cuda_free(qkv_g); cuda_free(dout_g); cuda_free(bias_g); cuda_free(kv_g); cuda_free(group_g);
    cuda_free(scratch_g); cuda_free(dbias_alone_g); cuda_free(out_m); cuda_free(probs_m);
    cuda_free(dqkv_m); cuda_free(dbias_m);
    free(out_mh); free(dqkv_mh); free(dbias_mh);
    attention_inputs_free(&in);
    free(sentinel); free(out_c); free(probs_c); free(dqkv_c); free(dbias_c); free(scratch_c);
}

int main(void) {
    if (!parity_gpu_or_skip("cuda fused attention")) return 0;
    static const attention_case cases[] = {
        // label                                  B   T    C    H   M    kv           bias mode            tag
        {"T=1, M=1, hs=8",                         2, 1,   16,  2,  1,   KV_ALL,      1, ATTN_MASK_NONE, 300},
        {"T=17, hs=8",                             2, 17,  32,  4,  17,  KV_ALL,      0, ATTN_MASK_NONE, 310},
        {"T=33, hs=24",                            3, 33,  72,  3,  33,  KV_ALL,      0, ATTN_MASK_NONE, 320},
        {"T=65, hs=40",                            2, 65,  80,  2,  65,  KV_ALL,      0, ATTN_MASK_NONE, 330},
        {"T=197, hs=64 (ViT-B/16)",                2, 197, 384, 6,  197, KV_ALL,      0, ATTN_MASK_NONE, 340},
        {"T=33, hs=128",                           2, 33,  256, 2,  33,  KV_ALL,      0, ATTN_MASK_NONE, 350},
        {"bias, T=401, hs=128",                    1, 401, 256, 2,  401, KV_ALL,      1, ATTN_MASK_NONE, 360},
        {"bias, T=50, hs=32",                      3, 50,  64,  2,  50,  KV_ALL,      1, ATTN_MASK_NONE, 370},
        {"kv M=1 no cls, T=9",                     2, 9,   32,  2,  1,   KV_NO_CLS,   0, ATTN_MASK_NONE, 380},
        {"kv M=20 no cls, T=50",                   2, 50,  64,  4,  20,  KV_NO_CLS,   0, ATTN_MASK_NONE, 390},
        {"kv M=33 with cls, T=65, hs=64",          3, 65,  128, 2,  33,  KV_WITH_CLS, 0, ATTN_MASK_NONE, 400},
        {"kv M=59 with cls, T=197, hs=64 (MP3)",   2, 197, 768, 12, 59,  KV_WITH_CLS, 0, ATTN_MASK_NONE, 410},
        {"kv + bias, M=40, T=65",                  2, 65,  64,  2,  40,  KV_WITH_CLS, 1, ATTN_MASK_NONE, 420},
        {"group LT, T=33",                         2, 33,  64,  4,  33,  KV_ALL,      0, ATTN_MASK_LT,   430},
        {"group LE, kv M=16, T=33",                2, 33,  64,  4,  16,  KV_NO_CLS,   0, ATTN_MASK_LE,   440},
        {"group LT + bias, T=70, hs=128",          1, 70,  128, 1,  70,  KV_ALL,      1, ATTN_MASK_LT,   450},
        {"kv + bias + group LE, T=37, hs=24",      2, 37,  72,  3,  24,  KV_NO_CLS,   1, ATTN_MASK_LE,   460},
        {"kv + bias + group LT, T=197, hs=64",     2, 197, 384, 6,  49,  KV_WITH_CLS, 1, ATTN_MASK_LT,   470},
        {"kv + bias + group LT, T=70, hs=128",     1, 70,  128, 1,  45,  KV_WITH_CLS, 1, ATTN_MASK_LT,   480},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) run_case(&cases[k]);
    return test_exit_code();
}

#else

int main(void) {
    test_skip("cuda fused attention", "this build has no CUDA backend");
    return 0;
}

#endif
