// objectives/simclr/simclr.c — SimCLR's two views per image into the model's staging input (see simclr.h).
#include "simclr.h"

void simclr_stage_views(model *m, const dataset *ds, const int *indices, int B, const view_set *set, uint32_t seed,
                        uint32_t epoch, uint32_t step) {
    model_set_resolution(m, set->config[0].size);
    float *images = model_images(m);
    size_t per_image = model_input_floats(m);
    views_make_batch(ds, indices, B, set, 0, seed, epoch, step, images, NULL);                       // (B, C, S, S)
    views_make_batch(ds, indices, B, set, 1, seed, epoch, step, images + (size_t)B * per_image, NULL); // (B, C, S, S)
}
