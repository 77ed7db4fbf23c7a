// objectives/mae/mae.h — MAE's random masking (docs/methods.md "MAE"; the MAE code's
// random_masking): per image, N uniform noise values from the counter RNG, their argsort (ties
// to the lower index) is the shuffle; its first round((1-eta)·N) patches are kept, the rest
// masked; the restore indices (argsort of the shuffle) put a shuffled sequence back in patch
// order. Host code only.
#pragma once
// MAE's own settings (objective_settings.own; its keys mae.decoder_depth, mae.decoder_dim:
// objectives/mae/objective.c).
typedef struct {
    int decoder_depth, decoder_dim; // MAE's light decoder
} mae_settings;
#include <stdint.h>

// Patches kept per image at masking ratio eta: round((1 - eta)·N) (lround, as MP3's context).
int mae_kept_patches(int N, double eta);
// NULL when eta leaves at least one kept and one masked patch of N, else why (naming
// objective.eta and what is valid).
const char *mae_ratio_error(int N, double eta);
// One image's shuffle from rng_stream_make(seed, RNG_MAE, epoch, step, index): noise (N) =
// rng_uniform in patch order, shuffle (N) = argsort(noise) (stable), restore (N) =
// argsort(shuffle), so restore[shuffle[j]] = j and shuffle[restore[n]] = n.
void mae_shuffle(int *shuffle, int *restore, float *noise, int N, uint32_t seed, uint32_t epoch, uint32_t step,
                 uint32_t index);
