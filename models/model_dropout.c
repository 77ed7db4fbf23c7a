// models/model_dropout.c — dropout and drop path for the backbones (model.h): the draws of a
// forward's images at their places in the step's whole batch (rng_addr sites), so a
// train.accumulate micro-batch or an MPI rank draws what the whole-batch step would. Below
// model.c and the backbones, which both call it.
#include "model.h"
#include "../core/common.h"
#include "../core/rng.h"
#include <stddef.h>
#include <stdint.h>

static rng_addr site(rng_addr base, uint32_t purpose, uint32_t index) {
    base.purpose = purpose;
    base.index = index;
    return base;
}

void model_drop_path_scales(model *m, float *keep, int B, float p, rng_addr rng, uint32_t site_index) {
    uint32_t first = p > 0.0f ? rng.index : 0; // an evaluation's rng.index is its test offset; p = 0 there
    rng_addr at = site(rng, RNG_DROPPATH, site_index);
    if (first == 0) {
        m->ops->drop_path_scales(keep, B, p, at);
        return;
    }
    // Images first .. first + B - 1 of the step's batch: draw the batch's first + B scales and
    // move the last B to the front ([first, first + B) and [0, B) are disjoint: first = i * B).
    if (first % (uint32_t)B != 0 || first + (uint32_t)B > (uint32_t)m->max_batch)
        die_fail("internal: drop path of images %u..%u (micro-batches of %d in a batch of at most %d)", first,
                 first + (uint32_t)B - 1, B, m->max_batch);
    m->ops->drop_path_scales(keep, (int)first + B, p, at);
    m->ops->copy(keep, keep + first, (size_t)B * sizeof(float));
}

void model_dropout_forward(model *m, float *out, float *mask, const float *in, int B, size_t per_image, float p,
                           rng_addr rng, uint32_t site_index) {
    // Image b of this forward is image rng.index + b of the step's batch; its elements are
    // elements (rng.index + b) per_image .. of the whole batch's tensor (0 outside training).
    uint64_t first = (uint64_t)rng.index * per_image;
    m->ops->dropout_forward(out, mask, in, (size_t)B * per_image, p, site(rng, RNG_DROPOUT, site_index), first);
}
