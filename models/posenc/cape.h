// models/posenc/cape.h — CAPE's own settings (the pe.cape_* keys), shared by its image form
// (models/posenc/sin2d.c, pe.kind=cape) and its sequence form (models/posenc/cape1d.c): what a
// model config's pe_own holds when its encoding is cape (POSENC_OWN).
#pragma once
#include "../api/model_config.h"

typedef struct {
    float global_shift; // pe.cape_global_shift: images, per-image shift bound (positions span [-1, 1])
    float local_shift;  // pe.cape_local_shift: per-token bound; < 0: 1/grid side (images), half a frame (sequences)
    float scale;        // pe.cape_scale: per-image (per-sequence) scale bound lambda_max (1 = no scaling)
    float time_shift;   // pe.cape_time_shift: sequences, per-sequence shift bound in seconds
} posenc_cape_settings;

// The cape settings of c: its own when c's encoding is cape, else the keys' defaults (the
// crosscheck plan lists them for every run).
posenc_cape_settings posenc_cape_settings_of(const model_config *c);
