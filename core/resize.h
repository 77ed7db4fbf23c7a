// core/resize.h — interpolation weights for resampling images and position grids.
// A resampling along one axis is a dense (out_size, in_size) matrix; 2D resampling applies
// one matrix per axis (ops->resize2d_forward). Dense matrices keep the op generic (any
// weights, and their transposes for the backward pass) and are tiny at ViT grid sizes.
#pragma once

// w (out_size, in_size): bicubic interpolation exactly as PyTorch's
// F.interpolate(mode='bicubic', align_corners=False, antialias=False) computes it:
//   source coordinate s = (i + 0.5) · in/out - 0.5 (NOT clamped to >= 0 for cubic),
//   t = s - floor(s), Keys cubic with A = -0.75 at distances 1+t, t, 1-t, 2-t, for taps
//   floor(s)-1 .. floor(s)+2; taps outside [0, in_size-1] are clamped to the border, so their
//   weights add into the border pixel. No antialiasing when downsampling (torch's default).
// out_size == in_size gives the identity matrix exactly. Rows sum to 1 up to float rounding.
// Sizes < 1 exit with a run-failed error.
void resize_bicubic_weights(float *w, int out_size, int in_size);
