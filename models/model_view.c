// models/model_view.c — what a position encoding sees of the model it encodes (model_view.h):
// the snapshot of its config and current grid, and its own state. Below model.c and the
// encodings, which both call it, so no encoding calls back into model.c.
#include "model.h"
#include "api/model_view.h"

model_view model_view_of(const model *m) {
    return (model_view){.cfg = &m->cfg, .ops = m->ops, .state = m->pe_state, .max_batch = m->max_batch, .t0 = m->t0,
                        .N = m->N, .T = m->T, .rows = m->rows, .cols = m->cols, .grid = m->grid, .rows0 = m->rows0,
                        .cols0 = m->cols0, .T0 = m->T0, .rows_max = m->rows_max, .cols_max = m->cols_max,
                        .N_max = m->N_max, .T_max = m->T_max, .M_alloc = m->M_alloc, .cls_index = m->batch.cls_index,
                        .x0 = m->activations.x0};
}

void *model_pe_state(const model *m) { return m->pe_state; }
