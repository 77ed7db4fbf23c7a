// core/cpu/ops_cpu_internal.h — the CPU backend's op functions (C + OpenBLAS + OpenMP), gathered into
// the `ops_cpu` table in ops_cpu.c. Signatures and contracts are those of core/ops.h.
#pragma once
#include "../ops.h"

// memory_cpu.c
void *cpu_alloc(size_t bytes, const char *what);
void cpu_free(void *p);
void cpu_copy(void *dst, const void *src, size_t bytes);
void cpu_synchronize(void);

// reduce_cpu.c
double cpu_sum(const float *x, size_t n);
void cpu_class_rank(int *rank, const float *logits, const int *target, int N, int K);
void cpu_argmax_rows(int *index, const float *x, int N, int K);

// attention_cpu.c
void cpu_attention_forward(float *out, float *probs, const float *qkv, const attention_desc *d);
void cpu_attention_backward(float *dqkv, float *dbias, float *scratch, const float *dout,
                            const float *qkv, const float *probs, const attention_desc *d);

// posenc_cpu.c
void cpu_sincos2d_add(float *x, const float *px, const float *py, int B, int T, int C, int t0);
void cpu_rope_forward(float *qkv, const float *cos_table, const float *sin_table, int B, int T,
                      int C, int H, int t0);
void cpu_rope_backward(float *dqkv, const float *cos_table, const float *sin_table, int B, int T,
                       int C, int H, int t0);

// losses_cpu.c
void cpu_softmax_xent_forward(float *loss, float *probs, const float *logits, const int *target,
                              int N, int K, float smoothing);
void cpu_softmax_xent_backward(float *dlogits, const float *probs, const int *target, int N, int K,
                               float smoothing, float scale);
void cpu_mse_forward(float *loss, const float *pred, const float *target, int N, int D);
void cpu_mse_backward(float *dpred, const float *pred, const float *target, int N, int D,
                      float scale);

// optim_cpu.c
double cpu_sum_squares(const float *x, size_t n);
void cpu_scale(float *x, size_t n, float s);
void cpu_adamw_update(float *param, const float *grad, float *m, float *v, size_t n, float lr,
                      float beta1, float beta2, float eps, float weight_decay, int t);

// resize_cpu.c
void cpu_resize2d_forward(float *out, const float *in, const float *wy, const float *wx, int P,
                          int H, int W, int OH, int OW, int C);
void cpu_resize2d_backward(float *din, const float *dout, const float *wy, const float *wx, int P,
                           int H, int W, int OH, int OW, int C);
