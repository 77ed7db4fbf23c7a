// tests/parity/cases_attention_bf16.c — parity cases of the attention ops on bf16 storage
// (attention_forward_bf16, attention_backward_bf16: core/cpu/attention_bf16_cpu.c against the
// route the CUDA backend picks by default, core/cuda/attention_bf16_cuda.cu) under MATMUL_BF16:
// out16 and dqkv16 (written over garbage: an op that accumulated would show) against the CPU's,
// within 2e-2 + 2e-2·|ref| plus one bf16 step (both round q, k, v, P, dS and the outputs at the
// same points and sum in other orders: the cuDNN route's gradient tolerance);
// cpu-guarded bit for bit; bitwise run to run. The saved state is not compared (its form is the
// backend's: probabilities on the CPU, the log-sum-exp or bf16 P on CUDA). The routes one by one
// with the exact rule "bf16 op = bf16(fp32 op)" on the GPU are tests/parity/cases_attention_routes.c's
// cases; tests/test_attention_bf16.c checks that rule on the CPU.
// The compact layout (attention_kv_forward_bf16 / attention_kv_backward_bf16: q16 (B, T, C), kv16
// (B, M, 2C), MP3 under train.activations=bf16) likewise: out16, dq16 and dkv16 (both written over
// garbage) against the CPU's, for T in {1, 7, 65, 197} with M < T, head sizes 32 and 64, and kept
// probabilities (the fp32 kernels' fallback on CUDA); and per route (POSBENCH_ATTENTION=materialised,
// cudnn, fused: the fp32 kernels on the widened inputs), the route taken being the case's
// (cuda_attention_kv_route_of; the cuDNN cases SKIP when the route is not available). Under
// POSBENCH_ATTENTION=materialised-inplace (q16, kv16, dout16 read and out16, dq16, dkv16 written
// in their rows, no head-major copies: attention_gemm_cuda.cu) for T in {1, 7, 65, 197}, M < T,
// hs 32 and 64, 2 and 12 heads, the forward and backward counted as in place
// (cuda_attention_inplace_calls rises by 2); hs 12 (heads not 16-byte aligned) counted as packed.
#include "parity.h"
#include "../../core/attention_route.h"
#include "../../core/bf16.h"
#include "../../core/ops_cuda.h"
#include <stdio.h>
#include <string.h>

// n values uniform in ±range from the case's stream, rounded to bf16, in backend memory.
static bfloat16 *bf16_input(parity_run *r, size_t n, float range) {
    const float *drawn = pr_host_of(r, pr_in(r, n, -range, range));
    bfloat16 *h = pr_host(r, n * sizeof(bfloat16));
    for (size_t i = 0; i < n; i++) h[i] = bf16_from_float(drawn[i]);
    return pr_in_bf16(r, h, n);
}

// p: B, T, H, hs, keep_probs
static void attention_bf16_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int B = p[0], T = p[1], H = p[2], C = H * p[3], keep = p[4];
    size_t n_out = (size_t)B * T * C, n_qkv = 3 * n_out, n_probs = (size_t)B * H * T * T;
    attention_desc d = {.B = B, .T = T, .C = C, .H = H, .M = T, .mask_mode = ATTN_MASK_NONE, .keep_probs = keep};
    bfloat16 *qkv16 = bf16_input(r, n_qkv, 2.0f), *dout16 = bf16_input(r, n_out, 1.0f);
    bfloat16 *garbage = pr_host(r, n_qkv * sizeof(bfloat16));
    for (size_t i = 0; i < n_qkv; i++) garbage[i] = 0x7f7f;
    bfloat16 *dqkv16 = pr_in_bf16(r, garbage, n_qkv), *out16 = pr_buf(r, n_out * sizeof(bfloat16));
    float *state = pr_buf(r, n_probs * sizeof(float)); // at least what any backend's state needs
    o->attention_forward_bf16(out16, state, qkv16, &d);
    o->attention_backward_bf16(dqkv16, dout16, qkv16, out16, state, &d);
    parity_tol t = {2e-2, 2e-2 + 1.0 / 128, 0};
    pr_out_bf16(r, "out16", out16, n_out, t);
    pr_out_bf16(r, "dqkv16 (written)", dqkv16, n_qkv, t);
}

// p: B, T, M, H, hs, keep_probs, the route wanted on cuda (-1: the default's, not checked), the
// in-place calls the forward and backward make on cuda (-1: not checked)
static void attention_kv_bf16_case(parity_run *r, const int *p) {
    const ops_backend *o = pr_ops(r);
    int B = p[0], T = p[1], M = p[2], H = p[3], C = H * p[4], keep = p[5], want = p[6], inplace = p[7];
    size_t n_q = (size_t)B * T * C, n_kv = (size_t)B * M * 2 * C, n_probs = (size_t)B * H * T * M;
    attention_desc d = {.B = B, .T = T, .C = C, .H = H, .M = M, .mask_mode = ATTN_MASK_NONE, .keep_probs = keep};
    const int on_cuda = !strcmp(o->name, "cuda");
    char why[300], text[400];
    if (on_cuda && want == ATTN_ROUTE_CUDNN && !cuda_attention_cudnn_available(why, sizeof why)) {
        snprintf(text, sizeof text, "the cuDNN route is not available: %s", why);
        pr_skip(r, text);
        return;
    }
    if (on_cuda && want >= 0) { // under the case's precision, before the calls
        int got = cuda_attention_kv_route_of(&d);
        snprintf(text, sizeof text, "the compact layout's route is %s (took %s)", attention_route_name((attention_route)want),
                 got >= 0 ? attention_route_name((attention_route)got) : "none");
        pr_require(r, text, got == want);
    }
    bfloat16 *q16 = bf16_input(r, n_q, 2.0f), *kv16 = bf16_input(r, n_kv, 2.0f), *dout16 = bf16_input(r, n_q, 1.0f);
    size_t n_garbage = n_q > n_kv ? n_q : n_kv;
    bfloat16 *garbage = pr_host(r, n_garbage * sizeof(bfloat16));
    for (size_t i = 0; i < n_garbage; i++) garbage[i] = 0x7f7f;
    bfloat16 *dq16 = pr_in_bf16(r, garbage, n_q), *dkv16 = pr_in_bf16(r, garbage, n_kv);
    bfloat16 *out16 = pr_buf(r, n_q * sizeof(bfloat16));
    float *state = pr_buf(r, n_probs * sizeof(float)); // at least what any backend's state needs
    const long calls_before = cuda_attention_inplace_calls();
    o->attention_kv_forward_bf16(out16, state, q16, kv16, &d);
    o->attention_kv_backward_bf16(dq16, dkv16, dout16, q16, kv16, out16, state, &d);
    if (on_cuda && inplace >= 0) {
        const long calls = cuda_attention_inplace_calls() - calls_before;
        snprintf(text, sizeof text, "%d of the forward and backward read their operands in place (%ld did)", inplace, calls);
        pr_require(r, text, calls == inplace);
    }
    parity_tol t = {2e-2, 2e-2 + 1.0 / 128, 0};
    pr_out_bf16(r, "out16", out16, n_q, t);
    pr_out_bf16(r, "dq16 (written)", dq16, n_q, t);
    pr_out_bf16(r, "dkv16 (written)", dkv16, n_kv, t);
}

#define CASE(B, T, H, hs, keep)                                                                         \
    {"attention_forward_bf16 attention_backward_bf16", "B " #B ", T " #T ", H " #H ", hs " #hs ", keep_probs " #keep, \
     attention_bf16_case, {B, T, H, hs, keep}, .precision = MATMUL_BF16, .repeat = 1}
const parity_case parity_cases_attention_bf16[] = {
    CASE(2, 1, 2, 32, 0),  CASE(2, 7, 2, 64, 0),  CASE(2, 65, 2, 32, 0),
    CASE(2, 65, 2, 64, 0), CASE(2, 197, 2, 64, 0), CASE(2, 17, 2, 32, 1),
#define KV_CASE(B, T, M, H, hs, keep)                                                                              \
    {"attention_kv_forward_bf16 attention_kv_backward_bf16",                                                       \
     "B " #B ", T " #T ", M " #M ", H " #H ", hs " #hs ", keep_probs " #keep, attention_kv_bf16_case,              \
     {B, T, M, H, hs, keep, -1, -1}, .precision = MATMUL_BF16, .repeat = 1}
#define KV_ROUTE(T, M, hs, want, route)                                                                            \
    {"attention_kv_forward_bf16 attention_kv_backward_bf16",                                                       \
     "compact layout on " route ": B 2, T " #T ", M " #M ", H 2, hs " #hs, attention_kv_bf16_case,                \
     {2, T, M, 2, hs, 0, want, -1}, .precision = MATMUL_BF16, .repeat = 1, .cuda = route}
#define KV_INPLACE(T, M, H, hs, calls)                                                                             \
    {"attention_kv_forward_bf16 attention_kv_backward_bf16",                                                       \
     "compact layout in place (materialised-inplace): B 2, T " #T ", M " #M ", H " #H ", hs " #hs,                 \
     attention_kv_bf16_case, {2, T, M, H, hs, 0, ATTN_ROUTE_MATERIALISED, calls}, .precision = MATMUL_BF16,        \
     .repeat = 1, .cuda = "POSBENCH_ATTENTION=materialised-inplace"}
    KV_CASE(2, 1, 1, 2, 32, 0),   KV_CASE(2, 7, 3, 2, 64, 0),   KV_CASE(2, 65, 17, 2, 32, 0),
    KV_CASE(2, 65, 17, 2, 64, 0), KV_CASE(2, 197, 50, 2, 64, 0), KV_CASE(2, 17, 5, 2, 32, 1),
    KV_ROUTE(7, 3, 32, ATTN_ROUTE_MATERIALISED, "POSBENCH_ATTENTION=materialised"),
    KV_ROUTE(65, 17, 64, ATTN_ROUTE_MATERIALISED, "POSBENCH_ATTENTION=materialised"),
    KV_ROUTE(7, 3, 32, ATTN_ROUTE_CUDNN, "POSBENCH_ATTENTION=cudnn"),
    KV_ROUTE(65, 17, 64, ATTN_ROUTE_CUDNN, "POSBENCH_ATTENTION=cudnn"),
    KV_ROUTE(197, 50, 64, ATTN_ROUTE_CUDNN, "POSBENCH_ATTENTION=cudnn"),
    KV_ROUTE(65, 17, 32, ATTN_ROUTE_FUSED, "POSBENCH_ATTENTION=fused"),
    KV_INPLACE(1, 1, 2, 32, 2),   KV_INPLACE(7, 3, 2, 64, 2),    KV_INPLACE(65, 17, 2, 32, 2),
    KV_INPLACE(197, 50, 2, 64, 2), KV_INPLACE(197, 50, 12, 64, 2), KV_INPLACE(65, 17, 3, 12, 0),
#undef KV_INPLACE
#undef KV_ROUTE
#undef KV_CASE
};
const int parity_cases_attention_bf16_count = (int)(sizeof parity_cases_attention_bf16 / sizeof parity_cases_attention_bf16[0]);
