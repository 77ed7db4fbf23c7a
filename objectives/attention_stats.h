// objectives/attention_stats.h — statistics of attention probabilities on a fixed batch
// (MP3 Fig. 8, ViT "mean attention distance"): per layer and head, computed from the
// probabilities the forward pass keeps, probs (B, H, T, T) with T = t0 + gh*gw tokens
// (t0 = 1 when a cls token leads). Queries are the patch tokens; keys are all tokens.
//   entropy       (H)           mean over images and patch queries of -Σ_j p_ij log p_ij
//   mean_distance (H)           mean over images and patch queries of Σ_j p_ij d_ij / Σ_j p_ij
//                               over patch keys j, d = Euclidean distance in patches
//   relmap        (H, 2gh-1, 2gw-1)  mean attention at each offset (Δrow, Δcol) = key - query,
//                               averaged over the (image, query) pairs where that offset exists
//   cls_map       (H, gh, gw)   mean attention of the cls query to each patch (t0 = 1 only)
#pragma once

typedef struct {
    int H, gh, gw, t0;
    float *entropy, *mean_distance, *relmap, *cls_map; // caller-owned, sizes above
} attention_stats;

// Accumulates nothing: computes the four statistics for one layer from probs (B, H, T, T).
void attention_stats_layer(attention_stats *s, const float *probs, int B);
