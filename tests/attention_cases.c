// tests/attention_cases.c — the shared attention test cases (attention_cases.h).
#include "attention_cases.h"
#include "testing.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/rng.h"
#include <stdlib.h>

int *attention_case_kv(const attention_case *cf, uint32_t seed) {
    int *kv = xmalloc((size_t)cf->B * cf->M * sizeof(int), "test kv_index");
    int *perm = xmalloc((size_t)cf->T * sizeof(int), "test perm");
    for (int b = 0; b < cf->B; b++) {
        rng_stream s = rng_stream_make(seed, RNG_TEST, 0, cf->tag, (uint32_t)b);
        rng_permutation(&s, cf->T - 1, perm);
        int *row = kv + (size_t)b * cf->M, m = 0;
        if (cf->kv == KV_WITH_CLS) row[m++] = 0;
        for (int e = 0; m < cf->M; e++) row[m++] = perm[e] + 1;
    }
    free(perm);
    return kv;
}

int *attention_case_groups(const attention_case *cf, uint32_t seed) {
    int *g = xmalloc((size_t)cf->B * cf->T * sizeof(int), "test group");
    rng_stream s = rng_stream_make(seed, RNG_TEST, 0, cf->tag, 0);
    for (int e = 0; e < cf->B * cf->T; e++) g[e] = (int)rng_below(&s, 3);
    for (int b = 0; b < cf->B; b++) g[(size_t)b * cf->T] = cf->mode == ATTN_MASK_LT ? 0 : -1;
    return g;
}

int attention_case_visible_keys(const attention_case *cf, const int *kv, const int *group, int b, int i) {
    if (cf->mode == ATTN_MASK_NONE) return cf->M;
    int gi = group[(size_t)b * cf->T + i], n = 0;
    for (int m = 0; m < cf->M; m++) {
        int j = kv ? kv[(size_t)b * cf->M + m] : m;
        int gj = group[(size_t)b * cf->T + j];
        n += cf->mode == ATTN_MASK_LE ? gj <= gi : gj < gi;
    }
    return n;
}

void attention_inputs_make(attention_inputs *in, const attention_case *cf, float qkv_range,
                           uint32_t kv_seed, int keep_probs) {
    const int B = cf->B, T = cf->T, C = cf->C, H = cf->H, M = cf->M;
    in->n_qkv = (size_t)B * T * 3 * C;
    in->n_out = (size_t)B * T * C;
    in->n_probs = (size_t)B * H * T * M;
    in->n_bias = (size_t)H * T * T;
    in->qkv = xmalloc(in->n_qkv * sizeof(float), "test qkv");
    in->dout = xmalloc(in->n_out * sizeof(float), "test dout");
    in->dqkv0 = xmalloc(in->n_qkv * sizeof(float), "test dqkv prefill");
    test_fill_uniform(in->qkv, in->n_qkv, -qkv_range, qkv_range, cf->tag);
    test_fill_uniform(in->dout, in->n_out, -1.0f, 1.0f, cf->tag + 1);
    test_fill_uniform(in->dqkv0, in->n_qkv, -0.5f, 0.5f, cf->tag + 2);
    in->bias = in->dbias0 = NULL;
    if (cf->bias) {
        in->bias = xmalloc(in->n_bias * sizeof(float), "test bias");
        in->dbias0 = xmalloc(in->n_bias * sizeof(float), "test dbias prefill");
        test_fill_uniform(in->bias, in->n_bias, -1.0f, 1.0f, cf->tag + 3);
        test_fill_uniform(in->dbias0, in->n_bias, -0.5f, 0.5f, cf->tag + 4);
    }
    in->kv = cf->kv != KV_ALL ? attention_case_kv(cf, kv_seed) : NULL;
    in->group = cf->mode != ATTN_MASK_NONE ? attention_case_groups(cf, kv_seed + 1) : NULL;
    in->desc = (attention_desc){.B = B, .T = T, .C = C, .H = H, .M = M, .kv_index = in->kv,
                                .bias = in->bias, .group = in->group, .mask_mode = cf->mode,
                                .keep_probs = keep_probs};
}

void attention_inputs_free(attention_inputs *in) {
    free(in->qkv); free(in->dout); free(in->dqkv0); free(in->bias); free(in->dbias0);
    free(in->kv); free(in->group);
}