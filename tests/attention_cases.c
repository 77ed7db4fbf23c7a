// tests/attention_cases.c — the shared attention test cases (attention_cases.h).
#include "attention_cases.h"
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
