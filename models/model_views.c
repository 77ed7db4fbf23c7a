// models/model_views.c — the token views objectives ask of a model (model_request), beside the
// plain forward over every token: MP3's masked attention over a context of M key tokens
// (model_context, model_set_context), MP3's reference tokens that alone carry the encoding
// (cfg.request.ref_tokens), GVP's two streams of content and query tokens with group masks
// (model_set_streams, model_groups), MAE's kept tokens (model_keep, model_set_keep), and the
// batch each view fits in the arenas (model_batch_capacity).
#include "model.h"
#include "model_parts.h"
#include "../core/common.h"

int *model_context(model *m) {
    if (!m->batch_host.context) die_fail("internal: model_context on a model built without context_tokens");
    return (int *)m->batch_host.context;
}

int *model_groups(model *m) {
    if (!m->batch_host.groups) die_fail("internal: model_groups on a model built without query_stream");
    return (int *)m->batch_host.groups;
}

void model_set_streams(model *m, int query_stream, int mask_mode) {
    if ((query_stream || mask_mode != ATTN_MASK_NONE) && !m->cfg.request.query_stream)
        die_fail("internal: model_set_streams on a model built without query_stream");
    m->Tq = query_stream ? m->N : 0;
    m->mask_mode = mask_mode;
}

int *model_keep(model *m) {
    if (!m->batch_host.keep_index) die_fail("internal: model_keep on a model built without keep_tokens");
    return (int *)m->batch_host.keep_index;
}

void model_set_keep(model *m, int keep) {
    if (keep < 0 || keep > m->cfg.request.keep_tokens || (keep > 0 && m->keep == 0 && m->M != m->T))
        die_fail("internal: model_set_keep(%d) on a model built for %d kept tokens", keep, m->cfg.request.keep_tokens);
    m->keep = keep;
    m->M = keep > 0 ? keep : m->T;
}

int model_batch_capacity(const model *m, int M) {
    if (m->keep_alloc > 0) { // MAE: activations of keep_alloc tokens per image, probabilities of keep_alloc²
        long rows = model_tokens(m), cap = (long)m->max_batch * m->keep_alloc * m->keep_alloc / (rows * (long)M);
        return cap < m->max_batch ? (int)cap : m->max_batch;
    }
    long cap = (long)m->max_batch * m->M_alloc / M;
    return cap < m->max_batch ? (int)cap : m->max_batch;
}

void model_set_context(model *m, int M) {
    if (M < 1 || M > m->T) die_fail("internal: model_set_context M=%d outside [1, %d]", M, m->T);
    if (M < m->T && !m->batch.context) die_fail("internal: masked attention on a model built without context_tokens");
    m->M = M;
}

// The two-stream model's fixed indices, staged and uploaded once (one grid): the content
// tokens as the context of every image (identity), the query rows' token indices T + n, their
// encoding rows t0 + n and zeros (every row a copy of w).
void model_stage_query_indices(model *m) {
    int B = m->max_batch, N = m->N, T = m->T;
    int *ctx = (int *)m->batch_host.context, *qi = (int *)m->batch_host.query_index;
    int *pi = (int *)m->batch_host.query_pe_index, *wi = (int *)m->batch_host.query_w_index;
    for (int b = 0; b < B; b++) {
        for (int t = 0; t < T; t++) ctx[(size_t)b * T + t] = t;
        for (int n = 0; n < N; n++) {
            qi[(size_t)b * N + n] = T + n;
            pi[(size_t)b * N + n] = m->t0 + n;
            wi[(size_t)b * N + n] = 0;
        }
    }
    model_upload(m, m->batch_host.context, (size_t)B * T);
    model_upload(m, m->batch_host.query_index, (size_t)B * N);
    model_upload(m, m->batch_host.query_pe_index, (size_t)B * N);
    model_upload(m, m->batch_host.query_w_index, (size_t)B * N);
}

// Draws this forward's reference tokens (cls, when there is one, and R patches) and adds
// their encoding rows: x0[b, ref[b, r]] += table[ref[b, r]]. The rows are gathered from the
// table viewed as one image of B·R keys.
void model_reference_positions_forward(model *m, int B) {
    int R = m->t0 + m->cfg.request.ref_tokens, d = m->cfg.dim;
    const int *ref = (const int *)m->batch.ref_index; // (B, R)
    float *rows = m->activations.ref_rows;           // (B, R, d)
    m->ops->gather_tokens_forward(rows, m->pe->reference_table(m), ref, 1, m->T, B * R, d);
    m->ops->gather_tokens_backward(m->activations.x0, rows, ref, B, m->T, R, d);
}

// A learned table (abs): the reference rows' gradient back to the (possibly resized) table; a
// token drawn by several images accumulates in image order. Fixed tables learn nothing.
void model_reference_positions_backward(model *m, int B) {
    if (!m->pe->table_grad) return;
    int R = m->t0 + m->cfg.request.ref_tokens, d = m->cfg.dim;
    const int *ref = (const int *)m->batch.ref_index;
    float *drows = m->activation_grads.ref_rows; // (B, R, d), overwritten
    m->ops->gather_tokens_forward(drows, m->activation_grads.x0, ref, B, m->T, R, d);
    m->ops->gather_tokens_backward(m->pe->table_grad(m), drows, ref, 1, m->T, B * R, d);
}

// GVP's two streams (B, T + N, d): the content rows x (B, T, d), then query row n = w + the
// encoding's row of patch n (reference_table, the (T, d) table of the grid).
const float *model_two_streams_forward(model *m, const float *x, int B) {
    const ops_backend *ops = m->ops;
    const model_activations *a = &m->activations;
    int d = m->cfg.dim, T = m->T, N = m->N, Ts = model_tokens(m);
    ops->scatter_tokens_forward(a->streams, x, (const int *)m->batch.context, B, Ts, T, d);
    ops->gather_tokens_forward(a->query_pe_rows, m->pe->reference_table(m), (const int *)m->batch.query_pe_index, 1, T,
                               B * N, d);
    ops->gather_tokens_forward(a->query_w_rows, m->weights.query_token, (const int *)m->batch.query_w_index, 1, 1, B * N, d);
    ops->scatter_tokens_forward(a->streams, a->query_pe_rows, (const int *)m->batch.query_index, B, Ts, N, d);
    ops->gather_tokens_backward(a->streams, a->query_w_rows, (const int *)m->batch.query_index, B, Ts, N, d); // += w
    return a->streams;
}

// Its backward: the content rows' gradient into dx (B, T, d) (overwritten), the query rows'
// into w and, for a learned table, into the table's gradient (before the embedding adds its own).
void model_two_streams_backward(model *m, float *dx, int B) {
    const ops_backend *ops = m->ops;
    const model_activations *da = &m->activation_grads;
    int d = m->cfg.dim, T = m->T, N = m->N, Ts = model_tokens(m);
    ops->gather_tokens_forward(dx, da->streams, (const int *)m->batch.context, B, Ts, T, d);
    ops->gather_tokens_forward(da->query_rows, da->streams, (const int *)m->batch.query_index, B, Ts, N, d);
    ops->gather_tokens_backward(m->weight_grads.query_token, da->query_rows, (const int *)m->batch.query_w_index, 1, 1,
                                B * N, d);
    if (m->pe->table_grad)
        ops->gather_tokens_backward(m->pe->table_grad(m), da->query_rows, (const int *)m->batch.query_pe_index, 1, T,
                                    B * N, d);
}
