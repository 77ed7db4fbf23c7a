// models/posenc/abs.c — pe.kind=abs: a learned (T0, d) table added to every token (cls has its
// own row), trunc-normal 0.02 init. At another grid the patch part is resized bicubically
// (torch's F.interpolate(bicubic, align_corners=False)), cls row kept; the resize is
// differentiable, so UniViT trains through it. Can be kept on MP3 reference tokens.
#include "encoding.h"
#include "../vit.h"
#include "../../core/resize.h"

typedef struct {
    int table;      // parameter pos_embed (T0, d)
    int a_resized;  // (T, d) the table at another grid (with gradient); -1 when no other grid is possible
    int in_weights; // (grid, grid0) bicubic weights, the same for rows and columns
} abs_state;


static void abs_declare_params(vit *m) {
    abs_state *s = m->pe_state;
    s->table = vit_add_param(m, "pos_embed", 0, m->T0, m->cfg.dim);
}

static void abs_declare_acts(vit *m) {
    abs_state *s = m->pe_state;
    int other_grid = m->N_max != m->grid0 * m->grid0;
    s->a_resized = other_grid ? vit_add_act(m, "pos_embed.resized", (size_t)m->T_max * m->cfg.dim, 1) : -1;
    s->in_weights = other_grid ? vit_add_input(m, "pos_embed.resize_weights", (size_t)m->grid_max * m->grid0) : -1;
}

static void abs_set_grid(vit *m) {
    abs_state *s = m->pe_state;
    if (s->in_weights < 0 || m->grid == m->grid0) return;
    resize_bicubic_weights(vit_staged(m, s->in_weights), m->grid, m->grid0);
    vit_upload_input(m, s->in_weights, (size_t)m->grid * m->grid0);
}

// The (T, d) table of the current grid: the parameter itself, or its bicubic resize (cls row copied).
static const float *abs_table_forward(vit *m) {
    abs_state *s = m->pe_state;
    if (m->grid == m->grid0) return vit_param(m, s->table);
    int d = m->cfg.dim, t0 = m->t0;
    float *resized = vit_act(m, s->a_resized);
    const float *table = vit_param(m, s->table), *w = vit_input(m, s->in_weights);
    if (t0) m->ops->gather_tokens_forward(resized, table, (const int *)vit_input(m, m->in_cls_index), 1, m->T0, 1, d);
    m->ops->resize2d_forward(resized + (size_t)t0 * d, table + (size_t)t0 * d, w, w, 1, m->grid0, m->grid0, m->grid,
                             m->grid, d);
    return resized;
}

static float *abs_table_grad(vit *m) {
    abs_state *s = m->pe_state;
    return m->grid == m->grid0 ? vit_grad(m, s->table) : vit_dact(m, s->a_resized);
}

// At another grid: the resized table's gradient back to the learned table.
static void abs_table_backward(vit *m) {
    abs_state *s = m->pe_state;
    if (m->grid == m->grid0) return;
    int d = m->cfg.dim, t0 = m->t0;
    const float *dresized = vit_dact(m, s->a_resized), *w = vit_input(m, s->in_weights);
    float *dtable = vit_grad(m, s->table);
    if (t0) m->ops->gather_tokens_backward(dtable, dresized, (const int *)vit_input(m, m->in_cls_index), 1, m->T0, 1, d);
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
