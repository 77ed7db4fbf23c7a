// datasets/resize_batch.c — batches at a resolution other than the dataset's (UniViT-style
// multi-resolution training and evaluation at another size): build the native batch, then
// resize it bicubically as torch's F.interpolate does; and the per-step resolution draw.
// No allocation: the native batch and the weight matrix live in caller-provided scratch.
#include "dataset.h"
#include "../core/common.h"
#include "../core/ops.h"
#include "../core/resize.h"
#include "../core/rng.h"

static int native_size(const dataset *ds) {
    if (ds->audio || ds->vocab) return ds->height; // frames, bytes: sequences are never resized (below)
    if (ds->height != ds->width)
        die_input("dataset %s is %d x %d: resizing supports square images only", ds->name,
                  ds->height, ds->width);
    return ds->height;
}

size_t dataset_batch_scratch_floats(const dataset *ds, int B, int out_size) {
    const int S = native_size(ds);
    if (out_size == S) return 0;
    if (ds->audio || ds->vocab) die_input("dataset %s is a sequence (%d tokens): data.resolution and eval.resolutions do "
                                          "not apply (leave them at 0 / [])", ds->name, ds->height);
    return (size_t)B * ds->channels * S * S + (size_t)out_size * S;
}

void dataset_make_batch_sized(const dataset *ds, const int *indices, int B,
                              const augment_config *aug, uint32_t seed, uint32_t epoch,
                              uint32_t step, int out_size, float *images, int32_t *labels,
                              float *scratch) {
    const int S = native_size(ds);
    if (out_size < 1) die_fail("dataset %s: batch size %d x %d requested", ds->name, out_size, out_size);
    if (out_size == S) {
        dataset_make_batch(ds, indices, B, aug, seed, epoch, step, images, labels);
        return;
    }
    if (ds->audio || ds->vocab) die_input("dataset %s is a sequence (%d tokens): data.resolution and eval.resolutions do "
                                          "not apply (leave them at 0 / [])", ds->name, ds->height);
    if (!scratch) die_fail("dataset_make_batch_sized: resizing %d -> %d needs scratch", S, out_size);
    float *native = scratch;                                      // (B, C, S, S)
    float *w = scratch + (size_t)B * ds->channels * S * S;        // (out_size, S)
    dataset_make_batch(ds, indices, B, aug, seed, epoch, step, native, labels);
    resize_bicubic_weights(w, out_size, S);
    // every (image, channel) plane is one grid: P = B·C, channels-last C = 1
    ops_cpu.resize2d_forward(images, native, w, w, B * ds->channels, S, S, out_size, out_size, 1);
}

int resize_draw_size(const int *sizes, int n, uint32_t seed, uint32_t epoch, uint32_t step) {
    if (n < 1) die_fail("resize_draw_size: no resolutions to draw from");
    rng_stream s = rng_stream_make(seed, RNG_RESOLUTION, epoch, step, 0);
    return sizes[rng_below(&s, (uint32_t)n)];
}
