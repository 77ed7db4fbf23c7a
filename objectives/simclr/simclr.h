// objectives/simclr/simclr.h — SimCLR's own settings (objective_settings.own; its keys
// simclr.temperature, simclr.color_strength, simclr.hidden_dim, simclr.proj_dim, simclr.pool:
// objectives/simclr/objective.c) and the staging of its two views per image.
#pragma once
#include "../../datasets/views.h"
#include "../../models/model.h"

enum { SIMCLR_POOL_CLS = 0, SIMCLR_POOL_MEAN = 1 };

typedef struct {
    double temperature;     // tau of NT-Xent
    double color_strength;  // s of the SimCLR view preset (datasets/views.h view_config_simclr)
    int hidden_dim, proj_dim; // projection head: Linear(d, hidden) -> ReLU -> Linear(hidden, proj)
    int pool;               // SIMCLR_POOL_CLS (the cls token) or SIMCLR_POOL_MEAN (mean of the patch tokens)
} simclr_settings;

// The two views of images indices[0..B) of ds at `size` px into the model's staging input
// (model_images, 2B images): view 0 of image b at row b, view 1 at row B + b, both drawn at
// (seed, RNG_VIEWS, epoch, step, b) (datasets/views.h); sets the model to that size.
void simclr_stage_views(model *m, const dataset *ds, const int *indices, int B, const view_set *set, uint32_t seed,
                        uint32_t epoch, uint32_t step);
