// core/attention_route.h — which of the CUDA backend's attention implementations serves one call
// of core/ops_list.h's attention op, as a pure function of the call's desc, the matmul precision,
// the process-wide route setting (core/ops_cuda.h's CUDA_ATTN_*) and whether the cuDNN route is
// ready; and the saved-state size that every route a setting may take fits in. Plain C with no
// CUDA, so the rules are unit-tested on any machine (tests/test_attention_route.c); used by
// core/cuda/attention_cuda.cu.
#pragma once
#include "ops.h"
#include <stddef.h>

typedef enum {
    ATTN_ROUTE_PROBS = 0,        // keep_probs = 1: the fp32 kernels that write the probabilities
    ATTN_ROUTE_FUSED = 1,        // fp32 online-softmax kernels, saved state: row lse (B, H, T)
    ATTN_ROUTE_MATERIALISED = 2, // route A, bf16 cuBLAS products, saved state: P16
    ATTN_ROUTE_CUDNN = 3,        // cuDNN's fused flash attention (bf16), saved state: lse (B, H, T)
} attention_route;

// The automatic size rule: the materialised route while T and M stay at most this many (its T×M
// matrices are the route's memory and traffic), the fused kernels beyond.
#define ATTN_GEMM_MAX_KEYS 1024

// 1 when cuDNN's SDPA graph (core/cuda/attention_cudnn.cpp) can express the call: training
// (keep_probs 0), all T keys (no kv_index), no group mask, no bias, precision MATMUL_BF16, and a
// head size hs = C/H that is a multiple of 8 (16-byte aligned bf16 rows) and at most 128.
// Otherwise 0 and the first reason in why (len bytes; why may be NULL when len is 0).
int attention_cudnn_expressible(const attention_desc *d, int precision, char *why, size_t len);
// The same rule for training calls of width C and H heads that use at most `uses` (ATTN_USES_*,
// core/ops.h), before any desc exists: what the state's size is planned on.
int attention_cudnn_expressible_uses(unsigned uses, int C, int H, int precision, char *why, size_t len);

// What the cuDNN route can do for one call, as the CUDA backend found it: the library did not load
// (or was not asked for), it loaded and has a graph for the call's shape, or it loaded and could
// not build one for this shape.
enum { ATTN_CUDNN_ABSENT = 0, ATTN_CUDNN_READY = 1, ATTN_CUDNN_NO_GRAPH = 2 };

// The route of one call. setting: CUDA_ATTN_AUTO (the size rule), _MATERIALISED (or
// _MATERIALISED_INPLACE: the same route, its bf16-storage calls reading their operands in place),
// _FUSED or _CUDNN; cudnn: ATTN_CUDNN_*. Under _CUDNN an expressible call takes cuDNN when READY
// and the fused kernels when NO_GRAPH (its state was sized for cuDNN's row log-sum-exp, which is
// also the fused kernels' state: see attention_route_state_floats); a call cuDNN cannot express,
// or any call while the library is ABSENT, takes the AUTO rule. keep_probs = 1 is always
// ATTN_ROUTE_PROBS; fp32 is always fused.
attention_route attention_route_for(const attention_desc *d, int precision, int setting, int cudnn);

// Floats of the saved state (the `probs` buffer with keep_probs = 0) for B images, H heads, T query
// rows, M key slots, width C, for calls that use at most `uses`: large enough for every route such
// a call may take under `setting` and `precision` (the state is sized before a desc exists):
// B·H·T for the fused and cuDNN routes, ⌈B·H·T·ld / 2⌉ for P16 of the materialised one. Under
// _CUDNN with cudnn_loaded (the library loaded) and calls cuDNN can express, B·H·T: cuDNN's state,
// and the fused kernels' when a shape has no graph (attention_route_for); otherwise the larger of
// the cuDNN state and the AUTO rule's (its fallback).
size_t attention_route_state_floats(int B, int H, int T, int M, int C, unsigned uses, int precision, int setting,
                                    int cudnn_loaded);

// "probs", "fused", "materialised", "cudnn".
const char *attention_route_name(attention_route r);

// The settings by name, as `posbench bench --attention` and the key train.attention spell them.
#define ATTENTION_ROUTE_SETTINGS "auto|materialised|fused|cudnn|materialised-inplace"
// CUDA_ATTN_AUTO, _MATERIALISED, _FUSED, _CUDNN or _MATERIALISED_INPLACE for "auto", "materialised",
// "fused", "cudnn", "materialised-inplace"; -1 for anything else.
int attention_route_setting_named(const char *name);
// 1 when the setting needs train.precision=bf16 (materialised, cudnn, materialised-inplace).
int attention_route_setting_needs_bf16(int setting);
