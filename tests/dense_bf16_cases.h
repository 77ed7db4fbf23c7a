// tests/dense_bf16_cases.h — the bf16-activation ops (core/ops_list.h "bf16 activations")
// checked against their fp32 twins on one backend: on bf16-exact inputs each bf16 op gives
// bf16_round of the fp32 op's result, bit for bit (GELU forward and backward, residual +
// LayerNorm, LayerNorm backward with a bf16 output gradient, the conversions); the backward
// GELU writes rather than accumulates. Run for the CPU and guarded backends by
// tests/test_dense_bf16.c, for CUDA too when a GPU can run it.
#pragma once
#include "../core/ops.h"

// Runs every check on backend ops (its memory through ops->alloc/upload/download); label names
// the backend in the check names.
void dense_bf16_check_backend(const ops_backend *ops, const char *label);
