// objectives/pixel_targets.h — the pixel targets of the objectives that predict pixels (GVP-p2p,
// MAE): MAE's norm_pix_loss targets, shared so both normalise the same way, and the samples of
// their figures (GVP Fig. 2, MAE Fig. 2).
#pragma once

// Per-patch normalised pixel targets (MAE's norm_pix_loss): patch n of image (C, S, S),
// flattened in patchify's (c, py, px) order, minus its mean, divided by sqrt(var + 1e-6) with
// the unbiased variance (torch's .var() default, as MAE's code). out (N, C·p·p); also the
// mean and sqrt(var + 1e-6) of every patch when mean / scale are not NULL (N).
void pixel_patch_targets(float *out, float *mean, float *scale, const float *image, int C, int S, int p);

// One sample of a figure: image (C, S, S) as the model saw it (normalised per channel with
// pixel_mean, pixel_std (C)) -> original (C, S, S) in pixel units; view: the patches with
// pred[n] == NULL as they are, the others 0.5 grey (the model's input); rebuilt: those patches
// as they are, patch n from pred[n] (C·p·p normalised values, patchify's order) un-normalised
// with the true patch's mean and scale (as MAE's figures). pred (N) pointers, N = (S/p)².
void pixel_sample(const float *image, const float *pixel_mean, const float *pixel_std, const float *const *pred, int C,
                  int S, int p, float *original, float *view, float *rebuilt);
