// core/gemm_plan.c — the cuBLASLt algorithm cache's keys and table (see gemm_plan.h).
#include "gemm_plan.h"
#include "common.h"
#include <stdlib.h>
#include <string.h>

int gemm_key_equal(const gemm_key *a, const gemm_key *b) {
    return a->m == b->m && a->n == b->n && a->k == b->k && a->trans_a == b->trans_a &&
           a->trans_b == b->trans_b && a->lda == b->lda && a->ldb == b->ldb && a->ldc == b->ldc &&
           a->epilogue == b->epilogue && a->precision == b->precision && a->out_bf16 == b->out_bf16 &&
           a->align_a == b->align_a && a->align_b == b->align_b && a->align_c == b->align_c &&
           a->align_bias == b->align_bias;
}

// FNV-1a over the fields in order (not over the struct's bytes: no padding is read).
uint64_t gemm_key_hash(const gemm_key *k) {
    int f[] = {k->m, k->n, k->k, k->trans_a, k->trans_b, k->lda, k->ldb, k->ldc, k->epilogue,
               k->precision, k->out_bf16, k->align_a, k->align_b, k->align_c, k->align_bias};
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        uint32_t v = (uint32_t)f[i];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xffu;
            h *= 1099511628211ull;
        }
    }
    return h;
}

// The slot holding key, or the empty slot where it would go (capacity is a power of two).
static gemm_plan_entry *probe(gemm_plan_entry *slots, size_t capacity, const gemm_key *key) {
    size_t i = (size_t)gemm_key_hash(key) & (capacity - 1);
    while (slots[i].used && !gemm_key_equal(&slots[i].key, key)) i = (i + 1) & (capacity - 1);
    return &slots[i];
}

gemm_plan_entry *gemm_plan_find(gemm_plan_cache *c, const gemm_key *key) {
    if (!c->capacity) return NULL;
    gemm_plan_entry *e = probe(c->slots, c->capacity, key);
    return e->used ? e : NULL;
}

gemm_plan_entry *gemm_plan_insert(gemm_plan_cache *c, const gemm_key *key) {
    if (2 * (c->count + 1) > c->capacity) {
        size_t cap = c->capacity ? 2 * c->capacity : 64;
        gemm_plan_entry *slots = calloc(cap, sizeof *slots);
        if (!slots) die_fail("out of memory for the cuBLASLt algorithm cache (%zu entries)", cap);
        for (size_t i = 0; i < c->capacity; i++)
            if (c->slots[i].used) *probe(slots, cap, &c->slots[i].key) = c->slots[i];
        free(c->slots);
        c->slots = slots;
        c->capacity = cap;
    }
    gemm_plan_entry *e = probe(c->slots, c->capacity, key);
    if (e->used) die_fail("internal: cuBLASLt algorithm cache: key inserted twice");
    e->key = *key;
    e->used = 1;
    e->payload = NULL;
    c->count++;
    return e;
}

void gemm_plan_free(gemm_plan_cache *c) {
    free(c->slots);
    memset(c, 0, sizeof *c);
}
