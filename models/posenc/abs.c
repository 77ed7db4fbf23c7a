// models/posenc/abs.c — pe.kind=abs: a learned (T0, d) table added to every token (cls has its
// own row), trunc-normal 0.02 init. At another grid the patch part is resized bicubically
// (torch's F.interpolate(bicubic, align_corners=False)), cls row kept; the resize is
// differentiable, so UniViT trains through it. Can be kept on MP3 reference tokens.
#include "encoding.h"
#include "../model.h"
#include "../../core/resize.h"

typedef struct {
    float *table, *table_grad;     // parameter pos_embed (T0, d)
    float *resized, *resized_grad; // (T, d) the table at another grid; NULL when no other grid is possible
    float *weights, *weights_host; // (grid, grid0) bicubic weights, the same for rows and columns
} abs_state;


static void abs_declare_params(model *m) {
    abs_state *s = m->pe_state;
    model_add_param(m, "pos_embed", INIT_TRUNC_NORMAL, 0, m->T0, m->cfg.dim, &s->table, &s->table_grad);
}

static void abs_declare_acts(model *m) {
    abs_state *s = m->pe_state;
    int other_grid = m->N_max != m->grid0 * m->grid0;
    if (!other_grid) return;
    model_add_act(m, "pos_embed.resized", (size_t)m->T_max * m->cfg.dim, &s->resized, &s->resized_grad);
    model_add_input(m, "pos_embed.resize_weights", (size_t)m->grid_max * m->grid0, &s->weights, &s->weights_host);
}

static void abs_set_grid(model *m) {
    abs_state *s = m->pe_state;
    if (!s->weights || m->grid == m->grid0) return;
    resize_bicubic_weights(s->weights_host, m->grid, m->grid0);
    model_upload(m, s->weights_host, (size_t)m->grid * m->grid0);
}

// The (T, d) table of the current grid: the parameter itself, or its bicubic resize (cls row copied).
static const float *abs_table_forward(model *m) {
    abs_state *s = m->pe_state;
    if (m->grid == m->grid0) return s->table;
    int d = m->cfg.dim, t0 = m->t0;
    float *resized = s->resized;
    const float *table = s->table, *w = s->weights;
    if (t0) m->ops->gather_tokens_forward(resized, table, (const int *)m->batch.cls_index, 1, m->T0, 1, d);
    m->ops->resize2d_forward(resized + (size_t)t0 * d, table + (size_t)t0 * d, w, w, 1, m->grid0, m->grid0, m->grid,
                             m->grid, d);
    return resized;
}

static float *abs_table_grad(model *m) {
    abs_state *s = m->pe_state;
    return m->grid == m->grid0 ? s->table_grad : s->resized_grad;
}

// At another grid: the resized table's gradient back to the learned table.
static void abs_table_backward(model *m) {
    abs_state *s = m->pe_state;
    if (m->grid == m->grid0) return;
    int d = m->cfg.dim, t0 = m->t0;
    const float *dresized = s->resized_grad, *w = s->weights;
    float *dtable = s->table_grad;
    if (t0) m->ops->gather_tokens_backward(dtable, dresized, (const int *)m->batch.cls_index, 1, m->T0, 1, d);
    m->ops->resize2d_backward(dtable + (size_t)t0 * d, dresized + (size_t)t0 * d, w, w, 1, m->grid0, m->grid0, m->grid,
                              m->grid, d);
}

const posenc_kind posenc_abs = {
    .name = "abs",
    .state_size = sizeof(abs_state),
    .declare_params = abs_declare_params,
    .declare_acts = abs_declare_acts,
    .set_grid = abs_set_grid,
    .table_forward = abs_table_forward,
    .table_grad = abs_table_grad,
    .table_backward = abs_table_backward,
    .reference_table = abs_table_forward,
};
