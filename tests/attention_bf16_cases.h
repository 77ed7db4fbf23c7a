// tests/attention_bf16_cases.h — attention on bf16 storage (core/ops_list.h attention_forward_bf16,
// attention_backward_bf16) on one backend: the forward's output and saved state and the backward's
// input gradient for a case, computed either by the bf16 ops or by their fp32 twins (attention_forward
// / attention_backward under MATMUL_BF16 on the widened bf16-exact inputs, the input gradient from
// zero, both outputs rounded to bf16 once), so a test compares the two on one backend bit for bit
// (tests/test_attention_bf16.c: cpu, cpu-guarded; tests/parity/cases_attention_routes.c: each backend) or one
// backend's bf16 ops against the CPU's within a tolerance (tests/parity/cases_attention_routes.c).
#pragma once
#include "../core/ops.h"
#include <stddef.h>

typedef struct {
    int B, T, H, hs;
    int mask_mode;  // ATTN_MASK_NONE, or ATTN_MASK_LT with drawn group ids (GVP's masks)
    int keep_probs; // 1: the probabilities are kept (the attention statistics' forward)
    unsigned tag;   // the inputs' draw
} attention_bf16_case;

// Host arrays: out16 (B, T, C), dqkv16 (B, T, 3C) (written over garbage by the bf16 op), the
// forward's saved state (n_state floats: attention_state_floats, or B·H·T·T with keep_probs).
typedef struct {
    size_t n_out, n_qkv, n_state;
    bfloat16 *out16, *dqkv16;
    float *state;
} attention_bf16_outputs;

// The case on backend ops, precision MATMUL_BF16 (set back to MATMUL_FP32 after): the bf16 ops
// (use_twins = 0) or the fp32 twins (use_twins = 1). Inputs: qkv (B, T, 3C) in ±2 and dout (B, T, C)
// in ±1, both rounded to bf16 (the same on every backend).
attention_bf16_outputs attention_bf16_run(const ops_backend *ops, const attention_bf16_case *c, int use_twins);
void attention_bf16_outputs_free(attention_bf16_outputs *o);
// Elements of a and b that differ: bit for bit (atol < 0; the state too), else the bf16 outputs by
// more than atol + rtol·|b| + one bf16 step (the state is not compared: its form is the backend's).
// Names the first differing output and the worst excess in why (len bytes).
size_t attention_bf16_compare(const attention_bf16_outputs *a, const attention_bf16_outputs *b, double atol, double rtol,
                              char *why, size_t len);
