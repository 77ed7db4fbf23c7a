// tests/test_attention_gemm_layout.c — the index arithmetic of the CUDA materialised bf16
// attention (core/attention_gemm_layout.h) checked on the host: the padded leading dimension
// of the score matrices (16-byte rows, never narrower than M) and the state it sizes; the
// pack / unpack grid covers every channel of every head row exactly once, with each thread's
// vector 16-byte aligned on the fp32 side and 8-byte aligned on the bf16 side whenever the width
// function allows 4; the softmax register bucket holds every key and stops before spilling. The
// in-place operands (setting materialised-inplace): every element of every pair's strided view
// (attn_pair_offset + r·ld + c) is the element the pack reads / the unpack writes
// (attn_rows_offset at the pack's own thread coordinates, attn_pack_coords), for the packed
// qkv (B, T, 3C) and MP3's compact q (B, T, C), k|v (B, M, 2C) with M < T, T in {1, 7, 65, 197},
// hs in {32, 64}, H in {1, 3, 12}; every pair pointer and leading dimension of a usable call is
// 16-byte aligned; each way of breaking that (a pointer, hs, kv_index) keeps the pack; the in-place
// workspace holds its pointer arrays and is smaller than the pack's.
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

// One view of one layout against the pack's index math: for every pair (b, h) and every thread
// e of the pack grid (vec channels at head row r, channel c), the view's element equals
// attn_rows_offset's. Returns the number of elements that differ.
static size_t view_mismatches(attn_view v, int B, int H, int R, int hs, int rows_per_image, int stride, int off) {
    size_t bad = 0;
    const int vec = 1, chunks = attn_pack_chunks(hs, vec);
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++) {
            const size_t pair = attn_pair_offset(v, b, h);
            for (unsigned e = 0; e < (unsigned)R * (unsigned)chunks; e++) {
                int r, c;
                attn_pack_coords(e, chunks, vec, &r, &c);
                bad += pair + (size_t)r * v.ld + c != attn_rows_offset(b, h, r, c, rows_per_image, stride, off, hs);
            }
        }
    return bad;
}

static void check_inplace_views(void) {
    static const int Ts[] = {1, 7, 65, 197}, hss[] = {32, 64}, Hs[] = {1, 3, 12};
    const int B = 3;
    size_t bad = 0, shapes = 0, misaligned = 0;
    char first[200] = "";
    for (size_t ti = 0; ti < 4; ti++)
        for (size_t si = 0; si < 2; si++)
            for (size_t hi = 0; hi < 3; hi++)
                for (int compact = 0; compact <= 1; compact++) {
                    const int T = Ts[ti], hs = hss[si], H = Hs[hi], C = H * hs;
                    const int M = compact ? (T > 1 ? (T + 3) / 4 : 1) : T; // MP3's context: M < T (T = 1: 1)
                    const attn_qkv_layout L = compact ? attn_layout_compact(M, C) : attn_layout_packed(T, C, NULL);
                    const attn_inplace_views w = attn_inplace_views_of(&L, T, C, H);
                    size_t n = view_mismatches(w.q, B, H, T, hs, T, L.q_stride, 0) +
                               view_mismatches(w.k, B, H, M, hs, L.kv_rows, L.kv_stride, L.k_off) +
                               view_mismatches(w.v, B, H, M, hs, L.kv_rows, L.kv_stride, L.v_off) +
                               view_mismatches(w.o, B, H, T, hs, T, C, 0);
                    // the pack's own layout arguments (attention_gemm_cuda.cu pack_qkv / unpack_heads)
                    n += compact ? (L.q_stride != C || L.kv_rows != M || L.kv_stride != 2 * C || L.k_off || L.v_off != C)
                                 : (L.q_stride != 3 * C || L.kv_rows != T || L.kv_stride != 3 * C || L.k_off != C ||
                                    L.v_off != 2 * C);
                    // every pair pointer 16-byte aligned and ld·2 a multiple of 16 (bases 256-aligned)
                    const uintptr_t base = 0x100000;
                    const attn_view views[4] = {w.q, w.k, w.v, w.o};
                    for (int k = 0; k < 4; k++) {
                        misaligned += (views[k].ld * 2) % 16 != 0;
                        for (int b = 0; b < B; b++)
                            for (int h = 0; h < H; h++) misaligned += (base + attn_pair_offset(views[k], b, h) * 2) % 16 != 0;
                    }
                    int usable = attn_inplace_usable(&L, T, C, H, base, base + 0x1000000, base + 0x2000000,
                                                     base + 0x3000000, base + 0x4000000);
                    if (n || !usable) {
                        if (!bad) snprintf(first, sizeof first, "T=%d hs=%d H=%d %s: %zu elements differ, usable %d", T, hs,
                                           H, compact ? "compact" : "packed", n, usable);
                        bad++;
                    }
                    shapes++;
                }
    test_check("in-place views: every element of every (image, head) matrix is the pack's, and the call is usable "
               "(packed and compact layouts, T 1/7/65/197, hs 32/64, H 1/3/12)",
               bad == 0 && shapes == 48, "%zu of %zu shapes wrong; first: %s", bad, shapes, first);
    test_check("in-place views of aligned bases: every pair pointer 16-byte aligned, every ld·2 a multiple of 16",
               misaligned == 0, "%zu misaligned", misaligned);
    // The score matrices (B, H, T, ld) as views: pair (b, h) at (b·H + h)·T·ld, the strided layout
    // of the pack path's products.
    const attn_view s = attn_view_heads(12, 197, attn_score_ld(59));
    test_check("score matrix view: pair (b, h) at (b·H + h)·T·ld", attn_pair_offset(s, 2, 5) == (size_t)(2 * 12 + 5) * 197 * 64,
               "%zu", attn_pair_offset(s, 2, 5));
}

// Each condition that breaks the in-place rule keeps the pack path.
static void check_inplace_fallbacks(void) {
    const uintptr_t a = 0x100000, b = 0x200000, o = 0x300000, g = 0x400000, g2 = 0x500000;
    const attn_qkv_layout vit = attn_layout_packed(197, 768, NULL), mp3 = attn_layout_compact(50, 768);
    const int idx[1] = {0};
    const attn_qkv_layout keyed = attn_layout_packed(197, 768, idx);
    const attn_qkv_layout hs4 = attn_layout_packed(7, 12, NULL), hs12 = attn_layout_compact(3, 36);
    const attn_qkv_layout hs12x2 = attn_layout_packed(7, 24, NULL);
    struct { const char *what; int got, want; } c[] = {
        {"ViT-B/16 packed, forward", attn_inplace_usable(&vit, 197, 768, 12, a, a, o, 0, 0), 1},
        {"ViT-B/16 packed, backward", attn_inplace_usable(&vit, 197, 768, 12, a, a, o, g, g), 1},
        {"MP3 compact, backward", attn_inplace_usable(&mp3, 197, 768, 12, a, b, o, g, g2), 1},
        {"kv_index (rows not strided)", attn_inplace_usable(&keyed, 197, 768, 12, a, a, o, 0, 0), 0},
        {"hs 4 (C 12, H 3)", attn_inplace_usable(&hs4, 7, 12, 3, a, a, o, 0, 0), 0},
        {"hs 12 (not 8 elements)", attn_inplace_usable(&hs12, 7, 36, 3, a, b, o, 0, 0), 0},
        {"hs 12, H 2 (rows of 3C = 72 aligned, head 1 at 24 bytes)", attn_inplace_usable(&hs12x2, 7, 24, 2, a, a, o, 0, 0), 0},
        {"q 8 bytes off", attn_inplace_usable(&mp3, 197, 768, 12, a + 8, b, o, 0, 0), 0},
        {"kv 2 bytes off", attn_inplace_usable(&mp3, 197, 768, 12, a, b + 2, o, 0, 0), 0},
        {"out 8 bytes off", attn_inplace_usable(&mp3, 197, 768, 12, a, b, o + 8, 0, 0), 0},
        {"dq 8 bytes off", attn_inplace_usable(&mp3, 197, 768, 12, a, b, o, g + 8, g2), 0},
        {"dkv 8 bytes off", attn_inplace_usable(&mp3, 197, 768, 12, a, b, o, g, g2 + 8), 0},
        {"H does not divide C", attn_inplace_usable(&vit, 197, 768, 7, a, a, o, 0, 0), 0},
    };
    int bad = 0;
    char first[160] = "";
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++)
        if (c[k].got != c[k].want && !bad++) snprintf(first, sizeof first, "%s: %d, want %d", c[k].what, c[k].got, c[k].want);
    test_check("in place only when usable: aligned strided heads yes; kv_index, hs 4 / 12 (also with aligned rows), H not "
               "dividing C, or a "
               "pointer off 16 bytes keep the pack", bad == 0, "%d wrong; first %s", bad, first);
    // The attn_view_aligned_bf16 rule itself: ld·2 bytes a multiple of 16 and 16-byte pair starts.
    // odd_ld: 8 rows per image, so each pair's start is 16-byte aligned and only the row stride is not
    const attn_view ok = attn_view_rows(197, 2304, 768, 64), odd_ld = attn_view_rows(8, 2300, 0, 64);
    const attn_view odd_off = attn_view_rows(197, 2304, 4, 64);
    test_check("view alignment: ld 2304 ok; ld 2300 (pair starts aligned), channel offset 4, base 8 bytes off refused",
               attn_view_aligned_bf16(a, ok) && !attn_view_aligned_bf16(a, odd_ld) && !attn_view_aligned_bf16(a, odd_off) &&
                   !attn_view_aligned_bf16(a + 8, ok),
               "ok %d, ld %d, off %d, base %d", attn_view_aligned_bf16(a, ok), attn_view_aligned_bf16(a, odd_ld),
               attn_view_aligned_bf16(a, odd_off), attn_view_aligned_bf16(a + 8, ok));
}

// The in-place workspace: the forward's parts within its total, the backward's after the shared
// score matrix, room for every pointer array, 256-byte aligned parts, and less than the pack's.
static void check_inplace_workspace(void) {
    static const int shapes[][4] = {{128, 12, 197, 50}, {2, 3, 7, 3}, {1, 1, 1, 1}, {64, 12, 197, 197}};
    int bad = 0;
    char first[200] = "";
    for (size_t k = 0; k < 4; k++) {
        const int B = shapes[k][0], H = shapes[k][1], T = shapes[k][2], M = shapes[k][3];
        const attn_inplace_workspace L = attn_inplace_workspace_of(B, H, T, M);
        const size_t tm = (size_t)B * H * T * attn_score_ld(M), BH = (size_t)B * H;
        int ok = L.mat32 == 0 && L.ptrs >= tm * 4 && L.fwd_total - L.ptrs >= BH * ATTN_INPLACE_FWD_ARRAYS * sizeof(void *) &&
                 L.mat16 - L.bwd_ptrs >= BH * ATTN_INPLACE_BWD_ARRAYS * sizeof(void *) && L.total - L.mat16 >= tm * 2 &&
                 L.ptrs % 256 == 0 && L.bwd_ptrs % 256 == 0 && L.mat16 % 256 == 0 && L.total % 256 == 0 &&
                 L.bwd_ptrs >= L.ptrs && L.fwd_total <= L.total &&
                 L.total < attn_gemm_workspace_of(B, H, T, M, H * 64).total &&
                 L.fwd_total < attn_gemm_workspace_of(B, H, T, M, H * 64).fwd_total;
        if (!ok && !bad++)
            snprintf(first, sizeof first, "B %d H %d T %d M %d: ptrs %zu fwd %zu bwd_ptrs %zu mat16 %zu total %zu", B, H, T,
                     M, L.ptrs, L.fwd_total, L.bwd_ptrs, L.mat16, L.total);
    }
    test_check("in-place workspace: scores, pointer arrays (6 forward, 10 backward) and dS16 fit, 256-byte parts, "
               "smaller than the pack's (hs 64)", bad == 0, "%s", first);
}

int main(void) {
    check_score_ld();
    check_pack_grid();
    check_vector_alignment();
    check_softmax_bucket();
    check_inplace_views();
    check_inplace_fallbacks();
    check_inplace_workspace();
    return test_exit_code();
}
