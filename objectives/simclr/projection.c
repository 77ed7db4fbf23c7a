// objectives/simclr/projection.c — SimCLR's projection head after the model's head (see
// projection.h): ReLU, then Linear(H, P), as a model extension (models/api/model_config.h).
#include "projection.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int H, P;                   // hidden width (the head's outputs), projection width
    float *w, *b, *dw, *db;     // proj.2: (P, H), (P)
    float *h, *dh;              // (max_batch, H) ReLU of the head's output
    float *z, *dz;              // (max_batch, P)
} projection;

static const char *projection_config_error(const model_config *c) {
    static char msg[256];
    if (c->request.token_head || c->request.proj_outputs < 1 || c->num_classes < 1) {
        snprintf(msg, sizeof msg, "internal: SimCLR's projection needs the classifier head (token_head=0), "
                 "num_classes = simclr.hidden_dim >= 1 and proj_outputs = simclr.proj_dim >= 1 (got %d, %d)",
                 c->num_classes, c->request.proj_outputs);
        return msg;
    }
    return NULL;
}

static void projection_declare_params(model *m) {
    projection *p = xcalloc(1, sizeof *p, "SimCLR projection");
    m->extension_state = p;
    p->H = m->cfg.num_classes, p->P = m->cfg.request.proj_outputs;
    model_add_param(m, "proj.2.weight", INIT_LINEAR, 1, p->P, p->H, &p->w, &p->dw);
    model_add_param(m, "proj.2.bias", INIT_ZERO, 0, p->P, 0, &p->b, &p->db);
}

static void projection_declare_acts(model *m) {
    projection *p = m->extension_state;
    size_t B = (size_t)m->max_batch;
    model_add_act(m, "proj.relu", B * p->H, &p->h, &p->dh);
    model_add_act(m, "proj.z", B * p->P, &p->z, &p->dz);
}

static void projection_free(model *m) {
    free(m->extension_state);
    m->extension_state = NULL;
}

static double projection_flops(const model_config *c) { return 2.0 * c->num_classes * c->request.proj_outputs; }

const model_extension simclr_projection_extension = {
    .config_error = projection_config_error,
    .declare_params = projection_declare_params,
    .declare_acts = projection_declare_acts,
    .free = projection_free,
    .forward_flops = projection_flops,
};

const float *simclr_projection_forward(model *m, int B) {
    projection *p = m->extension_state;
    const ops_backend *ops = m->ops;
    ops->relu_forward(p->h, m->activations.logits, (size_t)B * p->H);   // (B, H)
    ops->linear_forward(p->z, p->h, p->w, p->b, B, p->H, p->P);          // (B, P)
    return p->z;
}

float *simclr_projection_dz(model *m) { return ((projection *)m->extension_state)->dz; }

void simclr_projection_backward(model *m, int B) {
    projection *p = m->extension_state;
    const ops_backend *ops = m->ops;
    ops->linear_backward(p->dh, p->dw, p->db, p->dz, p->h, p->w, B, p->H, p->P);
    ops->relu_backward(model_dlogits(m), p->dh, m->activations.logits, (size_t)B * p->H);
}
