// bench/results/text_index.c — text -> int hash table and composite keys (text_index.h).
#include "text_index.h"
#include "../../core/common.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) h = (h ^ *p) * 1099511628211ull;
    return h;
}

// The slot of key, or the empty slot where it would go (cap > n, a power of two).
static size_t slot_of(const text_index *t, const char *key) {
    size_t mask = t->cap - 1, i = (size_t)fnv1a(key) & mask;
    while (t->keys[i] && strcmp(t->keys[i], key)) i = (i + 1) & mask;
    return i;
}

int ti_get(const text_index *t, const char *key) {
    if (t->cap == 0) return -1;
    size_t i = slot_of(t, key);
    return t->keys[i] ? t->values[i] : -1;
}

static void grow(text_index *t) {
    text_index bigger = {0};
    bigger.cap = t->cap ? 2 * t->cap : 64;
    bigger.keys = xcalloc(bigger.cap, sizeof *bigger.keys, "text index");
    bigger.values = xcalloc(bigger.cap, sizeof *bigger.values, "text index");
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->keys[i]) continue;
        size_t j = slot_of(&bigger, t->keys[i]);
        bigger.keys[j] = t->keys[i], bigger.values[j] = t->values[i];
    }
    bigger.n = t->n;
    free(t->keys), free(t->values);
    *t = bigger;
}

int ti_put(text_index *t, const char *key, int value) {
    if (2 * (t->n + 1) > t->cap) grow(t); // at most half full
    size_t i = slot_of(t, key);
    if (t->keys[i]) return t->values[i];
    t->keys[i] = xstrdup(key, "text index key"), t->values[i] = value, t->n++;
    return value;
}

void ti_free(text_index *t) {
    for (size_t i = 0; i < t->cap; i++) free(t->keys[i]);
    free(t->keys), free(t->values);
    memset(t, 0, sizeof *t);
}

void tk_reset(text_key *k) {
    k->n = 0;
    if (k->s) k->s[0] = '\0';
}

void tk_add(text_key *k, const char *part) {
    size_t len = strlen(part), need = k->n + len + 24;
    if (need > k->cap) {
        size_t cap = k->cap ? k->cap : 256;
        while (cap < need) cap *= 2;
        char *p = realloc(k->s, cap);
        if (!p) die_fail("out of memory building a key");
        k->s = p, k->cap = cap;
    }
    k->n += (size_t)snprintf(k->s + k->n, k->cap - k->n, "%zu:%s", len, part);
}

void tk_free(text_key *k) {
    free(k->s);
    memset(k, 0, sizeof *k);
}
