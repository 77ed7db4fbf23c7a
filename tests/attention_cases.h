// tests/attention_cases.h — the attention test cases shared by the CUDA parity programs
// (test_cuda_attention.c, test_cuda_attention_fused.c): a case's shape and options, and its
// drawn key subsets and group ids, with the host reference of how many keys a query sees.
#pragma once
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
