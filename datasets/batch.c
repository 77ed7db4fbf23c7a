// datasets/batch.c — turning dataset rows into a float batch: normalisation, random crop with
// black padding, horizontal flip. Every image's random draws come from its own Philox stream
// (seed, RNG_AUGMENT, epoch, step, b), so the batch is the same for any thread count.
#include "dataset.h"
#include "../core/common.h"
#include "../core/rng.h"
#include "registry.h"

void dataset_augment_draw(const augment_config *aug, uint32_t seed, uint32_t epoch, uint32_t step, int b, int *dy, int *dx,
                          int *flip) {
    const int pad = aug->crop_pad > 0 ? aug->crop_pad : 0;
    rng_stream s = rng_stream_make(seed, RNG_AUGMENT, epoch, step, (uint32_t)b);
    *dy = *dx = *flip = 0;
    if (pad > 0) {
        *dy = (int)rng_below(&s, 2u * (uint32_t)pad + 1) - pad;
        *dx = (int)rng_below(&s, 2u * (uint32_t)pad + 1) - pad;
    }
    if (aug->hflip) *flip = rng_uniform(&s) < 0.5f;
}

void dataset_make_batch(const dataset *ds, const int *indices, int B, const augment_config *aug,
                        uint32_t seed, uint32_t epoch, uint32_t step, float *images, int32_t *labels) {
    if (ds->kind && ds->kind->make_batch) { // speech: MFCC frames as tokens (B, frames, 40); text: (B, L) ints
        ds->kind->make_batch(ds, indices, B, aug, seed, epoch, step, images, labels);
        return;
    }
    const int C = ds->channels, H = ds->height, W = ds->width;
    if (C < 1 || C > 3) die_fail("dataset %s has %d channels (batches support 1 to 3)", ds->name, C);
    for (int b = 0; b < B; b++)
        if (indices[b] < 0 || indices[b] >= ds->n)
            die_fail("dataset %s: batch position %d asks for row %d, outside [0, %d)", ds->name, b,
                     indices[b], ds->n);
    // (pixel/255 - mean)/std for every byte value, per channel: exactly the formula, as a table.
    float lut[3][256];
    for (int c = 0; c < C; c++)
        for (int v = 0; v < 256; v++) lut[c][v] = ((float)v / 255.0f - ds->mean[c]) / ds->std[c];
    const size_t plane = (size_t)H * W, row_bytes = (size_t)C * plane;

#pragma omp parallel for schedule(static)
    for (int b = 0; b < B; b++) {
        const uint8_t *src = ds->pixels + (size_t)indices[b] * row_bytes; // (C, H, W)
        float *dst = images + (size_t)b * row_bytes;                     // (C, H, W)
        labels[b] = ds->labels[indices[b]];
        int dy = 0, dx = 0, flip = 0; // output (y, x) reads source (y + dy, x' + dx), x' = flipped x
        if (aug) dataset_augment_draw(aug, seed, epoch, step, b, &dy, &dx, &flip);
        for (int c = 0; c < C; c++) {
            const float *table = lut[c];
            const uint8_t *sp = src + (size_t)c * plane;
            float *dp = dst + (size_t)c * plane;
            if (dy == 0 && dx == 0 && !flip) {
                for (size_t i = 0; i < plane; i++) dp[i] = table[sp[i]];
                continue;
            }
            const float black = table[0];
            for (int y = 0; y < H; y++) {
                int sy = y + dy;
                float *out = dp + (size_t)y * W;
                if (sy < 0 || sy >= H) {
                    for (int x = 0; x < W; x++) out[x] = black;
                    continue;
                }
                const uint8_t *in = sp + (size_t)sy * W;
                for (int x = 0; x < W; x++) {
                    int sx = (flip ? W - 1 - x : x) + dx;
                    out[x] = sx >= 0 && sx < W ? table[in[sx]] : black;
                }
            }
        }
    }
}
