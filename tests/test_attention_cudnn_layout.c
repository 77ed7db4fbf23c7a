// tests/test_attention_cudnn_layout.c — the cuDNN SDPA tensor layouts of the packed attention
// buffers (core/attention_cudnn_layout.c), on the CPU: for every (b, h, s, d) of several shapes,
// offset + Σ index·stride of q, k, v is the element of qkv (B, T, 3C) the attention op reads for that
// head channel (q at channel h·hs + d, k at C + h·hs + d, v at 2C + h·hs + d of token s), of O its
// element of out (B, T, C), and of the stats its element of lse (B, H, T); each layout covers its
// buffer part exactly once; the graph cache key separates shapes and compares equal for equal ones.
// The compact layout (attention_kv_forward_bf16): q at channel h·hs + d of row s of q (B, T, C), k
// and v at h·hs + d and C + h·hs + d of key row s of kv (B, M, 2C), each buffer covered once; its
// keys differ from the packed layout's for the same B, T, C, H, M.
#include "testing.h"
#include "../core/attention_cudnn_layout.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t at(const sdpa_tensor_layout *t, int64_t b, int64_t h, int64_t s, int64_t d) {
    return t->offset + b * t->stride[0] + h * t->stride[1] + s * t->stride[2] + d * t->stride[3];
}

static void check_shape(int B, int T, int C, int H) {
    sdpa_layouts L;
    attention_cudnn_layouts(B, T, C, H, &L);
    const int hs = C / H;
    const size_t n_qkv = (size_t)B * T * 3 * C, n_out = (size_t)B * T * C, n_lse = (size_t)B * H * T;
    unsigned char *seen_qkv = calloc(n_qkv, 1), *seen_out = calloc(n_out, 1), *seen_lse = calloc(n_lse, 1);
    if (!seen_qkv || !seen_out || !seen_lse) {
        test_fail("cudnn layouts", "out of memory");
        return;
    }
    size_t wrong = 0;
    char first[200] = "";
    const sdpa_tensor_layout *part[3] = {&L.q, &L.k, &L.v};
    for (int p = 0; p < 3; p++) {
        const sdpa_tensor_layout *t = part[p];
        if (t->dim[0] != B || t->dim[1] != H || t->dim[2] != T || t->dim[3] != hs) wrong++;
    }
    if (L.o.dim[0] != B || L.o.dim[1] != H || L.o.dim[2] != T || L.o.dim[3] != hs) wrong++;
    if (L.stats.dim[0] != B || L.stats.dim[1] != H || L.stats.dim[2] != T || L.stats.dim[3] != 1) wrong++;
    if (wrong) snprintf(first, sizeof first, "dims wrong");
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int s = 0; s < T; s++) {
                for (int d = 0; d < hs; d++) {
                    for (int p = 0; p < 3; p++) {
                        int64_t want = ((int64_t)b * T + s) * 3 * C + (int64_t)p * C + h * hs + d;
                        int64_t got = at(part[p], b, h, s, d);
                        if (got != want) {
                            if (!wrong++) snprintf(first, sizeof first, "%c[%d,%d,%d,%d] at %lld, want %lld", "qkv"[p], b, h, s, d, (long long)got, (long long)want);
                        } else seen_qkv[want]++;
                    }
                    int64_t want_o = ((int64_t)b * T + s) * C + h * hs + d, got_o = at(&L.o, b, h, s, d);
                    if (got_o != want_o) {
                        if (!wrong++) snprintf(first, sizeof first, "o[%d,%d,%d,%d] at %lld, want %lld", b, h, s, d, (long long)got_o, (long long)want_o);
                    } else seen_out[want_o]++;
                }
                int64_t want_l = ((int64_t)b * H + h) * T + s, got_l = at(&L.stats, b, h, s, 0);
                if (got_l != want_l) {
                    if (!wrong++) snprintf(first, sizeof first, "stats[%d,%d,%d] at %lld, want %lld", b, h, s, (long long)got_l, (long long)want_l);
                } else seen_lse[want_l]++;
            }
    size_t not_once = 0;
    for (size_t e = 0; e < n_qkv; e++) not_once += seen_qkv[e] != 1;
    for (size_t e = 0; e < n_out; e++) not_once += seen_out[e] != 1;
    for (size_t e = 0; e < n_lse; e++) not_once += seen_lse[e] != 1;
    char name[160];
    snprintf(name, sizeof name, "cudnn layouts address qkv, out and lse as the op does (B=%d T=%d C=%d H=%d)", B, T, C, H);
    test_check(name, wrong == 0 && not_once == 0, "%zu wrong addresses (first: %s), %zu elements not covered exactly once",
               wrong, first, not_once);
    free(seen_qkv); free(seen_out); free(seen_lse);
}

static void check_compact(int B, int T, int M, int C, int H) {
    sdpa_layouts L;
    attention_cudnn_layouts_kv(B, T, M, C, H, &L);
    const int hs = C / H;
    const size_t n_q = (size_t)B * T * C, n_kv = (size_t)B * M * 2 * C;
    unsigned char *seen_q = calloc(n_q, 1), *seen_kv = calloc(n_kv, 1);
    if (!seen_q || !seen_kv) {
        test_fail("cudnn compact layouts", "out of memory");
        return;
    }
    size_t wrong = 0;
    char first[200] = "";
    if (L.q.dim[2] != T || L.k.dim[2] != M || L.v.dim[2] != M || L.o.dim[2] != T || L.stats.dim[2] != T || L.k.dim[3] != hs)
        wrong++, snprintf(first, sizeof first, "dims wrong");
    for (int b = 0; b < B; b++)
        for (int h = 0; h < H; h++)
            for (int d = 0; d < hs; d++) {
                for (int s = 0; s < T; s++) {
                    int64_t want = ((int64_t)b * T + s) * C + h * hs + d, got = at(&L.q, b, h, s, d);
                    if (got != want) {
                        if (!wrong++) snprintf(first, sizeof first, "q[%d,%d,%d,%d] at %lld, want %lld", b, h, s, d, (long long)got, (long long)want);
                    } else seen_q[want]++;
                }
                for (int s = 0; s < M; s++)
                    for (int p = 0; p < 2; p++) {
                        int64_t want = ((int64_t)b * M + s) * 2 * C + (int64_t)p * C + h * hs + d;
                        int64_t got = at(p ? &L.v : &L.k, b, h, s, d);
                        if (got != want) {
                            if (!wrong++) snprintf(first, sizeof first, "%c[%d,%d,%d,%d] at %lld, want %lld", "kv"[p], b, h, s, d, (long long)got, (long long)want);
                        } else seen_kv[want]++;
                    }
            }
    size_t not_once = 0;
    for (size_t e = 0; e < n_q; e++) not_once += seen_q[e] != 1;
    for (size_t e = 0; e < n_kv; e++) not_once += seen_kv[e] != 1;
    attention_cudnn_key packed = attention_cudnn_key_of(B, T, C, H, M), compact = attention_cudnn_key_of_kv(B, T, M, C, H);
    attention_cudnn_key compact2 = attention_cudnn_key_of_kv(B, T, M, C, H);
    int keys_ok = !attention_cudnn_key_equal(&packed, &compact) && attention_cudnn_key_equal(&compact, &compact2);
    char name[200];
    snprintf(name, sizeof name, "cudnn compact layouts address q (B, T, C) and k|v (B, M, 2C) as the op does; own cache key (B=%d T=%d M=%d C=%d H=%d)",
             B, T, M, C, H);
    test_check(name, wrong == 0 && not_once == 0 && keys_ok,
               "%zu wrong addresses (first: %s), %zu elements not covered exactly once, key distinct from the packed one: %d", wrong,
               first, not_once, keys_ok);
    free(seen_q), free(seen_kv);
}

static void check_keys(void) {
    attention_cudnn_key a = attention_cudnn_key_of(2, 197, 768, 12, 197), a2 = attention_cudnn_key_of(2, 197, 768, 12, 197);
    attention_cudnn_key other[] = {
        attention_cudnn_key_of(3, 197, 768, 12, 197), attention_cudnn_key_of(2, 65, 768, 12, 65),
        attention_cudnn_key_of(2, 197, 768, 6, 197),  attention_cudnn_key_of(2, 197, 384, 6, 197),
        attention_cudnn_key_of(2, 197, 768, 12, 59),
    };
    int distinct = 0;
    for (size_t k = 0; k < sizeof other / sizeof other[0]; k++) distinct += !attention_cudnn_key_equal(&a, &other[k]);
    // same B, H, T, hs but another width per head count: the strides tell them apart
    attention_cudnn_key w1 = attention_cudnn_key_of(2, 65, 128, 2, 65), w2 = attention_cudnn_key_of(2, 65, 128, 4, 65);
    test_check("cudnn graph cache key: equal shapes share a key, any change of B, T, H, C or M does not",
               attention_cudnn_key_equal(&a, &a2) && distinct == 5 && !attention_cudnn_key_equal(&w1, &w2) &&
                   a.hs == 64 && a.qkv_stride[2] == 3 * 768 && a.o_stride[2] == 768,
               "equal %d, %d of 5 others distinct, hs %d, qkv row stride %lld, out row stride %lld",
               attention_cudnn_key_equal(&a, &a2), distinct, a.hs, (long long)a.qkv_stride[2], (long long)a.o_stride[2]);
}

int main(void) {
    check_shape(1, 1, 16, 2);   // T = 1
    check_shape(2, 7, 64, 2);   // hs 32
    check_shape(3, 65, 128, 2); // hs 64
    check_shape(2, 197, 192, 3);
    check_compact(1, 1, 1, 16, 2);
    check_compact(2, 7, 3, 64, 2);
    check_compact(3, 65, 17, 128, 2);
    check_keys();
    return test_exit_code();
}
