// objectives/attention_views.h — the lecture's views of a ViT that read attention (the ViT /
// SSL lecture, "Last block attention map"; docs/views.md): the [CLS] query's attention to each
// patch per head, which patches of an image are blank, and the share of the [CLS] attention
// that falls on the non-blank ones. Plain host arrays (the trainer downloads the model's
// tensors first: bench/train/train_views.c); no reductions whose order depends on threads.
#pragma once

// A pixel counts as background when, mapped back to the 0..255 scale of the stored 8-bit data,
// (x * std + mean) * 255 for the normalised input x, it is below this: it rounds to 0 (black,
// the background of Fashion-MNIST and MNIST and of the crop padding).
#define VIEWS_BLANK_BELOW 0.5

// The [CLS] row of the last block's attention: probs (B, H, T, T) with T = t0 + P tokens
// (t0 = 1: the cls token leads), out (B, H, P) = probs[b, h, 0, t0 + j] for patch j in raster
// order (the cls key's own probability is left out, as attn[0, head, 0, 1:] in the lecture).
void views_cls_attention(const float *probs, int B, int H, int T, int t0, float *out);

// Images as the model sees them, images (B, C, S, S) normalised per channel as
// (pixel / 255 - mean[c]) / std[c], mapped back to pixel units: pixels (B, C, S, S) =
// x * std[c] + mean[c] (0 = black, 1 = white), and blank patches: mask (B, gh, gw), gh = gw =
// S / p, 1 when some pixel of the p x p patch in some channel is not background
// (VIEWS_BLANK_BELOW), 0 when every pixel is. Returns the share of non-blank patches over
// the B images (what uniform attention would put on them).
double views_foreground_mask(const float *images, int B, int C, int S, int p, const float *mean, const float *std,
                             float *pixels, float *mask);

// The share of each head's [CLS] attention mass on non-blank patches: per image b and head h,
// sum_j mask[b, j] cls[b, h, j] / sum_j cls[b, h, j] over the P patches (0 when the patches get
// no mass), then the mean over the B images: per_head (H). Returns the mean over heads.
double views_foreground_share(const float *cls, const float *mask, int B, int H, int P, float *per_head);
