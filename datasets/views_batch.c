// datasets/views_batch.c — one view of one image from its drawn parameters (the pipeline order
// of views.h), and a normalised batch of one view index. Parallel over images; each image's
// view is computed by one thread from its own draws, so the batch is bitwise the same at any
// thread count.
#include "views.h"
#include "../core/common.h"
#include <stdlib.h>

size_t view_scratch_floats(const view_config *c, int C, int H, int W) {
    return (size_t)C * H * W + (size_t)C * c->size * c->size;
}

void view_apply(const view_config *c, const view_params *p, const uint8_t *src, int C, int H, int W,
                float *dst, float *scratch) {
    const int S = c->size;
    float *pixels = scratch;                       // (C, H, W) in [0, 1]
    float *tmp = scratch + (size_t)C * H * W;      // (C, S, S): the blur's copy
    for (size_t i = 0; i < (size_t)C * H * W; i++) pixels[i] = (float)src[i] / 255.0f;
    // RandomResizedCrop -> RandomHorizontalFlip
    view_resized_crop(pixels, C, H, W, p->top, p->left, p->height, p->width, S, dst);
    if (p->flip) view_hflip(dst, C, S, S);
    // RandomApply(ColorJitter): its four adjustments in the drawn order (fn_idx); an adjustment
    // whose range is {1, 1} ({0, 0} for hue) is skipped, as torchvision skips a None factor.
    if (p->jitter)
        for (int k = 0; k < 4; k++) switch (p->order[k]) {
            case 0:
                if (c->brightness[0] != 1.0f || c->brightness[1] != 1.0f) view_adjust_brightness(dst, C, S, S, p->brightness);
                break;
            case 1:
                if (c->contrast[0] != 1.0f || c->contrast[1] != 1.0f) view_adjust_contrast(dst, C, S, S, p->contrast);
                break;
            case 2:
                if (c->saturation[0] != 1.0f || c->saturation[1] != 1.0f) view_adjust_saturation(dst, C, S, S, p->saturation);
                break;
            default:
                if (c->hue[0] != 0.0f || c->hue[1] != 0.0f) view_adjust_hue(dst, C, S, S, p->hue);
                break;
            }
    // RandomGrayscale -> RandomApply(GaussianBlur) -> RandomSolarize
    if (p->grayscale) view_grayscale(dst, C, S, S);
    if (p->blur) view_gaussian_blur(dst, C, S, S, c->blur_kernel, p->sigma, tmp);
    if (p->solarize) view_solarize(dst, C, S, S, c->solarize_threshold);
}

void views_make_batch(const dataset *ds, const int *indices, int B, const view_set *set, int view,
                      uint32_t seed, uint32_t epoch, uint32_t step, float *images, int32_t *labels) {
    const int C = ds->channels, H = ds->height, W = ds->width;
    if (!ds->pixels || ds->audio || ds->vocab || (C != 1 && C != 3))
        die_fail("dataset %s: views need an image dataset with 1 or 3 channels", ds->name);
    if (view < 0 || view >= set->count)
        die_fail("view %d outside the view set's %d views", view, set->count);
    const view_config *c = &set->config[view];
    const char *why = view_config_check(c, C, H, W);
    if (why) die_input("view %d: %s", view, why);
    for (int b = 0; b < B; b++)
        if (indices[b] < 0 || indices[b] >= ds->n)
            die_fail("dataset %s: batch position %d asks for row %d, outside [0, %d)", ds->name, b,
                     indices[b], ds->n);
    const size_t row = (size_t)C * H * W, out = (size_t)C * c->size * c->size, per = view_scratch_floats(c, C, H, W);
    float *scratch = xmalloc((size_t)B * per * sizeof(float), "view scratch");

#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        view_params p;
        view_draw(c, H, W, seed, epoch, step, b, view, &p);
        float *dst = images + (size_t)b * out; // (C, S, S)
        view_apply(c, &p, ds->pixels + (size_t)indices[b] * row, C, H, W, dst, scratch + (size_t)b * per);
        const size_t plane = (size_t)c->size * c->size;
        for (int ch = 0; ch < C; ch++)
            for (size_t i = 0; i < plane; i++)
                dst[ch * plane + i] = (dst[ch * plane + i] - ds->mean[ch]) / ds->std[ch];
        if (labels) labels[b] = ds->labels[indices[b]];
    }
    free(scratch);
}
