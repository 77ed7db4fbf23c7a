// datasets/views_draw.c — drawing one view's parameters from the counter RNG: the crop box
// (torchvision RandomResizedCrop.get_params), the flip, ColorJitter's order and factors
// (ColorJitter.get_params), grayscale, blur sigma (GaussianBlur.get_params), solarisation.
// Each transform draws from its own block range of the image's stream (views.h), so turning one
// transform off or changing its settings leaves every other transform's draws unchanged.
// Probabilities: a transform with probability p is applied when its uniform u < p (p = 0: never,
// p = 1: always). torchvision's RandomHorizontalFlip, RandomGrayscale and RandomSolarize test
// rand < p the same way; RandomApply skips when p < rand, which differs only when u == p exactly.
// Uniform ranges are drawn as torch's uniform_(lo, hi) on float32: u·(hi - lo) + lo.
#include "views.h"
#include "../core/common.h"
#include <math.h>

// The stream of transform `part` of view `view` of image b (views.h: block (view << 24) | (part << 20)).
static rng_stream part_stream(uint32_t seed, uint32_t epoch, uint32_t step, int b, int view, view_part part) {
    rng_stream s = rng_stream_make(seed, RNG_VIEWS, epoch, step, (uint32_t)b);
    s.counter[3] = ((uint32_t)view << 24) | ((uint32_t)part << 20);
    return s;
}

static float uniform_in(rng_stream *s, const float r[2]) { return rng_uniform(s) * (r[1] - r[0]) + r[0]; }

void view_draw_crop(const view_config *c, int H, int W, rng_stream *s, view_params *p, float *trace) {
    // torchvision RandomResizedCrop.get_params (0.14): area = H·W, log_ratio = log(ratio)
    // (float32), 10 attempts of target_area = area·U(scale), aspect = exp(U(log_ratio)),
    // w = round(sqrt(target_area·aspect)), h = round(sqrt(target_area/aspect)); accept when
    // 0 < w <= W and 0 < h <= H, then i = randint(0, H - h + 1), j = randint(0, W - w + 1).
    const double area = (double)H * (double)W;
    const float log_ratio[2] = {logf(c->ratio[0]), logf(c->ratio[1])};
    for (int attempt = 0; attempt < 10; attempt++) {
        const float us = rng_uniform(s), ur = rng_uniform(s);
        const float scale = us * (c->scale[1] - c->scale[0]) + c->scale[0];
        const float log_aspect = ur * (log_ratio[1] - log_ratio[0]) + log_ratio[0];
        if (trace) trace[2 * attempt] = scale, trace[2 * attempt + 1] = log_aspect;
        const double target_area = area * (double)scale;
        const double aspect = (double)expf(log_aspect);
        // Python's round() rounds half to even: rint in the default rounding mode does too.
        const int w = (int)rint(sqrt(target_area * aspect)), h = (int)rint(sqrt(target_area / aspect));
        if (0 < w && w <= W && 0 < h && h <= H) {
            p->top = (int)rng_below(s, (uint32_t)(H - h + 1));
            p->left = (int)rng_below(s, (uint32_t)(W - w + 1));
            p->height = h, p->width = w;
            p->crop_attempts = attempt + 1;
            return;
        }
    }
    // Fallback to the central crop: in_ratio = W/H; below min(ratio): w = W, h = round(w/min);
    // above max(ratio): h = H, w = round(h·max); otherwise the whole image.
    const double in_ratio = (double)W / (double)H;
    int w = W, h = H;
    if (in_ratio < (double)c->ratio[0]) {
        h = (int)rint(w / (double)c->ratio[0]);
    } else if (in_ratio > (double)c->ratio[1]) {
        w = (int)rint(h * (double)c->ratio[1]);
    }
    p->height = h, p->width = w;
    p->top = (H - h) / 2, p->left = (W - w) / 2;
    p->crop_attempts = 11;
}

void view_draw(const view_config *c, int H, int W, uint32_t seed, uint32_t epoch, uint32_t step, int b,
               int view, view_params *p) {
    if (view < 0 || view >= VIEW_INDEX_MAX) die_fail("view index %d outside [0, %d)", view, VIEW_INDEX_MAX);
    rng_stream s = part_stream(seed, epoch, step, b, view, VIEW_PART_CROP);
    view_draw_crop(c, H, W, &s, p, NULL);

    s = part_stream(seed, epoch, step, b, view, VIEW_PART_FLIP);
    p->flip = rng_uniform(&s) < c->hflip_p;

    // torchvision ColorJitter.get_params: fn_idx = randperm(4), then one uniform factor per
    // adjustment in its range (all four drawn here, so the stream layout is fixed).
    s = part_stream(seed, epoch, step, b, view, VIEW_PART_JITTER);
    p->jitter = rng_uniform(&s) < c->jitter_p;
    rng_permutation(&s, 4, p->order);
    p->brightness = uniform_in(&s, c->brightness);
    p->contrast = uniform_in(&s, c->contrast);
    p->saturation = uniform_in(&s, c->saturation);
    p->hue = uniform_in(&s, c->hue);

    s = part_stream(seed, epoch, step, b, view, VIEW_PART_GRAYSCALE);
    p->grayscale = rng_uniform(&s) < c->grayscale_p;

    // torchvision GaussianBlur.get_params: sigma = U(sigma_min, sigma_max).
    s = part_stream(seed, epoch, step, b, view, VIEW_PART_BLUR);
    p->blur = rng_uniform(&s) < c->blur_p;
    const float sigma = uniform_in(&s, c->blur_sigma);
    p->sigma = p->blur ? sigma : 0.0f;

    s = part_stream(seed, epoch, step, b, view, VIEW_PART_SOLARIZE);
    p->solarize = rng_uniform(&s) < c->solarize_p;
}
