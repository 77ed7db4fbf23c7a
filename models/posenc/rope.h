// models/posenc/rope.h — RoPE's own settings (the pe.rope_* keys, models/posenc/rope.c): what a
// model config's pe_own holds when its encoding is rope (POSENC_OWN).
#pragma once
#include "../api/model_config.h"

typedef struct {
    int dims;   // pe.rope_dims: 1 (row-major patch index) or 2 (axial: columns, rows)
    float base; // pe.rope_base: base of the frequencies; 0 = posenc_rope_default_base(dims)
} posenc_rope_settings;

// The rope settings of c: its own when c's encoding is rope, else the keys' defaults (the
// crosscheck plan lists them for every run).
posenc_rope_settings posenc_rope_settings_of(const model_config *c);
