// datasets/views_color.c — the colour transforms of a view, each as torchvision 0.14's
// functional_tensor.py does it on a float image in [0, 1]: adjust_brightness, adjust_contrast,
// adjust_saturation, adjust_hue (ColorJitter's four), rgb_to_grayscale (RandomGrayscale) and
// solarize (RandomSolarize). Images are (C, H, W), C = 1 or 3; arithmetic in float as torch's.
// The one reduction (contrast's mean) is a sequential double sum over one image.
#include "views.h"
#include <math.h>

static float clamp01(float v) { return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v; }

// torchvision rgb_to_grayscale: l = 0.2989·r + 0.587·g + 0.114·b (float32, left to right).
static float gray_of(float r, float g, float b) { return 0.2989f * r + 0.587f * g + 0.114f * b; }

// torchvision _blend(img1, img2, ratio) = clamp(ratio·img1 + (1 - ratio)·img2, 0, 1); the scalar
// factors as torch applies a Python float to a float32 tensor (1 - ratio formed in double).
static float blend(float a, float b, float ratio, float rest) { return clamp01(ratio * a + rest * b); }
static float one_minus(float ratio) { return (float)(1.0 - (double)ratio); }

void view_adjust_brightness(float *x, int C, int H, int W, float factor) {
    // adjust_brightness: _blend(img, zeros, factor) = clamp(factor·img, 0, 1).
    const float rest = one_minus(factor);
    for (size_t i = 0; i < (size_t)C * H * W; i++) x[i] = blend(x[i], 0.0f, factor, rest);
}

void view_adjust_contrast(float *x, int C, int H, int W, float factor) {
    // adjust_contrast: m = mean of rgb_to_grayscale(img) over all pixels (3 channels) or of the
    // image (1 channel); _blend(img, m, factor) = clamp(factor·img + (1 - factor)·m, 0, 1).
    const size_t n = (size_t)H * W;
    double sum = 0.0;
    if (C == 3)
        for (size_t i = 0; i < n; i++) sum += (double)gray_of(x[i], x[n + i], x[2 * n + i]);
    else
        for (size_t i = 0; i < n; i++) sum += (double)x[i];
    const float mean = (float)(sum / (double)n), rest = one_minus(factor);
    for (size_t i = 0; i < (size_t)C * n; i++) x[i] = blend(x[i], mean, factor, rest);
}

void view_adjust_saturation(float *x, int C, int H, int W, float factor) {
    // adjust_saturation: 1 channel unchanged ("Match PIL behaviour"); 3 channels
    // _blend(img, rgb_to_grayscale(img), factor) per pixel.
    if (C != 3) return;
    const size_t n = (size_t)H * W;
    const float rest = one_minus(factor);
    for (size_t i = 0; i < n; i++) {
        const float l = gray_of(x[i], x[n + i], x[2 * n + i]);
        for (int c = 0; c < 3; c++) x[c * n + i] = blend(x[c * n + i], l, factor, rest);
    }
}

// torchvision _rgb2hsv (Pillow's algorithm): maxc, minc, cr = maxc - minc; s = cr / maxc
// (1 where maxc == minc); rc, gc, bc = (maxc - r, g, b) / cr (cr := 1 where equal);
// h = [maxc == r]·(bc - gc) + [maxc == g and maxc != r]·(2 + rc - bc) +
//     [maxc != g and maxc != r]·(4 + gc - rc); h = fmod(h/6 + 1, 1); v = maxc.
static void rgb2hsv(float r, float g, float b, float *h, float *s, float *v) {
    const float maxc = fmaxf(r, fmaxf(g, b)), minc = fminf(r, fminf(g, b));
    const int eqc = maxc == minc;
    const float cr = maxc - minc;
    *s = cr / (eqc ? 1.0f : maxc);
    const float div = eqc ? 1.0f : cr;
    const float rc = (maxc - r) / div, gc = (maxc - g) / div, bc = (maxc - b) / div;
    // torch sums hr + hg + hb, two of them zero (a bool times a float): the same value
    float hh = 0.0f;
    if (maxc == r) hh = bc - gc;
    else if (maxc == g) hh = 2.0f + rc - bc;
    else hh = 4.0f + gc - rc;
    *h = fmodf(hh / 6.0f + 1.0f, 1.0f);
    *v = maxc;
}

// torchvision _hsv2rgb: i = floor(6h), f = 6h - i, p = clamp(v(1 - s)), q = clamp(v(1 - s·f)),
// t = clamp(v(1 - s(1 - f))) (clamp to [0, 1]); with i mod 6 choosing
// r = (v, q, p, p, t, v), g = (t, v, v, q, p, p), b = (p, p, t, v, v, q).
static void hsv2rgb(float h, float s, float v, float *r, float *g, float *b) {
    const float fi = floorf(h * 6.0f), f = h * 6.0f - fi;
    int i = (int)fi % 6;
    if (i < 0) i += 6;
    const float p = clamp01(v * (1.0f - s)), q = clamp01(v * (1.0f - s * f)),
                t = clamp01(v * (1.0f - s * (1.0f - f)));
    const float rs[6] = {v, q, p, p, t, v}, gs[6] = {t, v, v, q, p, p}, bs[6] = {p, p, t, v, v, q};
    *r = rs[i], *g = gs[i], *b = bs[i];
}

void view_adjust_hue(float *x, int C, int H, int W, float factor) {
    // adjust_hue: 1 channel unchanged; 3 channels: _rgb2hsv, h = (h + factor) mod 1 (torch's %,
    // the sign of the divisor: [0, 1)), _hsv2rgb.
    if (C != 3) return;
    const size_t n = (size_t)H * W;
    for (size_t i = 0; i < n; i++) {
        float h, s, v;
        rgb2hsv(x[i], x[n + i], x[2 * n + i], &h, &s, &v);
        h = h + factor;
        float m = fmodf(h, 1.0f);
        if (m != 0.0f && m < 0.0f) m += 1.0f; // Python-style remainder, as torch's % on floats
        hsv2rgb(m, s, v, &x[i], &x[n + i], &x[2 * n + i]);
    }
}

void view_grayscale(float *x, int C, int H, int W) {
    // rgb_to_grayscale(img, num_output_channels=C) (RandomGrayscale keeps the channel count):
    // 3 channels: l = 0.2989·r + 0.587·g + 0.114·b in every channel; 1 channel: unchanged.
    if (C != 3) return;
    const size_t n = (size_t)H * W;
    for (size_t i = 0; i < n; i++) x[i] = x[n + i] = x[2 * n + i] = gray_of(x[i], x[n + i], x[2 * n + i]);
}

void view_solarize(float *x, int C, int H, int W, float threshold) {
    // solarize: where(img >= threshold, invert(img), img), invert(img) = 1 - img for floats.
    for (size_t i = 0; i < (size_t)C * H * W; i++)
        if (x[i] >= threshold) x[i] = 1.0f - x[i];
}
