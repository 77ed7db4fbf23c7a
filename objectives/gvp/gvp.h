// objectives/gvp/gvp.h — GVP's orders, group segmentations and attention group ids (docs/methods.md
// "GVP"; docs/gvp.md §3.2, §4.3, App. B); its pixel targets are
// objectives/pixel_targets.h's, shared with MAE.
// Host code only: what is drawn per image and what the model and the loss read.
// Notation (the paper's): N patches in order z (raster, or a random permutation per image),
// cut into K + 1 groups G_0 … G_K by K cut points n_0 < n_1 < … < n_{K-1} and n_K = N:
// G_0 = positions [0, n_0) of z (the condition, with cls: the paper's m - 1 = n_0), G_k =
// positions [n_{k-1}, n_k). f(patch) is its group; cls is in G_0.
//   fixed:  n_i = floor((i + 1)·N / (K + 1)), i = 0..K (equal groups; K = N is the fully
//           autoregressive case with G_0 = {cls}, K = 1 masked modelling of half the patches);
//   random: n_0 … n_{K-1} = K distinct values uniform in [1, N - 1], sorted (App. B code);
//   mixed:  n_{K-1} = round(p·N), p ~ Normal(mean 0.5, standard deviation 0.1) (the App. B
//           code's torch.normal(0.5, std=0.1); its comment says variance), rounded half to even
//           as torch.round, clipped to [K, N - 1]; n_0 … n_{K-2} = K - 1 distinct values uniform
//           in [1, n_{K-1} - 1], sorted. K must fit at the mean: K <= round(0.5·N).
// Masks (paper eq. 11, by group): content token i sees content token j iff f(j) <= f(i); query
// token i sees content token j iff f(j) < f(i); queries are never keys. With the attention op's
// `<=` group mask (ATTN_MASK_LE) over ids: content token t gets 2·f(t), query token n gets
// 2·f(n) - 1 (so 2·f(j) <= 2·f(n) - 1 iff f(j) < f(n)). A query of a G_0 patch predicts
// nothing (it is not in the loss); its id is 0 (it sees G_0) so that no query row is empty.
#pragma once
#include "../pixel_targets.h" // pixel_patch_targets: the normalised pixel targets
#include <stdint.h>

// GVP's own settings (objective_settings.own; its keys objective.groups, order, segmentation,
// streams, probe_mask: objectives/gvp/objective.c).
typedef struct {
    int groups;                // objective.groups: predicted groups K
    const char *segmentation;  // objective.segmentation: fixed | random | mixed
    const char *order;         // objective.order: random | raster
    int streams;               // objective.streams: 2 two streams, 1 one stream with the causal mask
    const char *probe_mask;    // objective.probe_mask: causal (the linear probe keeps the group mask) | full
} gvp_settings;

typedef enum { GVP_SEG_FIXED, GVP_SEG_RANDOM, GVP_SEG_MIXED } gvp_segmentation;
typedef enum { GVP_ORDER_RANDOM, GVP_ORDER_RASTER } gvp_order;

// Parses objective.segmentation / objective.order; -1 when unknown.
int gvp_segmentation_parse(const char *name);
int gvp_order_parse(const char *name);
// NULL when K groups can be cut from N patches with this segmentation, else why (naming
// objective.groups and what is valid).
const char *gvp_groups_error(int seg, int K, int N);

// One image's draw from rng_stream_make(seed, RNG_GVP, epoch, step, index): first the order
// (a permutation, random order only), then the cut points. order (N): z, the patch at each
// position; cuts (K + 1): n_0 … n_K; group (N): f of each patch (0 = G_0). scratch (N) ints.
void gvp_draw(int *order, int *cuts, int *group, int seg, int ord, int K, int N, uint32_t seed, uint32_t epoch,
              uint32_t step, uint32_t index, int *scratch);

// Attention group ids of one image for the two-stream model: ids (T + N), T = t0 + N content
// tokens (cls first when t0 = 1) then N query tokens, from group (N); see the header.
void gvp_stream_ids(int *ids, const int *group, int N, int t0);
// The content stream alone with the causal mask kept (the linear probe): ids (T) = 2·f.
void gvp_content_ids(int *ids, const int *group, int N, int t0);
