// core/cuda/ops_cuda_internal.cuh — the CUDA op functions, one per entry of core/ops.h's
// ops_backend, gathered into `ops_cuda` by ops_cuda.cu. Contracts are core/ops.h's; every
// pointer is a device pointer. Twin of core/cpu/ops_cpu_internal.h; the files mirror
// core/cpu/ one to one (dense, tokens, attention, posenc, resize, losses, reduce, optim,
// memory), plus cuda_common.cuh (error checks, cuBLAS handle, launch helpers, device Philox).
#pragma once
#include "cuda_common.cuh"

// dense_cuda.cu
void cuda_set_matmul_precision(int precision);
int cuda_matmul_precision(void); // MATMUL_FP32 or MATMUL_BF16, as last set
size_t cuda_memory_peak(int reset);
void cuda_linear_forward(float *out, const float *in, const float *weight, const float *bias,
                         int N, int IC, int OC);
void cuda_linear_backward(float *din, float *dweight, float *dbias, const float *dout,
                          const float *in, const float *weight, int N, int IC, int OC);
void cuda_layernorm_forward(float *out, float *mean, float *rstd, const float *in,
                            const float *weight, const float *bias, int N, int C);
void cuda_layernorm_backward(float *din, float *dweight, float *dbias, const float *dout,
                             const float *in, const float *weight, const float *mean,
                             const float *rstd, int N, int C);
void cuda_gelu_forward(float *out, const float *in, size_t n);
void cuda_gelu_backward(float *din, const float *dout, const float *in, size_t n);
void cuda_residual_forward(float *out, const float *x, const float *branch,
                           const float *keep_scale, int B, size_t S);
void cuda_residual_backward(float *dx, float *dbranch, const float *dout,
                            const float *keep_scale, int B, size_t S);
void cuda_drop_path_scales(float *keep_scale, int B, float p, rng_addr addr);
void cuda_dropout_forward(float *out, float *mask, const float *in, size_t n, float p,
                          rng_addr addr);
void cuda_dropout_backward(float *din, const float *dout, const float *mask, size_t n);

// tokens_cuda.cu
void cuda_patchify(float *patches, const float *images, int B, int Cin, int H, int W, int p);
void cuda_embed_tokens_forward(float *x, const float *patch, const float *cls, const float *pos,
                               int B, int N, int C);
void cuda_embed_tokens_backward(float *dpatch, float *dcls, float *dpos, const float *dx, int B,
                                int N, int C, int has_cls);
void cuda_gather_tokens_forward(float *out, const float *in, const int *idx, int B, int T, int M,
                                int C);
void cuda_gather_tokens_backward(float *din, const float *dout, const int *idx, int B, int T,
                                 int M, int C);
void cuda_scatter_tokens_forward(float *out, const float *in, const int *idx, int B, int T, int M,
                                 int C);
void cuda_scatter_tokens_backward(float *din, const float *dout, const int *idx, int B, int T,
                                  int M, int C);
void cuda_qkv_pack_forward(float *qkv, const float *q, const float *kv, const int *idx, int B,
                           int T, int M, int C);
void cuda_qkv_pack_backward(float *dq, float *dkv, const float *dqkv, const int *idx, int B,
                            int T, int M, int C);
void cuda_bias_gather_forward(float *out, const float *table, const int *index, int H, int E,
                              int K);
void cuda_bias_gather_backward(float *dtable, const float *dout, const int *index, int H, int E,
                               int K);
void cuda_mean_pool_forward(float *out, const float *in, int B, int T, int C, int t0);
void cuda_mean_pool_backward(float *din, const float *dout, int B, int T, int C, int t0);

// attention_cuda.cu
size_t cuda_attention_state_floats(int B, int H, int T, int M);
void cuda_attention_forward(float *out, float *probs, const float *qkv, const attention_desc *d);
void cuda_attention_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                             const float *qkv, const float *out, const float *probs,
                             const attention_desc *d);

// posenc_cuda.cu
void cuda_sincos2d_add(float *x, const float *px, const float *py, int B, int T, int C, int t0);
void cuda_sincos1d_add(float *x, const float *pt, int B, int T, int C, int t0, float freq_scale);
void cuda_rope_forward(float *qkv, const float *cos_table, const float *sin_table, int B, int T,
                       int C, int H, int t0);
void cuda_rope_backward(float *dqkv, const float *cos_table, const float *sin_table, int B, int T,
                        int C, int H, int t0);

// mixing_cuda.cu
void cuda_token_mix_forward(float *out, const float *in, const float *W, const float *bias, int B,
                            int T, int C);
void cuda_token_mix_backward(float *din, float *dW, float *dbias, const float *dout,
                             const float *in, const float *W, int B, int T, int C);
void cuda_gate_forward(float *out, const float *a, const float *g, size_t n);
void cuda_gate_backward(float *da, float *dg, const float *dout, const float *a, const float *g,
                        size_t n);

// resize_cuda.cu
void cuda_resize2d_forward(float *out, const float *in, const float *wy, const float *wx, int P,
                           int H, int W, int OH, int OW, int C);
void cuda_resize2d_backward(float *din, const float *dout, const float *wy, const float *wx,
                            int P, int H, int W, int OH, int OW, int C);

// losses_cuda.cu
void cuda_softmax_xent_forward(float *loss, float *probs, const float *logits, const int *target,
                               int N, int K, float smoothing);
void cuda_softmax_xent_backward(float *dlogits, const float *probs, const int *target, int N,
                                int K, float smoothing, float scale);
void cuda_mse_forward(float *loss, const float *pred, const float *target, int N, int D);
void cuda_mse_backward(float *dpred, const float *pred, const float *target, int N, int D,
                       float scale);

// reduce_cuda.cu
double cuda_sum(const float *x, size_t n);
void cuda_class_rank(int *rank, const float *logits, const int *target, int N, int K);
void cuda_argmax_rows(int *index, const float *x, int N, int K);
// Σ x (squares = 0) or Σ x² (squares = 1) of device x (n) in double, fixed order (the shape
// of the reduction depends on n only); returned to the host. Behind cuda_sum and
// cuda_sum_squares.
double cuda_reduce_sum_double(const float *x, size_t n, int squares);

// optim_cuda.cu
double cuda_sum_squares(const float *x, size_t n);
void cuda_scale(float *x, size_t n, float s);
void cuda_adamw_update(float *param, const float *grad, float *m, float *v, size_t n, float lr,
                       float beta1, float beta2, float eps, float weight_decay, int t);

// memory_cuda.cu
void cuda_zero(float *x, size_t n);
// A workspace that lives for one op call (not zeroed; stream-ordered, from a caching pool),
// counted by the memory meter while it lives; free it before the op returns.
void *cuda_alloc_transient(size_t bytes, const char *what);
void cuda_free_transient(void *p); // NULL is fine
// cuda_alloc, cuda_free, cuda_to_device, cuda_to_host and cuda_sync are core/ops_cuda.h's
// (C linkage); they serve as the table's alloc, free, upload, download and synchronize.
void cuda_copy(void *dst, const void *src, size_t bytes);
