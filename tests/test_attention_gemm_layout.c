// tests/test_attention_gemm_layout.c — the index arithmetic of the CUDA materialised bf16
// attention (core/attention_gemm_layout.h) checked on the host: the padded leading dimension
// of the score matrices (16-byte rows, never narrower than M) and the state it sizes; the
// pack / unpack grid covers every channel of every head row exactly once, with each thread's
// vector 16-byte aligned on the fp32 side and 8-byte aligned on the bf16 side whenever the width
// function allows 4; the softmax register bucket holds every key and stops before spilling.
#include "testing.h"
#include "../core/attention_gemm_layout.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_score_ld(void) {
    int bad = 0;
    for (int M = 1; M <= 2048; M++) {
        int ld = attn_score_ld(M);
        bad += ld < M || ld - M >= 8 || (ld * 2) % 16 != 0 || (ld * 4) % 16 != 0;
    }
    test_check("score rows padded to 8 elements: ld >= M, ld - M < 8, 16-byte rows in bf16 and fp32 (M = 1..2048)",
               bad == 0, "%d values of M wrong", bad);
    test_check("ViT-B/16 (T = M = 197): ld 200", attn_score_ld(197) == 200, "ld %d", attn_score_ld(197));
    size_t want = ((size_t)128 * 12 * 197 * 200 + 1) / 2;
    test_check("state floats of ViT-B/16 b128: ceil(B·H·T·ld / 2)", attn_gemm_state_floats(128, 12, 197, 197) == want,
               "%zu, want %zu", attn_gemm_state_floats(128, 12, 197, 197), want);
    test_check("state floats round an odd count up", attn_gemm_state_floats(1, 1, 1, 1) == 4, "%zu",
               attn_gemm_state_floats(1, 1, 1, 1));
}

// Every (row, channel) of R rows of hs channels covered exactly once by threads e < R·chunks.
static int covers_once(int R, int hs, int vec) {
    int chunks = attn_pack_chunks(hs, vec);
    if (chunks * vec != hs) return 0;
    unsigned char *hit = calloc((size_t)R * hs, 1);
    if (!hit) return 0;
    int ok = 1;
    unsigned threads = 256, blocks = ((unsigned)R * chunks + threads - 1) / threads;
    for (unsigned e = 0; e < blocks * threads; e++) {
        if (e >= (unsigned)R * (unsigned)chunks) continue; // the kernel's bound check
        int r, c;
        attn_pack_coords(e, chunks, vec, &r, &c);
        if (r < 0 || r >= R || c < 0 || c + vec > hs) { ok = 0; break; }
        for (int k = 0; k < vec; k++) ok &= hit[(size_t)r * hs + c + k]++ == 0;
    }
    for (size_t i = 0; ok && i < (size_t)R * hs; i++) ok &= hit[i] == 1;
    free(hit);
    return ok;
}

static void check_pack_grid(void) {
    static const int shapes[][2] = {{1, 8}, {17, 8}, {33, 24}, {65, 40}, {197, 64}, {65, 256}, {401, 128}, {29, 6},
                                    {2, 2}, {600, 32}, {1100, 64}, {9, 4}};
    int bad = 0;
    char what[256] = "";
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        int R = shapes[k][0], hs = shapes[k][1];
        int vec = attn_pack_vec(hs, 3 * hs * 2, hs * 2, 0x1000, 0x2000, 2);
        if (!covers_once(R, hs, vec) || !covers_once(R, hs, 1)) {
            bad++;
            snprintf(what, sizeof what, "R=%d hs=%d vec=%d", R, hs, vec);
        }
    }
    test_check("pack / unpack grid covers every channel of every head row once (12 shapes, both widths)", bad == 0,
               "%d shapes wrong, last %s", bad, what);
}

// With width 4 allowed, every thread's fp32 vector starts on 16 bytes and its bf16 vector on 8.
static void check_vector_alignment(void) {
    const int B = 3, H = 12, C = 768, hs = C / H, T = 197, M = 59, stride = 3 * C;
    uintptr_t rows = 0x10000, heads = 0x80000;
    int offs[3] = {0, C, 2 * C}, bad = 0, vec_all = 1;
    for (int o = 0; o < 3; o++) {
        int R = o ? M : T, vec = attn_pack_vec(hs, stride, offs[o], rows, heads, 2);
        vec_all &= vec == 4;
        int chunks = attn_pack_chunks(hs, vec);
        for (int bh = 0; bh < B * H; bh++)
            for (unsigned e = 0; e < (unsigned)R * chunks; e++) {
                int r, c, b = bh / H, h = bh % H;
                attn_pack_coords(e, chunks, vec, &r, &c); // token = row r (any token: stride % 4 == 0)
                uintptr_t f32 = rows + (((uintptr_t)b * T + r) * stride + offs[o] + h * hs + c) * 4;
                uintptr_t b16 = heads + (((uintptr_t)bh * R + r) * hs + c) * 2;
                bad += f32 % 16 != 0 || b16 % 8 != 0;
            }
    }
    test_check("ViT-B/16 qkv pack: width 4, every fp32 vector 16-byte and bf16 vector 8-byte aligned", vec_all && bad == 0,
               "width 4 everywhere %d, %d misaligned", vec_all, bad);
    // Each condition that breaks alignment falls back to one channel per thread.
    int w_hs = attn_pack_vec(6, 18, 6, rows, heads, 2), w_off = attn_pack_vec(64, 192, 2, rows, heads, 2);
    int w_stride = attn_pack_vec(64, 190, 0, rows, heads, 2), w_rows = attn_pack_vec(64, 192, 0, rows + 4, heads, 2);
    int w_heads = attn_pack_vec(64, 192, 0, rows, heads + 2, 2), w_heads32 = attn_pack_vec(64, 192, 0, rows, heads + 8, 4);
    test_check("width 1 when hs, offset, stride or either pointer is misaligned",
               w_hs == 1 && w_off == 1 && w_stride == 1 && w_rows == 1 && w_heads == 1 && w_heads32 == 1,
               "hs %d offset %d stride %d rows %d heads(bf16) %d heads(fp32) %d", w_hs, w_off, w_stride, w_rows, w_heads,
               w_heads32);
}

static void check_softmax_bucket(void) {
    int bad = 0;
    for (int M = 1; M <= 4096; M++) {
        int n = attn_softmax_bucket(M);
        if (M <= 512) bad += n < 1 || 32 * n < M || (n > 1 && 16 * n >= M) || (n & (n - 1));
        else bad += n != 0;
    }
    test_check("softmax register bucket: smallest power of 2 with 32·n >= M up to 512 keys, memory beyond",
               bad == 0 && attn_softmax_bucket(197) == 8 && attn_softmax_bucket(59) == 2,
               "%d wrong; M=197 -> %d, M=59 -> %d", bad, attn_softmax_bucket(197), attn_softmax_bucket(59));
}

int main(void) {
    check_score_ld();
    check_pack_grid();
    check_vector_alignment();
    check_softmax_bucket();
    return test_exit_code();
}
