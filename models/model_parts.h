// models/model_parts.h — what model.c calls in the files the model is split into
// (model_tables.c, model_views.c); other modules use model.h. It names the model only as an
// incomplete type, so the split files include model.h and model.c includes this, and no two
// of them include each other.
#pragma once

typedef struct model model;
// model_tables.c: points every bound name into the arenas (once they are allocated).
void model_resolve_bindings(model *m);
// model_views.c: GVP's fixed indices of the current grid, staged and uploaded (model_create).
void model_stage_query_indices(model *m);
// model_views.c, for the forward and backward: MP3's reference tokens (cfg.request.ref_tokens)
// and GVP's two streams (m->Tq > 0).
void model_reference_positions_forward(model *m, int B);
void model_reference_positions_backward(model *m, int B);
const float *model_two_streams_forward(model *m, const float *x, int B);
void model_two_streams_backward(model *m, float *dx, int B);
