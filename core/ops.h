// core/ops.h — the op interface every backend implements (CPU: core/cpu/; CUDA: core/cuda/).
// The ops themselves, with their shapes and contracts, are listed once in core/ops_list.h,
// which generates the `ops_backend` table below, the backends' prototypes and tables and the
// guarded backend's wrappers. Each op is a forward/backward pair with explicit shapes; there is
// no graph. Layout is row-major; shapes are written (B, T, C) = batch, tokens, channels.
// Backward conventions (all backends):
//   * gradients ACCUMULATE: din += ..., dweight += ...; callers zero gradient buffers
//     once per step (ops->zero), except where an op's contract says it WRITES a gradient
//     (ops_list.h; GRAD_WRITE below). A NULL gradient pointer means "not needed".
//   * parameter-gradient reductions run in a fixed order (never thread-order dependent),
//     so results are bitwise reproducible for a given thread count.
// Models hold a `const ops_backend *` and call through it: one model, one trainer.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include "bf16.h"
#include "rng.h"

#define LAYERNORM_EPS 1e-6f

enum { ATTN_MASK_NONE = 0, ATTN_MASK_LT = 1, ATTN_MASK_LE = 2 };

// Precision of the linear layers' matrix products (train.precision). FP32: fp32 operands and
// accumulation. BF16: both operands of every linear forward and backward product rounded to
// bfloat16 (round to nearest even, core/bf16.h), products accumulated in fp32 into fp32 outputs
// — what PyTorch autocast does for nn.Linear, on the GPU's bf16 tensor cores — and training
// attention (keep_probs = 0) rounds q, k, v, dout, the probabilities and dS to bf16 around its
// products (core/cpu/attention_cpu.c, core/cuda/attention_gemm_cuda.cu). Weights, their
// gradients, the optimizer state, softmax and every other op stay fp32.
enum { MATMUL_FP32 = 0, MATMUL_BF16 = 1 };

// How a backward op that offers the choice (linear_backward_bf16's din) stores an input gradient:
// GRAD_ACCUMULATE adds to the buffer (the convention above); GRAD_WRITE overwrites it with what
// accumulating onto zeros would give (bit for bit on the CPU), so the buffer's first writer needs
// no clearing before it.
enum { GRAD_WRITE = 0, GRAD_ACCUMULATE = 1 };

// Timing marks a backend holds for timer_mark / timer_elapsed_ms (posbench bench --breakdown).
enum { TIMER_MARKS = 16 };

// Multi-head attention over qkv = (B, T, 3C): q = channels [0,C), k = [C,2C), v = [2C,3C);
// head h uses channels [h*C/H, (h+1)*C/H) of each. Scores are q·k/sqrt(C/H) (+ bias), then
// masked, then softmax over keys. Options, all combinable:
//   kv_index  (B, M): image b's keys/values are tokens kv_index[b][0..M) (MP3 context);
//             NULL means all T tokens (M must equal T). A token must not repeat within an
//             image (MP3 context sets never do): the CUDA backend writes each key token's
//             dk/dv rows from one thread per slot; the CPU backend happens to sum repeats.
//   bias      (H, T, T): added to the score of (query token i, key token j) — j is the
//             token index, not the position in kv_index. NULL = no bias.
//   group     (B, T) ids: key token j visible to query i iff group[j] < group[i] (LT) or
//             group[j] <= group[i] (LE). A query that sees no key outputs zeros (probabilities
//             zero, gradient zero) instead of NaN.
//   keep_probs 1: the caller reads `probs` after the forward as the probabilities (B, H, T, M)
//             (attention statistics). 0 (the default of a zeroed desc): `probs` is the
//             backend's private state for the backward — the CPU backend still writes the
//             probabilities there (bf16-rounded under MATMUL_BF16), the CUDA backend keeps
//             them in bf16 on its materialised route (core/cuda/attention_gemm_cuda.cu,
//             bf16 training) or runs its fused kernels (core/cuda/attention_fused_cuda.cu)
//             and keeps only the row log-sum-exp (B, H, T). The same value must be passed to
//             the forward and to the backward that reads its probs.
typedef struct {
    int B, T, C, H, M;
    const int *kv_index;
    const float *bias;
    const int *group;
    int mask_mode;  // ATTN_MASK_NONE / LT / LE (group must be non-NULL unless NONE)
    int keep_probs; // 1: probs holds the probabilities; 0: backend-private saved state
} attention_desc;

// The options a desc uses, as flags: what a model declares when it sizes the saved state before
// any desc exists (ops attention_state_floats), so that the CUDA backend reserves only what the
// routes of such calls keep. A model's descs must use no option it did not declare
// (attention_desc_uses(d) & ~declared == 0): a smaller reservation would not hold their state.
enum { ATTN_USES_KEY_SUBSET = 1, ATTN_USES_GROUP_MASK = 2, ATTN_USES_BIAS = 4 };
static inline unsigned attention_desc_uses(const attention_desc *d) {
    unsigned uses = 0;
    if (d->kv_index) uses |= ATTN_USES_KEY_SUBSET;
    if (d->group || d->mask_mode != ATTN_MASK_NONE) uses |= ATTN_USES_GROUP_MASK;
    if (d->bias) uses |= ATTN_USES_BIAS;
    return uses;
}

// One tensor of a parameter arena for adamw_update_multi: elements [offset, offset + numel) of
// param, grad, m and v, with weight decay (decay 1) or without (0).
typedef struct {
    size_t offset, numel;
    int decay;
} adamw_segment;

// The optimizer's per-step values in backend memory (floats, STEP_SCALARS of them), read by
// adamw_update_multi_scalars so that nothing per step is passed by value (a captured CUDA graph
// replays with new values): the host writes the first four before each step (an upload), the
// backend writes the last two (optim_prepare).
enum {
    STEP_LR,         // the learning rate
    STEP_BC1,        // 1 - beta1^t (t = the 1-based step), computed by the host's powf
    STEP_BC2,        // 1 - beta2^t
    STEP_WD,         // the weight decay of the tensors declared with decay (DINO's follows a schedule)
    STEP_GRAD_SCALE, // the clipping factor applied to every gradient (1: no clipping)
    STEP_SKIP,       // 1: the step's loss was not finite, no update
    STEP_SCALARS
};
enum { STEP_HOST_SCALARS = STEP_GRAD_SCALE }; // how many the host writes

// Dies (exit 1: a programming error) naming `who` when d's shapes or options are
// inconsistent: B, T, C, H >= 1 with H dividing C; M == T without kv_index; a known mask mode
// with group ids. Pointer contents (kv_index's range) are each backend's to check where it can.
void attention_desc_check(const attention_desc *d, const char *who);
// attention_desc_check plus the bf16-storage ops' limits (attention_forward_bf16 /
// attention_backward_bf16): no kv_index, no bias. Dies (exit 1) naming `who`.
void attention_desc_check_bf16(const attention_desc *d, const char *who);
// The compact-layout ops' checks (attention_kv_forward_bf16 / attention_kv_backward_bf16): B, T, C,
// H as attention_desc_check, 1 <= M <= T, no kv_index (the k|v rows are the keys), no bias, no
// group mask. Dies (exit 1) naming `who`.
void attention_desc_check_kv_bf16(const attention_desc *d, const char *who);

// The op table: `name`, then one function pointer per entry of core/ops_list.h, in its order
// (that file holds each op's contract: shapes, accumulation, conventions). A backend may
// leave an entry NULL (a partial backend): core/ops_support.h says which ops it supports,
// and device_backend hands out a table whose missing ops die naming themselves.
typedef struct ops_backend {
    const char *name;
#define OP(ret, op, params, args) ret(*op) params;
#include "ops_list.h"
} ops_backend;

extern const ops_backend ops_cpu;
// The CPU ops with every arena PROT_NONE outside ops and copies (core/cpu/ops_cpu_guarded.c):
// `--device cpu-guarded`, which proves that host code reaches backend memory only through
// upload/download.
extern const ops_backend ops_cpu_guarded;
