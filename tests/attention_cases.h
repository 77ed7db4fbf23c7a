// tests/attention_cases.h — the attention test cases shared by the CUDA parity programs
// (tests/parity/cases_attention.c, cases_attention_routes.c): a case's shape and options, and its
// drawn key subsets and group ids, with the host reference of how many keys a query sees.
#pragma once
#include "../core/ops.h"
#include <stddef.h>
#include <stdint.h>

enum { KV_ALL = 0, KV_NO_CLS = 1, KV_WITH_CLS = 2 };

typedef struct {
    const char *label; // test-name suffix
    int B, T, C, H, M;
    int kv;   // KV_ALL (M = T, kv_index NULL) / KV_NO_CLS / KV_WITH_CLS
    int bias; // additive bias (H, T, T) on
    int mode; // ATTN_MASK_NONE / LT / LE
    unsigned tag;
} attention_case;

// Key tokens per image (B, M), no repeats, drawn at (seed, RNG_TEST, 0, tag, image): a random
// subset of 1..T-1 (MP3 context without the cls token), or token 0 first followed by one.
int *attention_case_kv(const attention_case *cf, uint32_t seed);
// Group ids (B, T) in {0, 1, 2}, drawn at (seed, RNG_TEST, 0, tag, 0); token 0 of every image
// is made to see no key: group 0 under LT (nothing is < 0), group -1 under LE (so the LE cases
// must leave token 0 out of the key set: KV_NO_CLS).
int *attention_case_groups(const attention_case *cf, uint32_t seed);
// Number of key slots query i of image b sees (host reference of the mask).
int attention_case_visible_keys(const attention_case *cf, const int *kv, const int *group, int b, int i);

// One case's host inputs, drawn the same way by every parity program: qkv (B, T, 3C) uniform in
// ±qkv_range at tag, dout (B, T, C) in ±1 at tag + 1, the gradient prefill dqkv0 (B, T, 3C) in
// ±0.5 at tag + 2 (gradients accumulate), and with the bias on, bias (H, T, T) in ±1 at tag + 3
// and its prefill dbias0 in ±0.5 at tag + 4; key subsets drawn at kv_seed and group ids at
// kv_seed + 1; desc (host pointers) with the case's options and keep_probs.
typedef struct {
    float *qkv, *dout, *dqkv0, *bias, *dbias0; // bias, dbias0 NULL without the bias
    int *kv, *group;                           // NULL for KV_ALL / ATTN_MASK_NONE
    size_t n_qkv, n_out, n_probs, n_bias;      // element counts (n_probs = B·H·T·M)
    attention_desc desc;
} attention_inputs;

void attention_inputs_make(attention_inputs *in, const attention_case *cf, float qkv_range,
                           uint32_t kv_seed, int keep_probs);
void attention_inputs_free(attention_inputs *in);