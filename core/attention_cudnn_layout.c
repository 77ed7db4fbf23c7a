// core/attention_cudnn_layout.c — the cuDNN SDPA tensor layouts of the packed attention buffers
// (core/attention_cudnn_layout.h).
#include "attention_cudnn_layout.h"
#include <string.h>

static sdpa_tensor_layout layout(int64_t B, int64_t H, int64_t S, int64_t D, int64_t sb, int64_t sh,
                                 int64_t ss, int64_t sd, int64_t offset) {
    sdpa_tensor_layout t = {{B, H, S, D}, {sb, sh, ss, sd}, offset};
    return t;
}

void attention_cudnn_layouts(int B, int T, int C, int H, sdpa_layouts *L) {
    const int64_t hs = C / H, row3 = 3 * (int64_t)C; // one token's q | k | v
    L->q = layout(B, H, T, hs, T * row3, hs, row3, 1, 0);
    L->k = layout(B, H, T, hs, T * row3, hs, row3, 1, C);
    L->v = layout(B, H, T, hs, T * row3, hs, row3, 1, 2 * (int64_t)C);
    L->o = layout(B, H, T, hs, (int64_t)T * C, hs, C, 1, 0);
    L->stats = layout(B, H, T, 1, (int64_t)H * T, T, 1, 1, 0);
}

void attention_cudnn_layouts_kv(int B, int T, int M, int C, int H, sdpa_layouts *L) {
    const int64_t hs = C / H, row2 = 2 * (int64_t)C; // one key's k | v
    L->q = layout(B, H, T, hs, (int64_t)T * C, hs, C, 1, 0);
    L->k = layout(B, H, M, hs, M * row2, hs, row2, 1, 0);
    L->v = layout(B, H, M, hs, M * row2, hs, row2, 1, C);
    L->o = layout(B, H, T, hs, (int64_t)T * C, hs, C, 1, 0);
    L->stats = layout(B, H, T, 1, (int64_t)H * T, T, 1, 1, 0);
}

static attention_cudnn_key key_of(int B, int T, int M, int C, int H, const sdpa_layouts *L) {
    attention_cudnn_key k;
    memset(&k, 0, sizeof k); // padding too: keys compare field by field, but stay deterministic
    k.B = B, k.H = H, k.T = T, k.M = M, k.hs = C / H;
    memcpy(k.qkv_stride, L->q.stride, sizeof k.qkv_stride);
    memcpy(k.kv_stride, L->k.stride, sizeof k.kv_stride);
    memcpy(k.o_stride, L->o.stride, sizeof k.o_stride);
    return k;
}

attention_cudnn_key attention_cudnn_key_of(int B, int T, int C, int H, int M) {
    sdpa_layouts L;
    attention_cudnn_layouts(B, T, C, H, &L);
    return key_of(B, T, M, C, H, &L);
}

attention_cudnn_key attention_cudnn_key_of_kv(int B, int T, int M, int C, int H) {
    sdpa_layouts L;
    attention_cudnn_layouts_kv(B, T, M, C, H, &L);
    return key_of(B, T, M, C, H, &L);
}

int attention_cudnn_key_equal(const attention_cudnn_key *a, const attention_cudnn_key *b) {
    if (a->B != b->B || a->H != b->H || a->T != b->T || a->M != b->M || a->hs != b->hs) return 0;
    for (int i = 0; i < 4; i++)
        if (a->qkv_stride[i] != b->qkv_stride[i] || a->kv_stride[i] != b->kv_stride[i] || a->o_stride[i] != b->o_stride[i])
            return 0;
    return 1;
}
