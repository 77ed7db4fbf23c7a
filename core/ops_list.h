// core/ops_list.h — THE list of ops: every entry of the op interface, once, with its contract
// (shapes, conventions). Everything else is generated from it: the `ops_backend` struct
// (core/ops.h), the op ids and names (core/ops_support.h), the CPU and CUDA prototypes
// (core/cpu/ops_cpu_internal.h, core/cuda/ops_cuda_internal.cuh) and tables (ops_cpu.c,
// ops_cuda.cu), and the guarded backend's wrappers (core/cpu/ops_cpu_guarded.c). Adding an op
// is one entry here plus cpu_<name> and cuda_<name> (docs/architecture.md "Adding an op").
//
// An X-macro list read by #include (no include guard): each includer defines what an entry
// expands to and includes this file, which undefines OP and OP_ALLOC at its end:
//   OP(ret, name, (params), (args))        an op, or a memory call every backend wraps alike
//   OP_ALLOC(ret, name, (params), (args))  the allocator entries (alloc, free, memory_peak):
//                                          each backend's own, never wrapped (defaults to OP)
// params is the C parameter list; args names them again, each pointer to backend memory as
// MEM(x) and an attention_desc pointer as DESC(d) (the guarded backend translates those to its
// open view; nothing else expands args). Section comments name the backend files that
// implement each family: core/cpu/<family>_cpu.c and core/cuda/<family>_cuda.cu.
//
// Conventions of the whole interface (core/ops.h's header comment): row-major, shapes written
// (B, T, C) = batch, tokens, channels; gradients ACCUMULATE (din += ...), a NULL gradient
// pointer means "not needed"; parameter-gradient reductions run in a fixed order.
#ifndef OP
#error "core/ops_list.h: define OP(ret, name, params, args) before including it"
#endif
#ifndef OP_ALLOC
#define OP_ALLOC OP
#endif

// ---- memory (arenas live where the backend computes; memory_cpu.c, memory_cuda.cu) ----
// Backend memory of `bytes` (64-byte aligned, zeroed); dies (exit 1) naming `what` when it
// cannot. Models, objectives and the trainer hold only such pointers for tensors and reach
// them from the host through the copies below (CPU: plain malloc / memcpy).
OP_ALLOC(void *, alloc, (size_t bytes, const char *what), (bytes, what))
OP_ALLOC(void, free, (void *p), (p)) // NULL is fine
// host -> backend, backend -> host, backend -> backend, in order with the ops. upload: the
// source may be rewritten when the call returns, except a buffer registered with pin_host (CUDA
// reads it asynchronously: call upload_wait first). download returns when dst holds the data.
// copy is seen done by every later op and download (CUDA queues it).
OP(void, upload, (void *dst, const void *src, size_t bytes), (MEM(dst), MEM(src), bytes))
OP(void, download, (void *dst, const void *src, size_t bytes), (MEM(dst), MEM(src), bytes))
OP(void, copy, (void *dst, const void *src, size_t bytes), (MEM(dst), MEM(src), bytes))
OP(void, synchronize, (void), ()) // waits for every op issued so far
// Page-locks the host buffer [ptr, ptr + bytes) for faster, asynchronous uploads from it (CUDA:
// cudaHostRegister, or a note on stderr and pageable copies when the system refuses; the CPU
// backends: nothing); unpin_host(ptr) undoes it before the buffer is freed. Host memory, not
// backend memory; results are unchanged.
OP(void, pin_host, (void *ptr, size_t bytes), (ptr, bytes))
OP(void, unpin_host, (void *ptr), (ptr))
// Returns when every upload issued so far from a pinned buffer has read it, so the host may
// rewrite it (CPU backends: at once; uploads read their source before returning).
OP(void, upload_wait, (void), ())
// The peak of live bytes allocated by `alloc` (and not yet freed) since the last reset or
// the start; reset = 1 then starts a new window at the current live bytes. Arenas, and the
// CUDA backend's transient op workspaces while they live (attention's T×M matrices, column-sum
// partials, the cuBLASLt workspace and cached bf16 weight copies); libraries' own workspaces
// (cuBLAS, the bf16 operand scratch) are not counted.
OP_ALLOC(size_t, memory_peak, (int reset), (reset))
OP(void, zero, (float *x, size_t n), (MEM(x), n))

// ---- step timing (timing_cpu.c, timing_cuda.cu): `posbench bench --breakdown` ----
// Records timing mark `slot` (0 <= slot < TIMER_MARKS) after every op issued so far: CUDA
// records an event on the stream the ops run on, the CPU reads a monotonic clock (its ops are
// done when they return). A slot recorded again is overwritten.
OP(void, timer_mark, (int slot), (slot))
// Milliseconds from mark `from` to mark `to` (waits until `to` has happened); -1 when either
// slot was never recorded or is out of range.
OP(double, timer_elapsed_ms, (int from, int to), (from, to))
// Seconds the host has spent blocked in this backend's waiting calls (download, copy,
// synchronize: each returns only when the device's queued work is done) since the last reset;
// reset = 1 then starts a new count at 0 after returning the old one.
OP(double, host_wait_seconds, (int reset), (reset))
// Host reads since the last reset: the calls that hand a backend value to the host or wait for
// every op issued (download, synchronize, sum, sum_squares), counted alike by every backend, so
// a step that reads nothing mid-way is checked on the CPU (tests/test_host_reads.c) and `posbench
// bench --breakdown` prints the reads per step; reset = 1 starts a new count at 0 after returning
// the old one.
OP(size_t, host_reads, (int reset), (reset))

// Process-wide precision of linear_forward / linear_backward (and training attention's bf16
// rounding points) from the next op on
// (MATMUL_FP32 or MATMUL_BF16; like cuBLAS's math mode, one setting for the process: the
// trainer sets it at the start of every run). dense_cpu.c, dense_cuda.cu.
OP(void, set_matmul_precision, (int precision), (precision))

// ---- dense layers (dense_cpu.c, dense_cuda.cu) ----
// out (N, OC) = in (N, IC) · weight(OC, IC)ᵀ + bias (OC); bias may be NULL.
OP(void, linear_forward,
   (float *out, const float *in, const float *weight, const float *bias, int N, int IC, int OC),
   (MEM(out), MEM(in), MEM(weight), MEM(bias), N, IC, OC))
// din (N, IC) += dout·weight; dweight (OC, IC) += doutᵀ·in; dbias (OC) += Σ_n dout.
OP(void, linear_backward,
   (float *din, float *dweight, float *dbias, const float *dout, const float *in,
    const float *weight, int N, int IC, int OC),
   (MEM(din), MEM(dweight), MEM(dbias), MEM(dout), MEM(in), MEM(weight), N, IC, OC))

// out (N, C) = (in - mean) * rstd * weight + bias; saves mean (N), rstd (N).
OP(void, layernorm_forward,
   (float *out, float *mean, float *rstd, const float *in, const float *weight,
    const float *bias, int N, int C),
   (MEM(out), MEM(mean), MEM(rstd), MEM(in), MEM(weight), MEM(bias), N, C))
OP(void, layernorm_backward,
   (float *din, float *dweight, float *dbias, const float *dout, const float *in,
    const float *weight, const float *mean, const float *rstd, int N, int C),
   (MEM(din), MEM(dweight), MEM(dbias), MEM(dout), MEM(in), MEM(weight), MEM(mean), MEM(rstd), N, C))

// Exact GELU: x * Φ(x) (PyTorch nn.GELU default). (n)
OP(void, gelu_forward, (float *out, const float *in, size_t n), (MEM(out), MEM(in), n))
OP(void, gelu_backward, (float *din, const float *dout, const float *in, size_t n),
   (MEM(din), MEM(dout), MEM(in), n))

// ReLU: out = max(x, 0), NaN kept (as torch.relu: a NaN must reach the loss, not become 0);
// din += dout where x > 0 (SimCLR's projection head). (n)
OP(void, relu_forward, (float *out, const float *in, size_t n), (MEM(out), MEM(in), n))
OP(void, relu_backward, (float *din, const float *dout, const float *in, size_t n),
   (MEM(din), MEM(dout), MEM(in), n))

// Residual with optional drop path: out (B, S) = x + keep_scale[b] * branch, where
// keep_scale (B) is 0 or 1/(1-p) per sample (NULL = 1). S = elements per sample.
OP(void, residual_forward,
   (float *out, const float *x, const float *branch, const float *keep_scale, int B, size_t S),
   (MEM(out), MEM(x), MEM(branch), MEM(keep_scale), B, S))
OP(void, residual_backward,
   (float *dx, float *dbranch, const float *dout, const float *keep_scale, int B, size_t S),
   (MEM(dx), MEM(dbranch), MEM(dout), MEM(keep_scale), B, S))
// keep_scale (B): sample b dropped with probability p (uniform from addr, element b).
OP(void, drop_path_scales, (float *keep_scale, int B, float p, rng_addr addr),
   (MEM(keep_scale), B, p, addr))

// Dropout (n): mask[e] = 0 with probability p else 1/(1-p); out = in * mask. Element e draws
// the stream's element first + e (uniform at addr, first + e): a micro-batch whose tensor starts
// at element `first` of the whole batch's draws the whole batch's mask (first 0: the whole batch).
OP(void, dropout_forward,
   (float *out, float *mask, const float *in, size_t n, float p, rng_addr addr, uint64_t first),
   (MEM(out), MEM(mask), MEM(in), n, p, addr, first))
// Where drop_path_scales and dropout_forward take the epoch and step of their address: from clock
// (2 uint32 of backend memory: epoch, step), read when each op runs, when it is not NULL (the step
// without host reads sets it, so a replayed CUDA graph draws at the step the host uploaded; the
// address's epoch slot, RNG_EPOCH_SLOT_MASK of core/rng.h, is kept and added), else the rng_addr
// passed (NULL: the default). Process-wide, like set_matmul_precision.
OP(void, set_rng_clock, (const uint32_t *clock), (MEM(clock)))
OP(void, dropout_backward, (float *din, const float *dout, const float *mask, size_t n),
   (MEM(din), MEM(dout), MEM(mask), n))

// ---- bf16 activations (dense_bf16_cpu.c, dense_bf16_cuda.cu): activations stored in bfloat16
// (core/bf16.h) by the op that produces them and read by the op that consumes them, as PyTorch
// autocast keeps them; each op computes in fp32 from the widened inputs and rounds its bf16
// output once (to nearest even), so on the same inputs it gives bf16_round of its fp32 twin's
// result, bit for bit on one backend. Statistics, the residual stream and parameter gradients
// stay fp32. (n) elements, rows (N, C) as the fp32 ops.
OP(void, to_bf16, (bfloat16 *dst, const float *src, size_t n), (MEM(dst), MEM(src), n))
OP(void, from_bf16, (float *dst, const bfloat16 *src, size_t n), (MEM(dst), MEM(src), n))
// out = bf16(GELU(in)) (gelu_forward's exact erf GELU).
OP(void, gelu_forward_bf16, (bfloat16 *out, const bfloat16 *in, size_t n), (MEM(out), MEM(in), n))
// din = bf16(dout · GELU'(in)): WRITTEN, not accumulated (nothing else adds to an MLP's hidden
// gradient, so the buffer needs no clearing).
OP(void, gelu_backward_bf16, (bfloat16 *din, const bfloat16 *dout, const bfloat16 *in, size_t n),
   (MEM(din), MEM(dout), MEM(in), n))
// The residual add, drop path and the next LayerNorm in one pass: res (B, T, C) = x +
// keep_scale[b]·branch (residual_forward's arithmetic; keep_scale NULL = 1), ln (B, T, C) =
// bf16(LayerNorm(res)) (layernorm_forward's), mean, rstd (B·T). branch NULL: ln = bf16(LayerNorm(x))
// alone (a block's first LayerNorm), res not written (may be NULL).
OP(void, residual_layernorm_forward_bf16,
   (float *res, bfloat16 *ln, float *mean, float *rstd, const float *x, const bfloat16 *branch,
    const float *keep_scale, const float *weight, const float *bias, int B, int T, int C),
   (MEM(res), MEM(ln), MEM(mean), MEM(rstd), MEM(x), MEM(branch), MEM(keep_scale), MEM(weight), MEM(bias), B, T, C))
// layernorm_backward with a bf16 output gradient: din (N, C) += (fp32, the residual stream's
// gradient), dweight, dbias (C) +=.
OP(void, layernorm_backward_bf16,
   (float *din, float *dweight, float *dbias, const bfloat16 *dout, const float *in,
    const float *weight, const float *mean, const float *rstd, int N, int C),
   (MEM(din), MEM(dweight), MEM(dbias), MEM(dout), MEM(in), MEM(weight), MEM(mean), MEM(rstd), N, C))
// The linear layer on a bf16 input (linear_bf16_cpu.c, linear_bf16_cuda.cu): linear_forward under
// MATMUL_BF16 (whatever set_matmul_precision says) with in (N, IC) stored bf16 and read as it is:
// bf16(weight) (OC, IC), fp32 accumulation, + bias (OC) in fp32 (NULL = none). Exactly one output:
// out (N, OC) fp32, or out16 (N, OC) = bf16 of that fp32 result (rounded once). On the same
// (bf16-exact) input this is linear_forward's result bit for bit on one backend.
OP(void, linear_forward_bf16,
   (float *out, bfloat16 *out16, const bfloat16 *in, const float *weight, const float *bias, int N, int IC, int OC),
   (MEM(out), MEM(out16), MEM(in), MEM(weight), MEM(bias), N, IC, OC))
// Its backward, linear_backward under MATMUL_BF16 with in (N, IC) bf16. The output gradient is
// exactly one of dout (N, OC) fp32 (rounded to bf16 for the products; dbias sums the fp32 values,
// as linear_backward) or dout16 (N, OC) bf16. dweight (OC, IC), dbias (OC) += (fp32). The input
// gradient: din (N, IC) fp32, with din_mode GRAD_ACCUMULATE din += dout·bf16(weight), with
// GRAD_WRITE din = that product WRITTEN over whatever din held (NaN included) for a buffer whose
// first writer this op is (nothing to clear): on the CPU the bits of accumulating it onto zeros
// (0 + -0 = +0 as there; CUDA's beta-0 product may keep a -0); or din16 (N, IC) =
// bf16(dout·bf16(weight)), always WRITTEN (its consumers are the bf16 ops that nothing else adds
// to; din_mode is ignored); both NULL: not needed.
OP(void, linear_backward_bf16,
   (float *din, bfloat16 *din16, float *dweight, float *dbias, const float *dout, const bfloat16 *dout16,
    const bfloat16 *in, const float *weight, int N, int IC, int OC, int din_mode),
   (MEM(din), MEM(din16), MEM(dweight), MEM(dbias), MEM(dout), MEM(dout16), MEM(in), MEM(weight), N, IC, OC, din_mode))

// ---- token bookkeeping (tokens_cpu.c, tokens_cuda.cu) ----
// images (B, Cin, H, W) -> patches (B, (H/p)*(W/p), Cin*p*p), channel order (c, py, px)
// as a Conv2d weight (D, Cin, p, p) flattens. No backward: images are inputs.
OP(void, patchify, (float *patches, const float *images, int B, int Cin, int H, int W, int p),
   (MEM(patches), MEM(images), B, Cin, H, W, p))
// x (B, T, C), T = N + has_cls: x[b,0] = cls (if cls), x[b, t0+n] = patch[b,n];
// then x[b,t] += pos[t] when pos (T, C) is given.
OP(void, embed_tokens_forward,
   (float *x, const float *patch, const float *cls, const float *pos, int B, int N, int C),
   (MEM(x), MEM(patch), MEM(cls), MEM(pos), B, N, C))
OP(void, embed_tokens_backward,
   (float *dpatch, float *dcls, float *dpos, const float *dx, int B, int N, int C, int has_cls),
   (MEM(dpatch), MEM(dcls), MEM(dpos), MEM(dx), B, N, C, has_cls))
// out (B, M, C) = in[b, idx[b, m], :] with in (B, T, C), idx (B, M).
OP(void, gather_tokens_forward,
   (float *out, const float *in, const int *idx, int B, int T, int M, int C),
   (MEM(out), MEM(in), MEM(idx), B, T, M, C))
OP(void, gather_tokens_backward,
   (float *din, const float *dout, const int *idx, int B, int T, int M, int C),
   (MEM(din), MEM(dout), MEM(idx), B, T, M, C))
// out[b, idx[b, m], :] = in[b, m, :]; other rows of out (B, T, C) are left as they are.
OP(void, scatter_tokens_forward,
   (float *out, const float *in, const int *idx, int B, int T, int M, int C),
   (MEM(out), MEM(in), MEM(idx), B, T, M, C))
OP(void, scatter_tokens_backward,
   (float *din, const float *dout, const int *idx, int B, int T, int M, int C),
   (MEM(din), MEM(dout), MEM(idx), B, T, M, C))
// Masked (MP3) attention input: qkv (B, T, 3C) gets q (B, T, C) in every row and the
// keys/values kv (B, M, 2C) of context token idx[b, m] in that token's row (channels
// [C, 3C)); the k/v channels of other rows are left as they are (attention with
// kv_index = idx never reads them). idx must not repeat within an image.
OP(void, qkv_pack_forward,
   (float *qkv, const float *q, const float *kv, const int *idx, int B, int T, int M, int C),
   (MEM(qkv), MEM(q), MEM(kv), MEM(idx), B, T, M, C))
// dq (B, T, C) += dqkv[..., 0:C]; dkv (B, M, 2C) += dqkv[b, idx[b, m], C:3C].
OP(void, qkv_pack_backward,
   (float *dq, float *dkv, const float *dqkv, const int *idx, int B, int T, int M, int C),
   (MEM(dq), MEM(dkv), MEM(dqkv), MEM(idx), B, T, M, C))
// Relative position bias: out (H, E) = table[h, index[e]] with table (H, K), index (E)
// in [0, K) (E = T*T (query, key) pairs). Backward: dtable[h, index[e]] += dout[h, e],
// summed over e in order for each h.
OP(void, bias_gather_forward,
   (float *out, const float *table, const int *index, int H, int E, int K),
   (MEM(out), MEM(table), MEM(index), H, E, K))
OP(void, bias_gather_backward,
   (float *dtable, const float *dout, const int *index, int H, int E, int K),
   (MEM(dtable), MEM(dout), MEM(index), H, E, K))
// out (B, C) = mean over tokens t0..T-1 of in (B, T, C).
OP(void, mean_pool_forward, (float *out, const float *in, int B, int T, int C, int t0),
   (MEM(out), MEM(in), B, T, C, t0))
OP(void, mean_pool_backward, (float *din, const float *dout, int B, int T, int C, int t0),
   (MEM(din), MEM(dout), B, T, C, t0))

// ---- token mixing (gMLP's spatial gating unit; mixing_cpu.c, mixing_cuda.cu) ----
// Spatial projection along tokens, per image: out (B, T, C)[b, i, c] =
//   Σ_j W[i, j] · in[b, j, c] + bias[i], with W (T, T) and bias (T) (NULL = none).
OP(void, token_mix_forward,
   (float *out, const float *in, const float *W, const float *bias, int B, int T, int C),
   (MEM(out), MEM(in), MEM(W), MEM(bias), B, T, C))
// din (B, T, C) += Wᵀ · dout per image; dW (T, T) += Σ_b dout_b · in_bᵀ, images added in
// order 0..B-1; dbias (T) += Σ_b Σ_c dout[b, i, c] in that order. NULL: not needed.
OP(void, token_mix_backward,
   (float *din, float *dW, float *dbias, const float *dout, const float *in, const float *W,
    int B, int T, int C),
   (MEM(din), MEM(dW), MEM(dbias), MEM(dout), MEM(in), MEM(W), B, T, C))
// Multiplicative gating (n): out = a ⊙ g; backward da += dout ⊙ g, dg += dout ⊙ a.
OP(void, gate_forward, (float *out, const float *a, const float *g, size_t n),
   (MEM(out), MEM(a), MEM(g), n))
OP(void, gate_backward,
   (float *da, float *dg, const float *dout, const float *a, const float *g, size_t n),
   (MEM(da), MEM(dg), MEM(dout), MEM(a), MEM(g), n))

// ---- resizing (resize_cpu.c, resize_cuda.cu) ----
// Separable 2D resampling, channels last: out (P, OH, OW, C)[p, i, j, c] =
//   Σ_y Σ_x wy[i, y] · wx[j, x] · in[p, y, x, c], with wy (OH, H), wx (OW, W) any weights
//   (resize_bicubic_weights gives torch's bicubic). Images (B, Cimg, H, W) are P = B·Cimg, C = 1;
//   a position table (H·W, d) is P = 1, C = d.
OP(void, resize2d_forward,
   (float *out, const float *in, const float *wy, const float *wx, int P, int H, int W, int OH,
    int OW, int C),
   (MEM(out), MEM(in), MEM(wy), MEM(wx), P, H, W, OH, OW, C))
// din (P, H, W, C) += the transpose applied to dout (P, OH, OW, C). Fixed summation order.
OP(void, resize2d_backward,
   (float *din, const float *dout, const float *wy, const float *wx, int P, int H, int W,
    int OH, int OW, int C),
   (MEM(din), MEM(dout), MEM(wy), MEM(wx), P, H, W, OH, OW, C))

// ---- attention (attention_cpu.c; attention_cuda.cu and attention_fused_cuda.cu) ----
// out (B, T, C); probs (B, H, T, M) receives the attention probabilities (keep_probs = 1)
// or the backend's saved state (keep_probs = 0, see attention_desc) and is read by the
// backward pass.
OP(void, attention_forward, (float *out, float *probs, const float *qkv, const attention_desc *d),
   (MEM(out), MEM(probs), MEM(qkv), DESC(d)))
// dqkv (B, T, 3C) +=; dbias (H, T, T) += when both d->bias and dbias are non-NULL;
// scratch (B, H, T, M) is workspace (needed only when dbias is non-NULL). out (B, T, C) and
// probs are the forward's, unchanged (the fused CUDA backward forms Σ_c dout·out per row
// from out; the CPU backend does not read it).
OP(void, attention_backward,
   (float *dqkv, float *dbias, float *scratch, const float *dout, const float *qkv,
    const float *out, const float *probs, const attention_desc *d),
   (MEM(dqkv), MEM(dbias), MEM(scratch), MEM(dout), MEM(qkv), MEM(out), MEM(probs), DESC(d)))
// Floats the `probs` buffer needs with keep_probs = 0 (the backward's saved state) for B
// images, H heads, T query rows, M key slots and width C, for calls that use at most `uses`
// (ATTN_USES_*, core/ops.h: what the model's descs will carry): CPU B·H·T·M (it keeps the
// probabilities); CUDA what core/attention_route.h's attention_route_state_floats says for the
// route setting: ⌈B·H·T·M / 2⌉ (rows padded) on its materialised bf16 route (P in bf16) else
// B·H·T (the fused and cuDNN routes' row log-sum-exp) — it reads the precision and the route
// setting, so set both before sizing. keep_probs = 1 always needs B·H·T·M.
OP(size_t, attention_state_floats, (int B, int H, int T, int M, int C, unsigned uses), (B, H, T, M, C, uses))
// Attention on bf16 storage (attention_bf16_cpu.c, attention_bf16_cuda.cu; train.activations=bf16): qkv16
// (B, T, 3C) as the qkv projection stored it, out16 (B, T, C) as proj reads it. The forward is
// bf16(attention_forward on the widened qkv16) with the same d, probs and precision (the rounding
// points of training attention under MATMUL_BF16), the output rounded once; so on bf16-exact qkv
// it equals the rounded fp32 op bit for bit on one backend (under CUDA's materialised-inplace,
// core/ops_cuda.h, within bf16 tolerance: cuBLAS sums the strided operands in its own order).
// No kv_index and no bias (dies, exit 1:
// masked attention and relbias keep the fp32 op); keep_probs and group masks as the fp32 op.
OP(void, attention_forward_bf16, (bfloat16 *out16, float *probs, const bfloat16 *qkv16, const attention_desc *d),
   (MEM(out16), MEM(probs), MEM(qkv16), DESC(d)))
// Its backward: dqkv16 (B, T, 3C) = bf16 of attention_backward's dqkv from zero on the widened
// dout16, qkv16 and out16 (the forward's) with the forward's probs: WRITTEN, not accumulated
// (the qkv projection's backward is its one reader), rounded once. Under MATMUL_BF16 training
// attention rounds dout to bf16 before its products anyway, so a bf16 dout loses nothing.
OP(void, attention_backward_bf16,
   (bfloat16 *dqkv16, const bfloat16 *dout16, const bfloat16 *qkv16, const bfloat16 *out16, const float *probs,
    const attention_desc *d),
   (MEM(dqkv16), MEM(dout16), MEM(qkv16), MEM(out16), MEM(probs), DESC(d)))
// Masked attention on bf16 storage in the compact layout (MP3 under train.activations=bf16; the
// same files): q16 (B, T, C) the queries of all T rows, kv16 (B, M, 2C) the keys (channels [0, C))
// and values ([C, 2C)) of the M key slots only (d->M, 1 <= M <= T: the rows of kv16 ARE the keys,
// so d->kv_index is NULL), out16 (B, T, C). The forward is bf16(attention_forward) on the widened
// inputs packed as (B, T, 3C) — q in every row, key slot m's k|v in row m — with kv_index = (0, 1,
// ..., M-1) per image, the same d otherwise, probs and precision, the output rounded once: so it
// equals, bit for bit on one backend, the fp32 op on any packed qkv whose rows kv_index[b][m] hold
// those keys (the scores and sums do not depend on the key's token row), except on CUDA's cuDNN
// route, which the fp32 op with a kv_index never takes, and under materialised-inplace, which
// reads these rows in place (within bf16 tolerance there: tests/parity/cases_attention_bf16.c). keep_probs as the fp32 op;
// no bias, no group mask (dies, exit 1: relbias, RoPE and GVP keep the fp32 op).
OP(void, attention_kv_forward_bf16,
   (bfloat16 *out16, float *probs, const bfloat16 *q16, const bfloat16 *kv16, const attention_desc *d),
   (MEM(out16), MEM(probs), MEM(q16), MEM(kv16), DESC(d)))
// Its backward: dq16 (B, T, C) and dkv16 (B, M, 2C) = bf16 of that attention_backward's dq and key
// slot m's dk|dv, from zero, on the widened dout16 with the forward's probs (out16 its output):
// WRITTEN, not accumulated (the q and k|v projections' backwards are their readers), rounded once.
OP(void, attention_kv_backward_bf16,
   (bfloat16 *dq16, bfloat16 *dkv16, const bfloat16 *dout16, const bfloat16 *q16, const bfloat16 *kv16,
    const bfloat16 *out16, const float *probs, const attention_desc *d),
   (MEM(dq16), MEM(dkv16), MEM(dout16), MEM(q16), MEM(kv16), MEM(out16), MEM(probs), DESC(d)))

// ---- position encodings (posenc_cpu.c, posenc_cuda.cu) ----
// sin2d (CAPE eq. 3-4), C even, K = C/2 frequencies k = 1..K: w_kx = 10^(2k/C)·cos k,
// w_ky = 10^(2k/C)·sin k, phase_k = π(w_kx·x + w_ky·y); channel k-1 gets cos(phase_k) and
// channel K+k-1 sin(phase_k) (all cos first, then all sin: CAPE's reference layout).
// x (B, T, C) += sin2d(px[b, n], py[b, n]) on token rows t0 + n (n < N = T - t0); cls rows
// (t < t0) untouched. px, py (B, N): per-image positions (CAPE draws them per image).
// Phases are formed in double: within 1e-5 of a double evaluation for |x|, |y| <= 3.
// No backward: the encoding is fixed (nothing to learn), so the gradient w.r.t. x passes
// through unchanged; the caller simply keeps using dx.
OP(void, sincos2d_add, (float *x, const float *px, const float *py, int B, int T, int C, int t0),
   (MEM(x), MEM(px), MEM(py), B, T, C, t0))
// 1D sinusoids at continuous positions (CAPE's speech encoding: positions in seconds),
// C even, K = C/2 frequencies k = 0..K-1: w_k = freq_scale·10000^(-2k/C); channel 2k gets
// cos(w_k·t) and channel 2k+1 sin(w_k·t) (interleaved, as sin1d and CAPE's E_2k, E_2k+1).
// x (B, T, C) += that at t = pt[b, n] on token rows t0 + n (n < N = T - t0); cls rows
// untouched. pt (B, N): per-sequence positions. Phases formed in double. No backward (fixed
// encoding: the gradient w.r.t. x passes through unchanged).
OP(void, sincos1d_add, (float *x, const float *pt, int B, int T, int C, int t0, float freq_scale),
   (MEM(x), MEM(pt), B, T, C, t0, freq_scale))
// RoPE. Rotates q (channels [0, C)) and k ([C, 2C)) of qkv (B, T, 3C) in place on token
// rows t0..T-1, per head h (head channels [h·Dh, (h+1)·Dh), Dh = C/H even): channel pair
// (2j, 2j+1) of a head is rotated by angle[n, j] (n = t - t0):
// (a, b) -> (a·cos - b·sin, a·sin + b·cos). cos_table, sin_table (N, Dh/2), N = T - t0
// (models/posenc/tables.h builds them). v and cls rows untouched.
OP(void, rope_forward,
   (float *qkv, const float *cos_table, const float *sin_table, int B, int T, int C, int H,
    int t0),
   (MEM(qkv), MEM(cos_table), MEM(sin_table), B, T, C, H, t0))
// In place on dqkv (B, T, 3C): the inverse rotation (angle -> -angle) of the q and k
// channels, turning the gradient w.r.t. the rotated q/k into the gradient w.r.t. the
// unrotated ones (the exact adjoint of rope_forward). An exception to "gradients
// accumulate": call it once, after attention_backward has filled dqkv and before the qkv
// projection's backward reads it. v channels and cls rows untouched.
OP(void, rope_backward,
   (float *dqkv, const float *cos_table, const float *sin_table, int B, int T, int C, int H,
    int t0),
   (MEM(dqkv), MEM(cos_table), MEM(sin_table), B, T, C, H, t0))

// ---- losses (per-row values; the caller averages; losses_cpu.c, losses_cuda.cu) ----
// Softmax cross entropy with label smoothing s: target distribution (1-s)·onehot + s/K.
// loss (N), probs (N, K) saved; target < 0 means "ignore this row" (loss 0, no gradient).
OP(void, softmax_xent_forward,
   (float *loss, float *probs, const float *logits, const int *target, int N, int K,
    float smoothing),
   (MEM(loss), MEM(probs), MEM(logits), MEM(target), N, K, smoothing))
// dlogits (N, K) += scale * (probs - target distribution).
OP(void, softmax_xent_backward,
   (float *dlogits, const float *probs, const int *target, int N, int K, float smoothing,
    float scale),
   (MEM(dlogits), MEM(probs), MEM(target), N, K, smoothing, scale))
// loss (N) = mean over D of (pred - target)^2; dpred += scale * 2 (pred - target) / D.
OP(void, mse_forward, (float *loss, const float *pred, const float *target, int N, int D),
   (MEM(loss), MEM(pred), MEM(target), N, D))
OP(void, mse_backward,
   (float *dpred, const float *pred, const float *target, int N, int D, float scale),
   (MEM(dpred), MEM(pred), MEM(target), N, D, scale))

// NT-Xent (SimCLR; docs/methods.md "Contrastive: SimCLR") over N = 2B projections z (N, D): row
// i's positive is row (i + N/2) mod N (view 0 of images 0..B-1, then view 1 of them). zn (N, D)
// = z / max(||z||, 1e-12) (F.normalize); s_ik = zn_i·zn_k / tau; probs (N, N) row i = softmax
// over k != i of s_ik (probs[i][i] = 0); loss (N) row i = -log probs[i][pos(i)]. zn and probs
// are saved for the backward. Dot products and sums in double, exp in float.
OP(void, ntxent_forward,
   (float *loss, float *zn, float *probs, const float *z, int N, int D, float tau),
   (MEM(loss), MEM(zn), MEM(probs), MEM(z), N, D, tau))
// dz (N, D) += the gradient of scale · Σ_i loss_i through the normalisation:
// dzn_i = (scale/tau) Σ_{k != i} (probs_ik + probs_ki - 2·[k = pos(i)]) zn_k, then
// dz_i += (dzn_i - zn_i (zn_i·dzn_i)) / ||z_i|| (dzn_i / 1e-12 where ||z_i|| <= 1e-12).
OP(void, ntxent_backward,
   (float *dz, const float *z, const float *zn, const float *probs, int N, int D, float tau,
    float scale),
   (MEM(dz), MEM(z), MEM(zn), MEM(probs), N, D, tau, scale))

// ---- DINO's head, loss and teacher (objectives/dino, docs/dino.md; dino_cpu.c, dino_cuda.cu) ----
// Every row's sums in double; the CPU's order is the index order (its results are the reference
// of tests/test_dino.c's PyTorch oracle).
// y (R, n) = x / d per row, d = max(||x||, 1e-12) with clamp (F.normalize), ||x|| without (weight
// norm with its gain fixed at 1); norms (R) = ||x|| (saved for the backward).
OP(void, unit_rows_forward, (float *y, float *norms, const float *x, int R, int n, int clamp),
   (MEM(y), MEM(norms), MEM(x), R, n, clamp))
// dx (R, n) = (dy - y (y·dy)) / norms per row, dy / 1e-12 where norms <= 1e-12: OVERWRITTEN
// (not accumulated); dx may be dy.
OP(void, unit_rows_backward,
   (float *dx, const float *dy, const float *y, const float *norms, int R, int n),
   (MEM(dx), MEM(dy), MEM(y), MEM(norms), R, n))
// Teacher probabilities q (R, K) = softmax((teacher - center)/tau) per row, center (K); tau (1, a
// double in backend memory: the temperature follows the epoch, so a replayed step reads it).
OP(void, dino_teacher_probs,
   (float *q, const float *teacher, const float *center, int R, int K, const double *tau),
   (MEM(q), MEM(teacher), MEM(center), R, K, MEM(tau)))
// One group of student views against the teacher's: student (S·B, K) holds views first_view ..
// first_view + S - 1 (view v of image b at row (v - first_view)·B + b), q (T·B, K) the teacher's
// views 0 .. T - 1. loss (2 doubles, backend): loss[0] += Σ over pairs (teacher view a, student
// view v != a) of the mean over b of H(q_a[b], softmax(s_v[b]/tau_s)), summed over s, b, a in
// that order; then loss[1] = loss[0]·scale. dstudent (S·B, K; NULL: not needed) is OVERWRITTEN
// with scale · Σ_{a != v} (softmax(s_v/tau_s) - q_a)/(tau_s·B).
OP(void, dino_loss_group,
   (double *loss, float *dstudent, const float *q, int T, const float *student, int first_view, int S,
    int B, int K, double tau_s, double scale),
   (MEM(loss), MEM(dstudent), MEM(q), T, MEM(student), first_view, S, B, K, tau_s, scale))
// center (K) = m·center + (1 - m)·(Σ_r teacher[r] / R), teacher (R, K), the sum over r in order.
OP(void, dino_center_update, (float *center, const float *teacher, int R, int K, double m),
   (MEM(center), MEM(teacher), R, K, m))
// The teacher's EMA: teacher[i] = teacher[i]·coef[0] + student[i]·coef[1], each product rounded
// to float before the float sum; coef (2 floats, backend: m and 1 - m follow the step). Nothing
// changes when skip is not NULL and *skip != 0 (backend: the step's STEP_SKIP, a step whose loss
// was not finite, which AdamW skipped too).
OP(void, ema_update, (float *teacher, const float *student, size_t n, const float *coef, const float *skip),
   (MEM(teacher), MEM(student), n, MEM(coef), MEM(skip)))

// ---- reductions (results come back to the host; reduce_cpu.c, reduce_cuda.cu) ----
// Σ x[i] in double in a fixed order (CPU: i = 0, 1, ..., n-1), returned to the host.
OP(double, sum, (const float *x, size_t n), (MEM(x), n))
// rank (N) on the backend: for row n of logits (N, K), the number of classes ranked ahead
// of target[n] (a larger logit, or an equal one with a lower index); a row holding a
// non-finite logit gets rank K (it is never counted correct). target in [0, K).
OP(void, class_rank, (int *rank, const float *logits, const int *target, int N, int K),
   (MEM(rank), MEM(logits), MEM(target), N, K))
// index (N) on the backend = argmax over k of x[n, k], x (N, K); ties go to the lowest k;
// -1 for a row holding a NaN or an infinity (it matches no class or position).
OP(void, argmax_rows, (int *index, const float *x, int N, int K), (MEM(index), MEM(x), N, K))

// ---- optimizer (optim_cpu.c, optim_cuda.cu) ----
// Σ x² in double, summed in a fixed order.
OP(double, sum_squares, (const float *x, size_t n), (MEM(x), n))
OP(void, scale, (float *x, size_t n, float s), (MEM(x), n, s))
// One AdamW step on n values (decoupled decay: p -= lr * (wd * p + m̂ / (sqrt(v̂) + eps))),
// t = 1-based step count for bias correction.
OP(void, adamw_update,
   (float *param, const float *grad, float *m, float *v, size_t n, float lr, float beta1,
    float beta2, float eps, float weight_decay, int t),
   (MEM(param), MEM(grad), MEM(m), MEM(v), n, lr, beta1, beta2, eps, weight_decay, t))
// adamw_update on each of nseg segments (host table) of one arena, in order: segment s is
// adamw_update(param + o, grad + o, m + o, v + o, numel, ..., decay ? weight_decay : 0, t) with
// o its offset, bit for bit (CUDA with POSBENCH_KERNELS=v2: one launch over every segment).
OP(void, adamw_update_multi,
   (float *param, const float *grad, float *m, float *v, const adamw_segment *segs, int nseg,
    float lr, float beta1, float beta2, float eps, float weight_decay, int t),
   (MEM(param), MEM(grad), MEM(m), MEM(v), segs, nseg, lr, beta1, beta2, eps, weight_decay, t))


// ---- the step on the backend, no host read inside it (reduce_*.c/.cu, optim_*.c/.cu) ----
// dst (1, a double in backend memory) = sum(x, n) / divisor: the same fixed-order sum, kept on
// the backend (the loss of a step, read with the others at the next logging step).
OP(void, sum_to, (double *dst, const float *x, size_t n, double divisor), (MEM(dst), MEM(x), n, divisor))
// Before adamw_update_multi_scalars, on the backend: norm (1) = sqrt(sum_squares(grads, n));
// scalars[STEP_GRAD_SCALE] = (float)(clip / (norm + 1e-6)) when clip > 0 and norm > clip, else 1
// (optim_step's clipping, same arithmetic); scalars[STEP_SKIP] = 1 when loss (1) is not finite
// (NaN or ±Inf), else 0.
OP(void, optim_prepare,
   (double *norm, float *scalars, const double *loss, const float *grads, size_t n, float clip),
   (MEM(norm), MEM(scalars), MEM(loss), MEM(grads), n, clip))
// adamw_update_multi with lr, the bias corrections and the weight decay read from scalars (STEP_LR,
// STEP_BC1, STEP_BC2, STEP_WD; backend memory) and each gradient multiplied by scalars[STEP_GRAD_SCALE] as it is read
// (the same float product as scaling the arena first); nothing changes when scalars[STEP_SKIP]
// is not 0. With the values optim_step would pass, bit for bit its update.
OP(void, adamw_update_multi_scalars,
   (float *param, const float *grad, float *m, float *v, const adamw_segment *segs, int nseg,
    const float *scalars, float beta1, float beta2, float eps),
   (MEM(param), MEM(grad), MEM(m), MEM(v), segs, nseg, MEM(scalars), beta1, beta2, eps))

// ---- CUDA graphs of a step (graph_cpu.c, graph_cuda.cu) ----
// graph_begin starts capturing the ops issued from now on into a graph instead of running them;
// 0 with the reason in why (len bytes) when the backend cannot (the CPU backends: not supported,
// they run eagerly). graph_end ends the capture: 1 when a graph was built (none of the captured
// ops has run: graph_replay runs them), 0 with why when the capture failed (nothing ran either:
// issue the ops again eagerly). graph_replay launches the last graph built, in order with the
// ops; it reads every per-step value from backend memory at the addresses captured, so the
// host updates those (an upload before the replay), never a value passed by value to an op.
OP(int, graph_begin, (char *why, size_t len), (why, len))
OP(int, graph_end, (char *why, size_t len), (why, len))
OP(void, graph_replay, (void), ())

#undef OP
#undef OP_ALLOC
