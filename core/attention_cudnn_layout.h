// core/attention_cudnn_layout.h — how cuDNN's SDPA graph (core/cuda/attention_cudnn.cpp) sees the
// attention op's packed buffers: the logical (B, H, S, D) dims and element strides of q, k, v read
// in place from a (B, T, 3, H, hs) = (B, T, 3C) qkv copy, of O and dO in (B, T, H, hs) = (B, T, C),
// and of the row log-sum-exp (B, H, T, 1); dq, dk, dv are written with q, k, v's layout into a
// (B, T, 3C) gradient buffer. MP3's compact bf16 layout (attention_kv_forward_bf16) reads q from
// q (B, T, C) and k, v from kv (B, M, 2C): T query rows, M key rows. Also the key of the per-shape
// graph cache. Plain C, unit-tested on the CPU (tests/test_attention_cudnn_layout.c).
#pragma once
#include <stddef.h>
#include <stdint.h>

// Element (b, h, s, d) of a tensor lives at offset + b·stride[0] + h·stride[1] + s·stride[2] +
// d·stride[3] elements from its buffer's base.
typedef struct {
    int64_t dim[4];    // (B, H, S, D)
    int64_t stride[4]; // in elements
    int64_t offset;    // in elements, from the buffer's base
} sdpa_tensor_layout;

typedef struct {
    sdpa_tensor_layout q, k, v; // in qkv (B, T, 3C); dq, dk, dv alike in dqkv (compact: q in q, k and v in kv)
    sdpa_tensor_layout o;       // in out (B, T, C); dO alike in dout
    sdpa_tensor_layout stats;   // lse (B, H, T, 1) fp32
} sdpa_layouts;

// The layouts for B images of T tokens, width C, H heads (hs = C/H).
void attention_cudnn_layouts(int B, int T, int C, int H, sdpa_layouts *L);
// The compact layout's: q (B, H, T, hs) in q (B, T, C), k and v (B, H, M, hs) in kv (B, M, 2C) at
// channel offsets 0 and C; o and stats as above (T query rows).
void attention_cudnn_layouts_kv(int B, int T, int M, int C, int H, sdpa_layouts *L);

// The graph cache key: one entry per distinct value. The strides are part of it, so a caller
// with another layout never reuses a graph built for this one.
typedef struct {
    int B, H, T, M, hs;
    int64_t qkv_stride[4], kv_stride[4], o_stride[4]; // q's, k's (and v's), O's
} attention_cudnn_key;

attention_cudnn_key attention_cudnn_key_of(int B, int T, int C, int H, int M);
attention_cudnn_key attention_cudnn_key_of_kv(int B, int T, int M, int C, int H); // the compact layout's
int attention_cudnn_key_equal(const attention_cudnn_key *a, const attention_cudnn_key *b);
