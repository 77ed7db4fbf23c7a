// tests/parity/cases_attention.c — parity cases of the attention op with its probabilities kept
// (attention_desc.keep_probs = 1: core/cpu/attention_cpu.c against the CUDA materialising kernels,
// core/cuda/attention_cuda.cu): forward out and probs, backward dqkv (prefilled: gradients
// accumulate) and, with the bias on, dbias, also computed alone (dqkv NULL: the same path, the same
// bits); bitwise run to run. Cases: head sizes 8..128, T 17..401 (long rows shrink the kernels'
// query tiles), MP3 key subsets with and without the cls token, the additive bias, LT / LE group
// masks with queries that see no key (their rows zero, never NaN), everything at once.
// Tolerances: forward 1e-6 + 1e-5|ref| (FMA rounding, expf vs the CPU's polynomial exp), gradients
// 1e-5 + 1e-4|ref| (another summation order). The training routes (keep_probs = 0: fused, the
// materialised bf16 route, cuDNN) are tests/parity/cases_attention_routes.c's, with their saved
// state and route choices.
#include "parity.h"
#include "../attention_cases.h"
#include <string.h>

static const attention_case CASES[] = {
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

// p: the index into CASES
static void attention_keep_probs_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    const attention_case *cf = &CASES[p[0]];
    attention_inputs in;
    attention_inputs_make(&in, cf, 1.0f, 91, 1);
    attention_desc d = in.desc;
    float *qkv = pr_in_host(r, in.qkv, in.n_qkv), *dout = pr_in_host(r, in.dout, in.n_out);
    float *dqkv = pr_in_host(r, in.dqkv0, in.n_qkv);
    float *bias = cf->bias ? pr_in_host(r, in.bias, in.n_bias) : NULL;
    float *dbias = cf->bias ? pr_in_host(r, in.dbias0, in.n_bias) : NULL;
    float *dbias_alone = cf->bias ? pr_in_host(r, in.dbias0, in.n_bias) : NULL;
    float *scratch = cf->bias ? pr_buf(r, in.n_probs * sizeof(float)) : NULL; // as models/vit.c passes it
    d.kv_index = in.kv ? pr_in_ints(r, in.kv, (size_t)cf->B * cf->M) : NULL;
    d.group = in.group ? pr_in_ints(r, in.group, (size_t)cf->B * cf->T) : NULL;
    d.bias = bias;
    float *out = pr_buf(r, in.n_out * sizeof(float)), *probs = pr_buf(r, in.n_probs * sizeof(float));
    o->attention_forward(out, probs, qkv, &d);
    o->attention_backward(dqkv, dbias, scratch, dout, qkv, out, probs, &d);
    if (cf->bias) o->attention_backward(NULL, dbias_alone, scratch, dout, qkv, out, probs, &d);
    parity_tol fwd = {1e-6, 1e-5, 0}, grad = {1e-5, 1e-4, 0};
    pr_out(r, "out", out, in.n_out, fwd);
    pr_out(r, "probs", probs, in.n_probs, fwd);
    pr_out(r, "dqkv +=", dqkv, in.n_qkv, grad);
    if (cf->bias) {
        pr_out(r, "dbias +=", dbias, in.n_bias, grad);
        pr_out(r, "dbias += alone (dqkv NULL)", dbias_alone, in.n_bias, grad);
    }
    if (cf->mode != ATTN_MASK_NONE) { // the case must hold queries that see no key
        int empty = 0;
        for (int b = 0; b < cf->B; b++)
            for (int i = 0; i < cf->T; i++) empty += attention_case_visible_keys(cf, in.kv, in.group, b, i) == 0;
        pr_require(r, "queries that see no key", empty > 0);
    }
    attention_inputs_free(&in);
}

#define CASE(k) {"attention_forward attention_backward", "keep_probs 1, case " #k, attention_keep_probs_case, {k}, .repeat = 1}
const parity_case parity_cases_attention[] = {
    CASE(0), CASE(1), CASE(2), CASE(3), CASE(4), CASE(5), CASE(6),
    CASE(7), CASE(8), CASE(9), CASE(10), CASE(11), CASE(12), CASE(13),
};
const int parity_cases_attention_count = (int)(sizeof parity_cases_attention / sizeof parity_cases_attention[0]);
_Static_assert(sizeof parity_cases_attention / sizeof parity_cases_attention[0] == sizeof CASES / sizeof CASES[0],
               "one table entry per attention case");
