// core/cuda/attention_cudnn.h — the cuDNN flash-attention route of the CUDA backend as C sees it
// (core/cuda/attention_cudnn.cpp, one C++17 translation unit around the header-only cuDNN
// frontend). Every failure to load libcudnn or to build a graph is turned into "not available:
// reason" and the caller (core/cuda/attention_cuda.cu) falls back to the materialised route;
// nothing here throws. libcudnn is loaded at run time (dlopen; POSBENCH_CUDNN_LIB names the file,
// default libcudnn.so.9 on the loader's path), so no build or run without cuDNN depends on it.
// A build without the frontend headers compiles the route out and says so in every answer.
#pragma once
#include <stddef.h>
#include "../ops_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

// Whether the route is available at all: cuda_attention_cudnn_available (core/ops_cuda.h).

// 1 when the route is available and has forward and backward graphs for d's shape (built on the
// first call per (B, H, T, M, hs, strides) and cached); otherwise 0 and the reason in why. The
// first refusal per shape is also said once on stderr. The caller checks
// attention_cudnn_expressible (core/attention_route.h) first.
int cuda_attention_cudnn_prepare(const attention_desc *d, char *why, size_t len);

// After prepare said 1 for d: out (B, T, C) fp32 = O of cuDNN's SDPA on a bf16 copy of qkv
// (B, T, 3C), scale 1/sqrt(hs); lse (B, H, T) fp32, the rows' log-sum-exp (the saved state).
// An execution error dies (exit 1) naming it.
void cuda_attention_cudnn_forward(float *out, float *lse, const float *qkv, const attention_desc *d);
// dqkv (B, T, 3C) += dq, dk, dv (bf16 from cuDNN's deterministic backward, added in fp32); out and
// lse are the forward's. An execution error dies (exit 1) naming it.
void cuda_attention_cudnn_backward(float *dqkv, const float *dout, const float *qkv,
                                   const float *out, const float *lse, const attention_desc *d);

// The same passes on bf16 storage (attention_forward_bf16 / attention_backward_bf16): q, k, v read
// in place from qkv16 (B, T, 3C, bf16), O written into out16 (B, T, C, bf16) as cuDNN computes it;
// the backward reads dout16 and out16 (bf16) and writes dqkv16 (B, T, 3C, bf16), every element
// (written, not accumulated). No conversion pass; only the graph's workspace is allocated.
void cuda_attention_cudnn_forward_bf16(void *out16, float *lse, const void *qkv16, const attention_desc *d);
void cuda_attention_cudnn_backward_bf16(void *dqkv16, const void *dout16, const void *qkv16, const void *out16,
                                        const float *lse, const attention_desc *d);

// The compact layout (attention_kv_forward_bf16 / attention_kv_backward_bf16): q read from q16
// (B, T, C), k and v from kv16 (B, M, 2C), T queries and M keys (SDPA with seq_len_q = T, seq_len_kv
// = M); prepare as above for that layout's graphs; the backward writes dq16 (B, T, C) and dkv16
// (B, M, 2C), every element.
int cuda_attention_cudnn_kv_prepare(const attention_desc *d, char *why, size_t len);
void cuda_attention_cudnn_kv_forward_bf16(void *out16, float *lse, const void *q16, const void *kv16, const attention_desc *d);
void cuda_attention_cudnn_kv_backward_bf16(void *dq16, void *dkv16, const void *dout16, const void *q16, const void *kv16,
                                           const void *out16, const float *lse, const attention_desc *d);

// "cudnn: ..." lines for `posbench --version`: compiled in or out (and why), the frontend and
// cuDNN header versions, and the library found (path and version) or why none loaded. Loads the
// library but creates no handle and no CUDA context.
void cuda_attention_cudnn_version_text(char *buf, size_t len);

#ifdef __cplusplus
}
#endif
