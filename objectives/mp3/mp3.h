// objectives/mp3/mp3.h — masked position prediction (MP3; docs/methods.md "MP3", paper §3, App. A).
// No position encoding. Per image, a random permutation of the N patches; the first
// M = round((1-η)·N) are the context, shared by every layer (the model's masked attention
// reads keys/values from the context only). The cls token, when present, is always in the
// context (posbench choice: it carries no position and the paper's pseudo code ignores it)
// and is never a prediction target. Loss: cross entropy of each patch token's N-way
// position logits against its true index, averaged over the B·N patch tokens.
#pragma once
#include "../../core/ops.h"
#include <stdint.h>

typedef struct {
    const ops_backend *ops;
    int max_batch, N, T, t0;
    int *targets;     // (max_batch, T) backend: t0 + n -> n, cls rows -> -1 (ignored)
    float *probs;     // (max_batch, T, N) backend
    float *losses;    // (max_batch, T) backend
    int *pred;        // (max_batch, T) backend: argmax of each row
    int *pred_host;   // (max_batch, T) host
} mp3;

// Context patches for masking ratio eta: round((1-eta)·N), at least 1.
int mp3_context_patches(int N, double eta);
// Reference patches (the paper's speech variant: "a random 5% of frames keep their position
// embedding"): round(fraction·N), at least 1 and at most N - 1 when fraction > 0, 0 when
// fraction = 0. The model draws which ones (model_config.request.ref_tokens). posbench choice:
// reference tokens stay prediction targets of the loss like every other patch; position
// accuracy leaves them out (mp3_count_correct's skip list), since their answer is in their
// input, so one patch at least is never a reference.
int mp3_reference_patches(int N, double fraction);
// NULL when pe.kind and objective.ref_fraction go together for objective.name=mp3, else why
// (naming the keys and what is valid): mp3 pretrains without a position encoding (a kind that
// is not `positional`), or keeps a kind with a reference table (abs / sin1d / sin2d) on its
// reference tokens when ref_fraction > 0. (Other objectives refuse ref_fraction themselves.)
const char *mp3_config_error(const char *pe_kind, double ref_fraction);
// Fills context (B, t0 + Mp) with token indices: cls (0) first when t0 = 1, then the first
// Mp entries of image b's permutation of 0..N-1 (shifted by t0), in ascending order. Image b
// draws from rng_stream_make(seed, RNG_MASK, epoch, step, first_index + b), so the set does
// not depend on thread count or batch split.
void mp3_sample_context(int *context, int B, int N, int t0, int Mp, uint32_t seed, uint32_t epoch,
                        uint32_t step, uint32_t first_index);

void mp3_create(mp3 *o, const ops_backend *ops, int max_batch, int N, int t0);
void mp3_free(mp3 *o);
// Mean loss over the B·N patch tokens of position logits (B, T, N) (summed by ops->sum); keeps
// the probabilities.
double mp3_forward(mp3 *o, const float *logits, int B);
// The same mean loss written to `loss` (one double in backend memory, ops->sum_to: the same
// fixed-order sum and division), so nothing is read back (the step without host reads).
void mp3_forward_to(mp3 *o, const float *logits, int B, double *loss);
// dlogits (B, T, N) += d(mean loss)/dlogits (cls rows get nothing).
void mp3_backward(mp3 *o, float *dlogits, int B);
// Predicted position (argmax on the backend; ties to the lower index) of every patch token of
// logits (B, T, N), downloaded: returns (B, N) host ints, valid until the next call.
const int *mp3_predict(mp3 *o, const float *logits, int B);
// Where the patches of one input lie: images (C, H, W) cut into ph × pw patches, row-major
// (images: H = W = S, ph = pw = p; a sequence of L frames of F features: C = 1, H = L, W = F,
// ph = 1, pw = F, so each frame is one patch).
typedef struct {
    int C, H, W, ph, pw;
} mp3_layout;

// Counts correct predictions over all patches and over non-blank patches (a patch is blank
// when each channel is constant over it: nothing in it can say where it belongs). images
// (B, C, H, W). Adds to *correct, *total, *correct_nonblank, *total_nonblank.
// skip (B, W) token indices (patch n = token - t0; entries < t0, the cls, ignored) whose
// patches are not counted: the reference tokens, whose position is in their input; NULL (or
// W = 0) counts every patch.
void mp3_count_correct(const int *pred, const float *images, int B, const mp3_layout *L, const int *skip, int W,
                       int t0, long *correct, long *total, long *correct_nonblank, long *total_nonblank);
// The same counts plus, over non-blank patches, how far the predicted cell is from the true
// one: distance_nonblank[d] counts predictions d cells away (Chebyshev distance on the patch
// grid, max(|row difference|, |column difference|); frames for a sequence; 0 = correct;
// farther than MP3_MAX_DISTANCE - 1 lands in the last bin). Adds to *out.
#define MP3_MAX_DISTANCE 64
typedef struct {
    long correct, total, correct_nonblank, total_nonblank;
    long distance_nonblank[MP3_MAX_DISTANCE];
} mp3_counts;
void mp3_count_positions(const int *pred, const float *images, int B, const mp3_layout *L, const int *skip, int W, int t0,
                         mp3_counts *out);
// Reassembly (paper Fig. 2): each patch of image (C, H, W) is placed at its predicted
// position pred (N); patches landing on the same position are averaged; positions nothing
// landed on are `empty`. out (C, H, W).
void mp3_reassemble(const float *image, const int *pred, const mp3_layout *L, float empty, float *out);
// The context view: context patches at their true positions, the rest `empty`. context
// holds Mp patch indices (0-based, no cls). out (C, H, W).
void mp3_context_image(const float *image, const int *context_patches, int Mp, const mp3_layout *L, float empty,
                       float *out);
