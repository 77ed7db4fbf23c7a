// core/rng.c — Philox4x32-10 (Salmon et al., SC'11) and the draws built on it.
#include "rng.h"
#include <math.h>
#include <stdlib.h>

#define PHILOX_M0 0xD2511F53u
#define PHILOX_M1 0xCD9E8D57u
#define PHILOX_W0 0x9E3779B9u
#define PHILOX_W1 0xBB67AE85u

void philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3];
    uint32_t k0 = key[0], k1 = key[1];
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)PHILOX_M0 * c0;
        uint64_t p1 = (uint64_t)PHILOX_M1 * c2;
        uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
        uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
        c0 = hi1 ^ c1 ^ k0;
        c1 = lo1;
        c2 = hi0 ^ c3 ^ k1;
        c3 = lo0;
        k0 += PHILOX_W0;
        k1 += PHILOX_W1;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}

rng_stream rng_stream_make(uint32_t seed, uint32_t purpose, uint32_t epoch, uint32_t step,
                           uint32_t index) {
    rng_stream s;
    s.key[0] = seed;
    s.key[1] = purpose;
    s.counter[0] = epoch;
    s.counter[1] = step;
    s.counter[2] = index;
    s.counter[3] = 0;
    s.used = 4;
    return s;
}

uint32_t rng_u32(rng_stream *s) {
    if (s->used == 4) {
        philox4x32_10(s->counter, s->key, s->buffer);
        s->counter[3]++;
        s->used = 0;
    }
    return s->buffer[s->used++];
}

float rng_uniform(rng_stream *s) { return (float)(rng_u32(s) >> 8) * (1.0f / 16777216.0f); }

uint32_t rng_below(rng_stream *s, uint32_t n) {
    if (n <= 1) return 0;
    uint32_t limit = UINT32_MAX - UINT32_MAX % n; // reject the uneven tail
    uint32_t r;
    do r = rng_u32(s); while (r >= limit);
    return r % n;
}

float rng_normal(rng_stream *s) {
    // Box-Muller on (0,1] x [0,1); one value per call keeps the stream simple to reason about.
    float u1 = ((float)(rng_u32(s) >> 8) + 1.0f) * (1.0f / 16777216.0f);
    float u2 = rng_uniform(s);
    return sqrtf(-2.0f * logf(u1)) * cosf(6.28318530718f * u2);
}

float rng_trunc_normal(rng_stream *s, float std, float cut) {
    for (;;) {
        float z = rng_normal(s);
        if (z >= -cut && z <= cut) return z * std;
    }
}

void rng_permutation(rng_stream *s, int n, int *out) {
    for (int i = 0; i < n; i++) out[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rng_below(s, (uint32_t)i + 1);
        int t = out[i]; out[i] = out[j]; out[j] = t;
    }
}

static int compare_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

void rng_sorted_subset(rng_stream *s, int n, int k, int *scratch) {
    rng_permutation(s, n, scratch);
    qsort(scratch, (size_t)k, sizeof(int), compare_int);
}

float rng_uniform_at(uint32_t seed, uint32_t purpose, uint32_t epoch, uint32_t step,
                     uint32_t index, uint64_t which) {
    // Element `which` lives in block which/4, lane which%4 (up to 2^34 elements per stream).
    // The top bit of the purpose word keeps these blocks apart from rng_stream's.
    uint32_t counter[4] = {epoch, step, index, (uint32_t)(which >> 2)};
    uint32_t key[2] = {seed, purpose | 0x80000000u};
    uint32_t out[4];
    philox4x32_10(counter, key, out);
    return (float)(out[which & 3] >> 8) * (1.0f / 16777216.0f);
}

void rng_uniform4_at(uint32_t seed, uint32_t purpose, uint32_t epoch, uint32_t step, uint32_t index,
                     uint64_t block, float u[4]) {
    // The same block as rng_uniform_at's element 4·block + lane, all four lanes at once.
    uint32_t counter[4] = {epoch, step, index, (uint32_t)block};
    uint32_t key[2] = {seed, purpose | 0x80000000u};
    uint32_t out[4];
    philox4x32_10(counter, key, out);
    for (int lane = 0; lane < 4; lane++) u[lane] = (float)(out[lane] >> 8) * (1.0f / 16777216.0f);
}
