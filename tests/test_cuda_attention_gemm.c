// tests/test_cuda_attention_gemm.c — parity of the materialised bf16 CUDA attention
// (core/cuda/attention_gemm_cuda.cu: train.precision = bf16, keep_probs = 0) against the CPU op
// with the same bf16 rounding emulated (core/cpu/attention_cpu.c under MATMUL_BF16), and against
// the CPU in fp32 (the bf16 error itself, bounded loosely), from the same inputs. Per case: out,
// dqkv (prefilled nonzero: gradients accumulate) and dbias within tolerance; the saved state is
// P in bf16 with rows padded to a multiple of 8, ⌈B·H·T·ld / 2⌉ floats
// (cuda_attention_state_floats), and the rest of the buffer
// keeps its sentinel; rows that see no key give zero out and unchanged dq, nothing is NaN;
// forward and backward run twice give the same bits, and so does dbias computed alone (dqkv
// NULL). The route is forced (CUDA_ATTN_MATERIALISED) for the cases past the size rule; the
// rule itself is checked (bf16 and T, M <= 1024: materialised; fp32 or FUSED: lse only).
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

// Against the CPU's emulation: the products are of the same bf16 values, so the sums differ by
// fp32 order only — except where a probability or a score gradient sits at a bf16 rounding
// tie-break and rounds the other way: one bf16 step of that element (2^-8 relative; a
// probability p in [0.5, 1) moves by 2^-8, an output by up to 2^-8·|v| = 6e-3 at |v| = 1.5).
#define FWD_ATOL 8e-3
#define FWD_RTOL 1e-2
#define GRAD_ATOL 1e-2
#define GRAD_RTOL 2e-2
// Against fp32: the bf16 rounding of q, k, v, P, dout and dS itself (inputs of order 1, head
// sizes to 256: a loose bound that catches a wrong route, not bf16's own error).
#define BF16_ATOL 0.15
#define BF16_RTOL 0.1
#define SENTINEL 12345.0f

static void check_state_and_masked_rows(const attention_case *cf, const int *kv, const int *group,
                                        const float *out_g, const float *probs_g,
                                        const float *dqkv_g, const float *dqkv0, size_t n_state) {
    const int B = cf->B, T = cf->T, C = cf->C, M = cf->M;
    size_t n_out = (size_t)B * T * C, n_probs = (size_t)B * cf->H * T * M;
    float *out = parity_download(out_g, n_out), *probs = parity_download(probs_g, n_probs);
    float *dqkv = parity_download(dqkv_g, 3 * n_out);
    char name[160];
    size_t touched = 0;
    for (size_t e = n_state; e < n_probs; e++) touched += probs[e] != SENTINEL;
    snprintf(name, sizeof name, "bf16 attention keeps only P16 with rows padded to 8, ceil(B·H·T·ld/2) floats (%s)", cf->label);
    size_t ld = ((size_t)M + 7) / 8 * 8;
    test_check(name, n_state == ((size_t)B * cf->H * T * ld + 1) / 2 && touched == 0,
               "state %zu floats, %zu of %zu probs elements past it written", n_state, touched,
               n_probs - n_state);
    size_t nan = 0, bad = 0;
    int empty = 0;
    for (size_t e = 0; e < n_out; e++) nan += isnan(out[e]) != 0;
    for (size_t e = 0; e < 3 * n_out; e++) nan += isnan(dqkv[e]) != 0;
    for (int b = 0; b < B; b++)
        for (int i = 0; i < T; i++) {
            if (attention_case_visible_keys(cf, kv, group, b, i) > 0) continue;
            empty++;
            for (int c = 0; c < C; c++) {
                bad += out[((size_t)b * T + i) * C + c] != 0.0f;
                size_t q = ((size_t)b * T + i) * 3 * C + c;
                bad += memcmp(&dqkv[q], &dqkv0[q], sizeof(float)) != 0;
            }
        }
    int want_empty = cf->mode != ATTN_MASK_NONE;
    snprintf(name, sizeof name, "bf16 attention masked rows zero, no NaN (%s)", cf->label);
    test_check(name, (!want_empty || empty > 0) && bad == 0 && nan == 0,
               "%d query rows see no key, %zu nonzero out / changed dq, %zu NaN", empty, bad, nan);
    free(out); free(probs); free(dqkv);
}

// The CPU op on host copies at the given precision: out, dqkv (from dqkv0), dbias (from dbias0).
static void cpu_reference(int precision, const attention_desc *dh, const float *qkv,
                          const float *dout, const float *dqkv0, const float *dbias0, float **out,
                          float **dqkv, float **dbias) {
    const size_t n_qkv = (size_t)dh->B * dh->T * 3 * dh->C, n_out = (size_t)dh->B * dh->T * dh->C;
    const size_t n_probs = (size_t)dh->B * dh->H * dh->T * dh->M, n_bias = (size_t)dh->H * dh->T * dh->T;
    ops_cpu.set_matmul_precision(precision);
    *out = xcalloc(n_out, sizeof(float), "test out");
    float *probs = xcalloc(n_probs, sizeof(float), "test probs");
    *dqkv = xmalloc(n_qkv * sizeof(float), "test dqkv");
    memcpy(*dqkv, dqkv0, n_qkv * sizeof(float));
    float *scratch = NULL;
    *dbias = NULL;
    if (dh->bias) {
        *dbias = xmalloc(n_bias * sizeof(float), "test dbias");
        memcpy(*dbias, dbias0, n_bias * sizeof(float));
        scratch = xcalloc(n_probs, sizeof(float), "test scratch");
    }
    ops_cpu.attention_forward(*out, probs, qkv, dh);
    ops_cpu.attention_backward(*dqkv, *dbias, scratch, dout, qkv, *out, probs, dh);
    ops_cpu.set_matmul_precision(MATMUL_FP32);
    free(probs);
    free(scratch);
}

static void run_case(const attention_case *cf) {
    const int B = cf->B, T = cf->T, C = cf->C, H = cf->H, M = cf->M;
    const size_t n_qkv = (size_t)B * T * 3 * C, n_out = (size_t)B * T * C;
    const size_t n_probs = (size_t)B * H * T * M, n_bias = (size_t)H * T * T;
    char name[160];

    attention_inputs in;
    attention_inputs_make(&in, cf, 1.5f, 93, 0);
    float *qkv = in.qkv, *dout = in.dout, *dqkv0 = in.dqkv0, *bias = in.bias, *dbias0 = in.dbias0;
    int *kv = in.kv, *group = in.group;
    attention_desc dh = in.desc;
    float *sentinel = xmalloc(n_probs * sizeof(float), "test probs sentinel");
    for (size_t e = 0; e < n_probs; e++) sentinel[e] = SENTINEL;

    float *out_e, *dqkv_e, *dbias_e, *out_f, *dqkv_f, *dbias_f; // CPU: bf16 emulated, fp32
    cpu_reference(MATMUL_BF16, &dh, qkv, dout, dqkv0, dbias0, &out_e, &dqkv_e, &dbias_e);
    cpu_reference(MATMUL_FP32, &dh, qkv, dout, dqkv0, dbias0, &out_f, &dqkv_f, &dbias_f);

    float *qkv_g = parity_upload(qkv, n_qkv), *dout_g = parity_upload(dout, n_out);
    float *bias_g = cf->bias ? parity_upload(bias, n_bias) : NULL;
    int *kv_g = kv ? parity_upload_int(kv, (size_t)B * M) : NULL;
    int *group_g = group ? parity_upload_int(group, (size_t)B * T) : NULL;
    attention_desc dd = dh;
    dd.kv_index = kv_g; dd.bias = bias_g; dd.group = group_g;

    ops_cuda.set_matmul_precision(MATMUL_BF16);
    size_t n_state = ops_cuda.attention_state_floats(B, H, T, M);
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
    if (cf->bias) {
        dbias_alone_g = parity_upload(dbias0, n_bias);
        ops_cuda.attention_backward(NULL, dbias_alone_g, scratch_g, dout_g, qkv_g, out_g[0],
                                    probs_g[0], &dd);
    }
    cuda_sync();
    ops_cuda.set_matmul_precision(MATMUL_FP32);

    snprintf(name, sizeof name, "bf16 attention out vs cpu bf16 (%s)", cf->label);
    parity_check(name, out_e, out_g[0], n_out, FWD_ATOL, FWD_RTOL);
    snprintf(name, sizeof name, "bf16 attention dqkv vs cpu bf16 (%s)", cf->label);
    parity_check(name, dqkv_e, dqkv_g[0], n_qkv, GRAD_ATOL, GRAD_RTOL);
    snprintf(name, sizeof name, "bf16 attention out vs cpu fp32 (%s)", cf->label);
    parity_check(name, out_f, out_g[0], n_out, BF16_ATOL, BF16_RTOL);
    snprintf(name, sizeof name, "bf16 attention dqkv vs cpu fp32 (%s)", cf->label);
    parity_check(name, dqkv_f, dqkv_g[0], n_qkv, BF16_ATOL, BF16_RTOL);
    if (cf->bias) {
        snprintf(name, sizeof name, "bf16 attention dbias vs cpu bf16 (%s)", cf->label);
        parity_check(name, dbias_e, dbias_g[0], n_bias, GRAD_ATOL, GRAD_RTOL);
        snprintf(name, sizeof name, "bf16 attention deterministic dbias (%s)", cf->label);
        parity_check_identical(name, dbias_g[0], dbias_g[1], n_bias);
        snprintf(name, sizeof name, "bf16 attention dbias without dqkv (%s)", cf->label);
        parity_check_identical(name, dbias_g[0], dbias_alone_g, n_bias);
    }
    snprintf(name, sizeof name, "bf16 attention deterministic out (%s)", cf->label);
    parity_check_identical(name, out_g[0], out_g[1], n_out);
    snprintf(name, sizeof name, "bf16 attention deterministic P16 (%s)", cf->label);
    parity_check_identical(name, probs_g[0], probs_g[1], n_state);
    snprintf(name, sizeof name, "bf16 attention deterministic dqkv (%s)", cf->label);
    parity_check_identical(name, dqkv_g[0], dqkv_g[1], n_qkv);
    check_state_and_masked_rows(cf, kv, group, out_g[0], probs_g[0], dqkv_g[0], dqkv0, n_state);

    for (int k = 0; k < 2; k++) {
        cuda_free(out_g[k]); cuda_free(probs_g[k]); cuda_free(dqkv_g[k]); cuda_free(dbias_g[k]);
    }
    cuda_free(qkv_g); cuda_free(dout_g); cuda_free(bias_g); cuda_free(kv_g); cuda_free(group_g);
    cuda_free(scratch_g); cuda_free(dbias_alone_g);
    attention_inputs_free(&in);
    free(sentinel); free(out_e); free(dqkv_e); free(dbias_e); free(out_f); free(dqkv_f); free(dbias_f);
}

// The size rule and the forced routes, through the state each asks for.
static void check_route_rule(void) {
    const ops_backend *g = &ops_cuda;
    size_t lse = (size_t)2 * 3 * 197, p16 = ((size_t)2 * 3 * 197 * 197 + 1) / 2;
    g->set_matmul_precision(MATMUL_FP32);
    size_t fp32 = g->attention_state_floats(2, 3, 197, 197);
    g->set_matmul_precision(MATMUL_BF16);
    size_t bf16 = g->attention_state_floats(2, 3, 197, 197);
    size_t longseq = g->attention_state_floats(1, 1, 2048, 2048);
    cuda_set_attention_route(CUDA_ATTN_MATERIALISED);
    size_t forced = g->attention_state_floats(1, 1, 2048, 2048);
    cuda_set_attention_route(CUDA_ATTN_FUSED);
    size_t fused = g->attention_state_floats(2, 3, 197, 197);
    cuda_set_attention_route(CUDA_ATTN_AUTO);
    g->set_matmul_precision(MATMUL_FP32);
    test_check("attention route: fp32 fused (lse), bf16 T=197 materialised (P16), bf16 T=2048 fused "
               "unless forced, FUSED forced",
               fp32 == lse && bf16 == p16 && longseq == 2048 && forced == (size_t)2048 * 2048 / 2 &&
                   fused == lse,
               "fp32 %zu (want %zu), bf16 %zu (want %zu), T=2048 %zu / forced %zu, fused %zu", fp32,
               lse, bf16, p16, longseq, forced, fused);
}

int main(void) {
    if (!parity_gpu_or_skip("cuda bf16 attention")) return 0;
    check_route_rule();
    static const attention_case cases[] = {
        // label                                  B   T    C    H   M    kv           bias mode            tag
        {"T=1, M=1, hs=8",                         2, 1,   16,  2,  1,   KV_ALL,      1, ATTN_MASK_NONE, 300},
        {"T=17, hs=8",                             2, 17,  32,  4,  17,  KV_ALL,      0, ATTN_MASK_NONE, 310},
        {"T=33, hs=24",                            3, 33,  72,  3,  33,  KV_ALL,      0, ATTN_MASK_NONE, 320},
        {"T=65, hs=40",                            2, 65,  80,  2,  65,  KV_ALL,      0, ATTN_MASK_NONE, 330},
        {"T=197, hs=64 (ViT-B/16)",                2, 197, 384, 6,  197, KV_ALL,      0, ATTN_MASK_NONE, 340},
        {"T=65, hs=256",                           2, 65,  512, 2,  65,  KV_ALL,      0, ATTN_MASK_NONE, 350},
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
        {"T=1100 past the size rule, forced, hs=64", 1, 1100, 128, 2, 1100, KV_ALL,   0, ATTN_MASK_NONE, 490},
        // the scalar pack / unpack (hs not a multiple of 4), the memory softmax (M > 512 keys),
        // and more (image, head) pairs than the grid's y dimension holds
        {"hs=6 (scalar pack), T=29, kv M=11",      2, 29,  12,  2,  11,  KV_WITH_CLS, 1, ATTN_MASK_NONE, 500},
        {"T=600 (M > 512: softmax from memory)",   1, 600, 64,  2,  600, KV_ALL,      0, ATTN_MASK_NONE, 510},
        {"B·H = 65544 pairs past grid y, T=2",     5462, 2, 24, 12, 2,   KV_ALL,      0, ATTN_MASK_NONE, 520},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        int past_rule = cases[k].T > 1024 || cases[k].M > 1024;
        if (past_rule) cuda_set_attention_route(CUDA_ATTN_MATERIALISED);
        run_case(&cases[k]);
        cuda_set_attention_route(CUDA_ATTN_AUTO);
    }
    return test_exit_code();
}

#else

int main(void) {
    test_skip("cuda bf16 attention", "this build has no CUDA backend");
    return 0;
}

#endif
