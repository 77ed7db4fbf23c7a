// core/cpu/ops_cpu_internal.h — the CPU backend's op functions (C + OpenBLAS + OpenMP), one
// per entry of core/ops.h's ops_backend, gathered into the `ops_cpu` table by ops_cpu.c.
// Signatures and contracts are those of core/ops.h. Private to core/cpu/: code outside it
// reaches these through `ops_cpu`. Twin of core/cuda/ops_cuda_internal.cuh; the files mirror
// core/cuda/ one to one (dense, tokens, attention, posenc, resize, losses, reduce, optim,
// memory), plus vecmath.h (vectorising exp/erf shared by the CPU kernels).
#pragma once
#include "../ops.h"

// dense_cpu.c
size_t cpu_memory_peak(int reset);
void cpu_linear_forward(float *out, const float *in, const float *weight,
                        const float *bias, int N, int IC, int OC);
void cpu_set_matmul_precision(int precision);
int cpu_matmul_precision(void); // MATMUL_FP32 or MATMUL_BF16, as last set (attention_cpu.c reads it)
void cpu_linear_backward(float *din, float *dweight, float *dbias, const float *dout,
                         const float *in, const float *weight, int N, int IC, int OC);
void cpu_layernorm_forward(float *out, float *mean, float *rstd, const float *in,
                           const float *weight, const float *bias, int N, int C);
void cpu_layernorm_backward(float *din, float *dweight, float *dbias, const float *dout,
                            const float *in, const float *weight, const float *mean,
                            const float *rstd, int N, int C);
void cpu_gelu_forward(float *out, const float *in, size_t n);
void cpu_gelu_backward(float *din, const float *dout, const float *in, size_t n);
void cpu_residual_forward(float *out, const float *x, const float *branch,
                          const float *keep_scale, int B, size_t S);
void cpu_residual_backward(float *dx, float *dbranch, const float *dout,
                           const float *keep_scale, int B, size_t S);
void cpu_drop_path_scales(float *keep_scale, int B, float p, rng_addr a);
void cpu_dropout_forward(float *out, float *mask, const float *in, size_t n, float p,
                         rng_addr a);
void cpu_dropout_backward(float *din, const float *dout, const float *mask, size_t n);

// tokens_cpu.c
void cpu_patchify(float *patches, const float *images, int B, int Cin, int H, int W, int p);
void cpu_embed_tokens_forward(float *x, const float *patch, const float *cls,
                              const float *pos, int B, int N, int C);
void cpu_embed_tokens_backward(float *dpatch, float *dcls, float *dpos, const float *dx,
                               int B, int N, int C, int has_cls);
void cpu_gather_tokens_forward(float *out, const float *in, const int *idx, int B, int T,
                               int M, int C);
void cpu_gather_tokens_backward(float *din, const float *dout, const int *idx, int B,
                                int T, int M, int C);
void cpu_qkv_pack_forward(float *qkv, const float *q, const float *kv, const int *idx, int B,
                          int T, int M, int C);
void cpu_qkv_pack_backward(float *dq, float *dkv, const float *dqkv, const int *idx, int B,
                           int T, int M, int C);
void cpu_bias_gather_forward(float *out, const float *table, const int *index, int H, int E,
                             int K);
void cpu_bias_gather_backward(float *dtable, const float *dout, const int *index, int H,
                              int E, int K);
void cpu_scatter_tokens_forward(float *out, const float *in, const int *idx, int B, int T,
                                int M, int C);
void cpu_scatter_tokens_backward(float *din, const float *dout, const int *idx, int B,
                                 int T, int M, int C);
void cpu_mean_pool_forward(float *out, const float *in, int B, int T, int C, int t0);
void cpu_mean_pool_backward(float *din, const float *dout, int B, int T, int C, int t0);

// attention_cpu.c
size_t cpu_attention_state_floats(int B, int H, int T, int M);
void cpu_attention_forward(float *out, float *probs, const float *qkv, const attention_desc *d);
void cpu_attention_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                            const float *qkv, const float *out, const float *probs,
                            const attention_desc *d);

// posenc_cpu.c
void cpu_sincos2d_add(float *x, const float *px, const float *py, int B, int T, int C, int t0);
void cpu_sincos1d_add(float *x, const float *pt, int B, int T, int C, int t0, float freq_scale);
void cpu_rope_forward(float *qkv, const float *cos_table, const float *sin_table, int B, int T,
                      int C, int H, int t0);
void cpu_rope_backward(float *dqkv, const float *cos_table, const float *sin_table, int B, int T,
                       int C, int H, int t0);

// mixing_cpu.c
void cpu_token_mix_forward(float *out, const float *in, const float *W, const float *bias, int B,
                           int T, int C);
void cpu_token_mix_backward(float *din, float *dW, float *dbias, const float *dout,
                            const float *in, const float *W, int B, int T, int C);
void cpu_gate_forward(float *out, const float *a, const float *g, size_t n);
void cpu_gate_backward(float *da, float *dg, const float *dout, const float *a, const float *g,
                       size_t n);

// resize_cpu.c
void cpu_resize2d_forward(float *out, const float *in, const float *wy, const float *wx, int P,
                          int H, int W, int OH, int OW, int C);
void cpu_resize2d_backward(float *din, const float *dout, const float *wy, const float *wx, int P,
                           int H, int W, int OH, int OW, int C);

// losses_cpu.c
void cpu_softmax_xent_forward(float *loss, float *probs, const float *logits, const int *target,
                              int N, int K, float smoothing);
void cpu_softmax_xent_backward(float *dlogits, const float *probs, const int *target, int N, int K,
                               float smoothing, float scale);
void cpu_mse_forward(float *loss, const float *pred, const float *target, int N, int D);
void cpu_mse_backward(float *dpred, const float *pred, const float *target, int N, int D,
                      float scale);

// reduce_cpu.c
double cpu_sum(const float *x, size_t n);
void cpu_class_rank(int *rank, const float *logits, const int *target, int N, int K);
void cpu_argmax_rows(int *index, const float *x, int N, int K);

// optim_cpu.c
double cpu_sum_squares(const float *x, size_t n);
void cpu_scale(float *x, size_t n, float s);
void cpu_adamw_update(float *param, const float *grad, float *m, float *v, size_t n, float lr,
                      float beta1, float beta2, float eps, float weight_decay, int t);

// memory_cpu.c
void *cpu_alloc(size_t bytes, const char *what);
void cpu_free(void *p);
void cpu_copy(void *dst, const void *src, size_t bytes);
void cpu_synchronize(void);
void cpu_zero(float *x, size_t n);
