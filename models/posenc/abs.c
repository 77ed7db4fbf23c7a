// models/posenc/abs.c — pe.kind=abs: a learned (T0, d) table added to every token (cls has its
// own row), trunc-normal 0.02 init. At another grid the patch part is resized bicubically
// (torch's F.interpolate(bicubic, align_corners=False)), cls row kept; a sequence's table is a
// 1 × L grid, so another length resizes it along time; the resize is
// differentiable, so UniViT trains through it. Can be kept on MP3 reference tokens.
#include "encoding.h"
#include "../api/model_view.h"
#include "../../core/resize.h"

typedef struct {
    float *table, *table_grad;     // parameter pos_embed (T0, d)
    float *resized, *resized_grad; // (T, d) the table at another grid; NULL when no other grid is possible
    float *col_weights, *col_weights_host; // (cols, cols0) bicubic weights of the columns (images: also the rows)
    float *row_weights, *row_weights_host; // (rows, rows0) of the rows, a sequence's 1 x 1; NULL for images
} abs_state;

static int same_grid(const struct model *m) {
    const model_view v = model_view_of(m);
    return v.rows == v.rows0 && v.cols == v.cols0;
}

static void abs_declare_params(struct model *m) {
    const model_view v = model_view_of(m);
    abs_state *s = v.state;
    model_add_param(m, "pos_embed", INIT_TRUNC_NORMAL, 0, v.T0, v.cfg->dim, &s->table, &s->table_grad);
}

static void abs_declare_acts(struct model *m) {
    const model_view v = model_view_of(m);
    abs_state *s = v.state;
    // No other grid is possible only for a one-patch model built at its largest size: any other
    // can be set to a smaller grid (model_set_resolution), so the resize buffers exist whenever
    // that can happen, not only when a larger size is planned (eval.resolutions below the
    // training size alone wrote past them before).
    if (v.N_max == 1 && v.rows0 * v.cols0 == 1) return;
    model_add_act(m, "pos_embed.resized", (size_t)v.T_max * v.cfg->dim, &s->resized, &s->resized_grad);
    model_add_input(m, "pos_embed.resize_weights", (size_t)v.cols_max * v.cols0, &s->col_weights, &s->col_weights_host);
    if (v.rows0 != v.cols0)
        model_add_input(m, "pos_embed.resize_row_weights", (size_t)v.rows_max * v.rows0, &s->row_weights, &s->row_weights_host);
}

static void abs_set_grid(struct model *m) {
    const model_view v = model_view_of(m);
    abs_state *s = v.state;
    if (!s->col_weights || same_grid(m)) return;
    resize_bicubic_weights(s->col_weights_host, v.cols, v.cols0);
    model_upload(m, s->col_weights_host, (size_t)v.cols * v.cols0);
    if (!s->row_weights) return;
    resize_bicubic_weights(s->row_weights_host, v.rows, v.rows0);
    model_upload(m, s->row_weights_host, (size_t)v.rows * v.rows0);
}

// The (T, d) table of the current grid: the parameter itself, or its bicubic resize (cls row copied).
static const float *abs_table_forward(struct model *m) {
    const model_view v = model_view_of(m);
    abs_state *s = v.state;
    if (same_grid(m)) return s->table;
    int d = v.cfg->dim, t0 = v.t0;
    const float *wy = s->row_weights ? s->row_weights : s->col_weights, *wx = s->col_weights;
    if (t0) v.ops->gather_tokens_forward(s->resized, s->table, (const int *)v.cls_index, 1, v.T0, 1, d);
    v.ops->resize2d_forward(s->resized + (size_t)t0 * d, s->table + (size_t)t0 * d, wy, wx, 1, v.rows0, v.cols0, v.rows,
                             v.cols, d);
    return s->resized;
}

static float *abs_table_grad(struct model *m) {
    const model_view v = model_view_of(m);
    abs_state *s = v.state;
    return same_grid(m) ? s->table_grad : s->resized_grad;
}

// At another grid: the resized table's gradient back to the learned table.
static void abs_table_backward(struct model *m) {
    const model_view v = model_view_of(m);
    abs_state *s = v.state;
    if (same_grid(m)) return;
    int d = v.cfg->dim, t0 = v.t0;
    const float *wy = s->row_weights ? s->row_weights : s->col_weights, *wx = s->col_weights;
    if (t0) v.ops->gather_tokens_backward(s->table_grad, s->resized_grad, (const int *)v.cls_index, 1, v.T0, 1, d);
    v.ops->resize2d_backward(s->table_grad + (size_t)t0 * d, s->resized_grad + (size_t)t0 * d, wy, wx, 1, v.rows0,
                              v.cols0, v.rows, v.cols, d);
}

const posenc_kind posenc_abs = {
    .name = "abs",
    .description = "learned table, cls has its own row, resized bicubically at other sizes",
    .positional = 1, .has_table = 1, .resizable = 1, .grid_ok = 1, .sequence_ok = 1, .crosscheck_ok = 1, .timm_vit = 1,
    .state_size = sizeof(abs_state),
    .declare_params = abs_declare_params,
    .declare_acts = abs_declare_acts,
    .set_grid = abs_set_grid,
    .table_forward = abs_table_forward,
    .table_grad = abs_table_grad,
    .table_backward = abs_table_backward,
    .reference_table = abs_table_forward,
};
