// datasets/speech/split_hash.c — SHA-1 and the reference recipe's hash-based split by speaker
// (contract in split_hash.h). SHA-1 is written here (80 lines) rather than pulling in a crypto
// library for one digest; tests check it against known vectors and Python's hashlib.
#include "split_hash.h"
#include <stdio.h>
#include <string.h>

#define MAX_NUM_WAVS_PER_CLASS 134217727.0 // 2^27 - 1, as the reference recipe

static uint32_t rol(uint32_t x, int k) { return x << k | x >> (32 - k); }

static void sha1_block(uint32_t h[5], const uint8_t *p) {
    uint32_t w[80];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 | (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
    for (int t = 16; t < 80; t++) w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20) f = (b & c) | (~b & d), k = 0x5A827999u;
        else if (t < 40) f = b ^ c ^ d, k = 0x6ED9EBA1u;
        else if (t < 60) f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDCu;
        else f = b ^ c ^ d, k = 0xCA62C1D6u;
        uint32_t tmp = rol(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = rol(b, 30);
        b = a;
        a = tmp;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

void sha1_digest(const void *data, size_t len, uint8_t out[20]) {
    uint32_t h[5] = {0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u};
    const uint8_t *p = data;
    size_t full = len / 64;
    for (size_t i = 0; i < full; i++) sha1_block(h, p + 64 * i);
    uint8_t tail[128] = {0};
    size_t rest = len - 64 * full;
    memcpy(tail, p + 64 * full, rest);
    tail[rest] = 0x80;
    size_t tail_len = rest + 9 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int k = 0; k < 8; k++) tail[tail_len - 1 - k] = (uint8_t)(bits >> (8 * k));
    sha1_block(h, tail);
    if (tail_len == 128) sha1_block(h, tail + 64);
    for (int i = 0; i < 5; i++)
        for (int k = 0; k < 4; k++) out[4 * i + k] = (uint8_t)(h[i] >> (24 - 8 * k));
}

void speech_hash_name(const char *file, char *out, size_t outlen) {
    if (outlen == 0) return;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    const char *cut = strstr(base, "_nohash_");
    size_t len = cut ? (size_t)(cut - base) : strlen(base);
    if (len > outlen - 1) len = outlen - 1;
    memcpy(out, base, len);
    out[len] = '\0';
}

speech_split speech_which_set(const char *file, double validation_percentage, double testing_percentage) {
    char name[1024];
    speech_hash_name(file, name, sizeof name);
    uint8_t d[20];
    sha1_digest(name, strlen(name), d);
    // int(hexdigest, 16) % 2^27: the low 27 bits of the big-endian 160-bit number.
    uint32_t low = ((uint32_t)d[16] << 24 | (uint32_t)d[17] << 16 | (uint32_t)d[18] << 8 | d[19]) & 0x7FFFFFFu;
    double p = (double)low * (100.0 / MAX_NUM_WAVS_PER_CLASS);
    if (p < validation_percentage) return SPEECH_VALIDATION;
    if (p < testing_percentage + validation_percentage) return SPEECH_TEST;
    return SPEECH_TRAIN;
}
