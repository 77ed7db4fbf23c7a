// models/posenc/tables.h — host-side tables and draws for the position encodings of docs/methods.md
// "Position encodings": patch-centre positions, the sin1d table, CAPE's training draws,
// RoPE's angle tables and the relbias index (with clipping for a resolution change).
// The per-step work on activations (adding sin2d, rotating q/k) is done by the ops
// sincos2d_add and rope_forward/rope_backward of core/ops.h; this file only prepares their
// inputs. Everything here is plain C on small arrays (O(N·d) or O(T²)), computed in double
// and stored as float, with no hidden state: the same arguments give the same bits.
// Layouts:
//   positions px, py  (B, N) or (N): patch n = r·gw + c (row-major), N = gh·gw
//   sin1d table       (T, d): rows t < t0 (cls) zero, then patch rows
//   rope tables       (N, Dh/2): angle of channel pair j of a head at patch n
//   relbias index     (T, T): entry of a (H, K) bias table for (query i, key j)
#pragma once
#include <stdint.h>

// ---- positions ----
// Patch centres of a gh × gw grid on [-1, 1]²: x[n] = linspace(-1, 1, gw)[c],
// y[n] = linspace(-1, 1, gh)[r] for n = r·gw + c; an axis of 1 patch gives 0. x, y (N).
void posenc_grid_positions(float *x, float *y, int gh, int gw);
// CAPE at evaluation (= plain sin2d): the grid positions repeated for every image. (B, N).
void posenc_eval_positions(float *px, float *py, int B, int gh, int gw);

// ---- sin1d (Vaswani) ----
// pos (T, d), d even, for embed_tokens_forward's pos argument: rows t < t0 are zero; patch
// n = t - t0 gets pos[t, 2k] = cos(ω_k n), pos[t, 2k+1] = sin(ω_k n), ω_k = 10000^(-2k/d),
// k = 0..d/2-1 (interleaved channels).
void posenc_sin1d_table(float *pos, int T, int d, int t0);
// NULL when d works for sin1d / sin2d (even, >= 2), else a message naming the problem.
const char *posenc_sin_error(int d);

// ---- CAPE (sin2d positions augmented in training) ----
typedef struct {
    float global_shift; // Δmax >= 0: per image and axis, Δ ~ U(-Δmax, Δmax); 0 = none
    float local_shift;  // εmax >= 0: per token and axis, ε ~ U(-εmax, εmax); 0 = none
    float scale;        // λmax >= 1: per image, log λ ~ U(-log λmax, log λmax); 1 = none
} cape_config;

// docs/methods.md's default local shift εmax = 1/N_axis for an axis of `grid` patches.
float cape_default_local_shift(int grid);
// NULL when the bounds are valid, else a message naming the bad one.
const char *posenc_cape_error(const cape_config *c);
// Training positions px, py (B, N) for one step. Image b starts from the grid positions
// (x, y) and draws from its own stream rng_stream_make(seed, RNG_POSENC, epoch, step, b),
// in exactly this order, each draw one rng_uniform u in [0, 1) mapped to a·(2u - 1):
//     Δx, Δy                                   a = Δmax
//     εx_0, εy_0, εx_1, εy_1, ..., εy_{N-1}    a = εmax   (token order n = 0..N-1)
//     log λ                                    a = log λmax
// then x'_n = λ·((x_n + Δx) + εx_n), y'_n = λ·((y_n + Δy) + εy_n) (float, in that order).
// The whole sequence is always drawn, whatever bounds are zero, so changing one bound
// never changes the other draws (e.g. the Δ of a run with εmax = 0 equals that of one with
// εmax > 0). With Δmax = εmax = 0 and λmax = 1 the result is the grid exactly. An image's
// positions depend only on (seed, epoch, step, b) and the grid, not on B.
void posenc_cape_positions(float *px, float *py, int B, int gh, int gw, const cape_config *c,
                           uint32_t seed, uint32_t epoch, uint32_t step);
// The same for images first .. first + B - 1 of the step's batch (image b of px draws from
// stream first + b): a micro-batch of train.accumulate (first = 0: posenc_cape_positions).
void posenc_cape_positions_from(float *px, float *py, int B, int gh, int gw, const cape_config *c,
                                uint32_t seed, uint32_t epoch, uint32_t step, uint32_t first);

// ---- CAPE in 1D (speech: positions in seconds, docs/methods.md "CAPE" 1D) ----
// CAPE's speech frequencies: w_k = CAPE_TIME_FREQ_SCALE·10000^(-2k/d) rad/s (the paper's
// ω_k = 30·10000^(-2k/K): 30 ms specificity even in minutes-long audio).
#define CAPE_TIME_FREQ_SCALE 30.0f
// The default local shift: half a frame (stride/2), the largest that keeps the frames in order
// (the paper's ASR setting: "set to its maximum to preserve the frames order").
float cape_time_default_local_shift(float stride);
// Evaluation positions t (N): frame n at n·stride seconds, mean-normalised (CAPE's step i,
// also at inference): t_n = (n - (N-1)/2)·stride, formed in double. (B, N) repeats them.
void posenc_time_positions(float *t, int N, float stride);
void posenc_time_eval_positions(float *pt, int B, int N, float stride);
// Training positions pt (B, N) for one step: sequence b starts from posenc_time_positions and
// draws from rng_stream_make(seed, RNG_POSENC, epoch, step, b), in this order, each draw
// a·(2u - 1) as in posenc_cape_positions: Δ (a = Δmax), ε_0 .. ε_{N-1} (a = εmax), log λ
// (a = log λmax); then t'_n = λ·((t_n + Δ) + ε_n) (float, in that order). The whole
// sequence is always drawn; Δmax = εmax = 0, λmax = 1 gives the evaluation positions exactly.
void posenc_cape_time_positions(float *pt, int B, int N, float stride, const cape_config *c,
                                uint32_t seed, uint32_t epoch, uint32_t step);
// The same for sequences first .. first + B - 1 of the step's batch (a train.accumulate micro-batch).
void posenc_cape_time_positions_from(float *pt, int B, int N, float stride, const cape_config *c,
                                     uint32_t seed, uint32_t epoch, uint32_t step, uint32_t first);

// ---- reference tokens (MP3's speech variant) ----
// Which tokens keep their position encoding: ref (B, t0 + R) token indices, per image the
// cls token (0) first when t0 = 1 (it always keeps its own row, as in the ordinary model),
// then t0 + n for R distinct patches n, ascending; image b draws the R-subset of its N
// patches from rng_stream_make(seed, RNG_REFERENCE, epoch, step, first_index + b)
// (rng_sorted_subset). 1 <= R <= N. scratch (N) ints.
void posenc_reference_tokens(int *ref, int B, int N, int t0, int R, uint32_t seed, uint32_t epoch,
                             uint32_t step, uint32_t first_index, int *scratch);

// ---- RoPE ----
// Default base: 10000 for 1D, 100 for 2D axial (RoPE-ViT).
float posenc_rope_default_base(int dims);
// NULL when (head_dim, dims) works, else a message: dims 1 needs an even head_dim,
// dims 2 a multiple of 4.
const char *posenc_rope_error(int head_dim, int dims);
// cos_table, sin_table (N, Dh/2), N = gh·gw, Dh = head_dim: cos/sin of angle[n, j] for
// channel pair (2j, 2j+1) of every head at patch n = r·gw + c.
//   dims 1: angle = n·θ_j, θ_j = base^(-2j/Dh), j = 0..Dh/2-1 (n = the row-major patch index)
//   dims 2 (axial): P = Dh/4, θ_i = base^(-i/P), i = 0..P-1; pair j < P: angle = c·θ_j
//           (column); pair P + i: angle = r·θ_i (row)
// Dies (internal error) when posenc_rope_error(head_dim, dims) is non-NULL.
void posenc_rope_tables(float *cos_table, float *sin_table, int gh, int gw, int head_dim, int dims,
                        float base);

// ---- relbias (BEiT layout, clipped relative positions) ----
// Entries K of a relative-bias table built for a table_h × table_w grid (a sequence of L
// tokens is a 1 × L grid): (2·table_h - 1)(2·table_w - 1) patch offsets, + 3 cls entries when
// cls > 0.
int posenc_relbias_entries(int table_h, int table_w, int cls);
// index (T, T), T = cls + gh·gw: the table entry of (query token i, key token j). Tokens
// t < cls are cls tokens; patch tokens t >= cls are n = t - cls at (r, c) = (n / gw, n % gw).
//   patch i -> patch j: (dr + h-1)·(2w-1) + (dc + w-1), h, w = table_h, table_w, with
//                       dr = r_i - r_j clipped to [-(h-1), h-1], dc = c_i - c_j to [-(w-1), w-1]
//   cls -> patch: K-3;  patch -> cls: K-2;  cls -> cls: K-1
// For (gh, gw) = (table_h, table_w) no offset is clipped: the index of the training grid exactly.
void posenc_relbias_index(int *index, int gh, int gw, int table_h, int table_w, int cls);
