// objectives/objective.c — the table of objectives (OBJECTIVE_KINDS) and the calls shared by
// every kind.
#include "objective.h"
#include <math.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

// The keys every objective reads (objective.h).
const cfg_key objective_common_keys[] = {
    {"objective.label_smoothing", CFG_FLOAT, "0.1", 0, 0.99, NULL, 1, "label smoothing of the cross entropy"},
    {"objective.eta", CFG_FLOAT, "0.5", 0, 0.99, NULL, 1, "masking ratio: MP3: round((1-eta)*N) context patches give keys and values; MAE: round((1-eta)*N) patches are kept, the encoder sees only them, the others are predicted (MAE's default: 0.75)"},
    {"objective.name", CFG_CHOICE, "supervised", 0, 0, OBJECTIVE_CHOICES, 1, "training objective (labels are unused in pretraining)"},
    {"objective.ref_fraction", CFG_FLOAT, "0.0", 0, 1, NULL, 1, "MP3 reference points (the paper's speech variant): this fraction of each image's patches, drawn anew every forward, keeps the position encoding (pe.kind abs, sin1d or sin2d); 0 = none, pe.kind none"},
    {NULL},
};

#define OBJECTIVE_ENTRY(name) &objective_##name,
static const objective_kind *const kinds[] = {OBJECTIVE_KINDS(OBJECTIVE_ENTRY)};
#undef OBJECTIVE_ENTRY
enum { KIND_COUNT = sizeof kinds / sizeof kinds[0] };

const objective_kind *objective_find(const char *name) {
    for (int i = 0; i < KIND_COUNT; i++)
        if (name && !strcmp(kinds[i]->name, name)) return kinds[i];
    return NULL;
}

const char *objective_names(void) { return OBJECTIVE_CHOICES; }

const objective_kind *objective_at(int i) { return i >= 0 && i < KIND_COUNT ? kinds[i] : NULL; }

// The names of the kinds whose int flag at byte offset `flag` is set, joined by " or ".
static void names_where_flag(size_t flag, char *out, size_t len) {
    out[0] = '\0';
    for (int i = 0; i < KIND_COUNT; i++)
        if (*(const int *)(const void *)((const char *)kinds[i] + flag))
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " or " : "", kinds[i]->name);
}

const char *objective_config_error(const objective_settings *s) {
    static char msg[512];
    const objective_kind *k = objective_find(s->name);
    if (!k) {
        snprintf(msg, sizeof msg, "objective.name=%s is not an objective (valid: %s)", s->name ? s->name : "", objective_names());
        return msg;
    }
    if (s->text_data != k->text_input) { // byte tokens have no labels and no pixels
        char valid[160] = "";
        for (int i = 0; i < KIND_COUNT; i++)
            if (kinds[i]->text_input == s->text_data)
                snprintf(valid + strlen(valid), sizeof valid - strlen(valid), "%s%s", valid[0] ? ", " : "", kinds[i]->name);
        snprintf(msg, sizeof msg, s->text_data ? "data.name=text holds byte sequences for masked language modelling: "
                 "objective.name=%s cannot use it (valid with text: %s)" : "objective.name=%s trains on byte tokens: it "
                 "needs data.name=text (valid with image or speech data: %s)", s->name, valid);
        return msg;
    }
    if (s->data_unlabeled) { // a probe or objective scored against class labels would score labels that are all 0
        const char *key = k->needs_labels ? "objective.name" : s->knn ? "eval.knn" : s->linear_probe ? "eval.linear_probe" : NULL;
        if (key) {
            snprintf(msg, sizeof msg, "%s=%s: %s scores class labels, and data.name=%s has none (every label would be 0, "
                     "a 100%% top-1); valid with %s: %s", key, k->needs_labels ? s->name : "true",
                     k->needs_labels ? "the objective" : s->knn ? "the kNN probe (knn_top1)" : "the linear probe (probe_top1)",
                     s->data_name ? s->data_name : "", s->data_name ? s->data_name : "this data",
                     k->needs_labels ? "an objective without labels" : "false");
            return msg;
        }
    }
    if (k->images_only && (s->text_data || s->data_audio)) {
        snprintf(msg, sizeof msg, "objective.name=%s draws its own views of images (datasets/views.h); data.name=%s is not "
                 "images (valid: an image dataset, e.g. fashion-mnist, mnist, cifar10)", s->name, s->data_name ? s->data_name : "?");
        return msg;
    }
    if (s->ref_fraction > 0 && !k->reference_tokens) {
        char valid[160] = "";
        names_where_flag(offsetof(objective_kind, reference_tokens), valid, sizeof valid);
        snprintf(msg, sizeof msg, "objective.ref_fraction=%g gives MP3 reference tokens; objective.name=%s has none "
                 "(valid: 0, or objective.name=%s)", s->ref_fraction, s->name, valid);
        return msg;
    }
    if ((s->train_sizes > 0 || s->n_eval_sizes > 0 || s->tta_delta > 0) && !k->multi_size) {
        char valid[160] = "";
        names_where_flag(offsetof(objective_kind, multi_size), valid, sizeof valid);
        snprintf(msg, sizeof msg, "objective.name=%s trains and evaluates at one size%s%s: data.resolutions, "
                 "eval.resolutions and eval.tta_delta are for objective.name=%s (valid with %s: [], [] and 0%s)", s->name,
                 k->one_size_why && k->one_size_why[0] ? " " : "", k->one_size_why ? k->one_size_why : "", valid, s->name,
                 k->text_input ? "; data.seq_len sets the length" : "; data.resolution sets the one size");
        return msg;
    }
    return k->config_error ? k->config_error(s) : NULL;
}

void objective_create(objective *o, const objective_kind *kind, const objective_settings *s, model *model, int max_batch) {
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->s = *s;
    o->model = model;
    o->ops = model->ops;
    o->max_batch = max_batch;
    if (kind->create) kind->create(o);
}

void objective_free(objective *o) {
    if (o->kind && o->kind->free) o->kind->free(o);
    memset(o, 0, sizeof *o);
}

void objective_read_settings(const key_reader *r, objective_settings *s) {
    s->name = key_str(r, "objective.name");
    s->eta = key_float(r, "objective.eta");
    s->ref_fraction = key_float(r, "objective.ref_fraction");
    s->label_smoothing = key_float(r, "objective.label_smoothing");
    memset(s->own, 0, sizeof s->own);
    const objective_kind *k = objective_find(s->name);
    if (k && k->read_settings) k->read_settings(r, s->own);
}

double objective_views_step(objective *o, const objective_batch *batch, float *adam_m, float *adam_v,
                            const optim_config *oc, long step, double *grad_norm, float *lr) {
    model *m = o->model;
    m->ops->zero(m->grad, m->params.total);
    double loss = o->kind->train_views(o, batch);
    if (!isfinite(loss)) return loss;
    optim_config c = *oc; // the objective's weight-decay schedule (DINO), else train.weight_decay
    if (o->kind->weight_decay_at) c.weight_decay = (float)o->kind->weight_decay_at(o, step);
    double norm = optim_step(m->ops, &m->params, m->param, m->grad, adam_m, adam_v, &c, step, lr);
    if (grad_norm) *grad_norm = norm;
    if (o->kind->after_step) o->kind->after_step(o, step); // e.g. DINO's EMA teacher
    return loss;
}
