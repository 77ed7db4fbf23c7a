// objectives/pixel_targets.h — the pixel targets of the objectives that predict pixels (GVP-p2p,
// MAE): MAE's norm_pix_loss targets, shared so both normalise the same way.
#pragma once

// Per-patch normalised pixel targets (MAE's norm_pix_loss): patch n of image (C, S, S),
// flattened in patchify's (c, py, px) order, minus its mean, divided by sqrt(var + 1e-6) with
// the unbiased variance (torch's .var() default, as MAE's code). out (N, C·p·p); also the
// mean and sqrt(var + 1e-6) of every patch when mean / scale are not NULL (N).
void pixel_patch_targets(float *out, float *mean, float *scale, const float *image, int C, int S, int p);
