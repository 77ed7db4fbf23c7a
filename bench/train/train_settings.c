// bench/train/train_settings.c — config -> train_settings (train_settings.h): the one place in
// bench/train that reads keys by name; each key is read once here, typed as the trainer uses it.
#include "train_settings.h"
#include "../experiment/settings.h"
#include "../../core/attention_route.h"
#include "../../core/common.h"
#include "../../datasets/speech/mfcc.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int is(const config *c, const char *key, const char *value) { return !strcmp(cfg_str(c, key), value); }

static void read_data(const config *c, train_settings *s) {
    s->data_name = cfg_str(c, "data.name");
    s->data_options = dataset_options_from_config(c);
    s->test_on_train = is(c, "data.test_split", "train");
    s->data_limit = (int)cfg_int(c, "data.limit");
    s->test_limit = (int)cfg_int(c, "data.test_limit");
    s->labeled_fraction = cfg_float(c, "data.labeled_fraction");
    s->subset_seed = (uint32_t)cfg_int(c, "data.subset_seed");
    s->resolution = (int)cfg_int(c, "data.resolution");
    s->n_resolutions = cfg_int_list(c, "data.resolutions", s->resolutions, CFG_LIST_MAX);
    s->crop_pad = (int)cfg_int(c, "data.crop_pad");
    s->hflip = cfg_bool(c, "data.hflip");
    s->time_shift_ms = (int)cfg_int(c, "data.time_shift_ms");
    s->background_frequency = (float)cfg_float(c, "data.background_frequency");
    s->background_volume = (float)cfg_float(c, "data.background_volume");
    s->mfcc_frontend = mfcc_frontend_parse(cfg_str(c, "data.mfcc"));
}

static void read_train(const config *c, train_settings *s) {
    s->steps = cfg_int(c, "train.steps");
    s->epochs = cfg_int(c, "train.epochs");
    s->batch = (int)cfg_int(c, "train.batch");
    s->accumulate = (int)cfg_int(c, "train.accumulate");
    s->eval_every = cfg_int(c, "train.eval_every");
    s->checkpoint_every = cfg_int(c, "train.checkpoint_every");
    s->seed = (uint32_t)cfg_int(c, "train.seed");
    s->bf16 = is(c, "train.precision", "bf16");
    s->attention = cfg_str(c, "train.attention");
    s->attention_route = attention_route_setting_named(s->attention);
    s->graph = is(c, "train.graph", "on");
    s->early_stop = cfg_bool(c, "train.early_stop");
    s->init_partial = cfg_bool(c, "train.init_partial");
    s->warmup_steps = cfg_int(c, "train.warmup_steps");
    s->warmup_epochs = cfg_float(c, "train.warmup_epochs");
    s->optim = (optim_config){
        .lr = (float)cfg_float(c, "train.lr"),
        .min_lr = (float)cfg_float(c, "train.min_lr"),
        .weight_decay = (float)cfg_float(c, "train.weight_decay"),
        .beta1 = (float)cfg_float(c, "train.beta1"),
        .beta2 = (float)cfg_float(c, "train.beta2"),
        .eps = (float)cfg_float(c, "train.eps"),
        .clip = (float)cfg_float(c, "train.clip"),
        .schedule = is(c, "train.schedule", "step_halving") ? OPTIM_STEP_HALVING : OPTIM_COSINE,
        .warmup_lr = (float)cfg_float(c, "train.warmup_lr"),
        .halve_every = cfg_int(c, "train.halve_every"),
    };
}

static void read_eval(const config *c, train_settings *s) {
    s->eval_batch = (int)cfg_int(c, "eval.batch");
    s->knn = cfg_bool(c, "eval.knn");
    s->linear_probe = cfg_bool(c, "eval.linear_probe");
    s->knn_k = (int)cfg_int(c, "eval.knn_k");
    s->knn_train_limit = (int)cfg_int(c, "eval.knn_train_limit");
    s->knn_test_limit = (int)cfg_int(c, "eval.knn_test_limit");
    s->knn_temperature = (float)cfg_float(c, "eval.knn_temperature");
    s->probe_all_layers = is(c, "eval.probe_layers", "all");
    s->probe_train_limit = (int)cfg_int(c, "eval.probe_train_limit");
    s->probe_test_limit = (int)cfg_int(c, "eval.probe_test_limit");
    s->probe_val_images = (int)cfg_int(c, "eval.probe_val_images");
    s->view_images = (int)cfg_int(c, "eval.view_images");
    s->n_speech_durations = cfg_int_list(c, "eval.speech_durations", s->speech_durations, CFG_LIST_MAX);
    s->n_speech_rates = cfg_int_list(c, "eval.speech_rates", s->speech_rates, CFG_LIST_MAX);
    s->speech_rate_modes = is(c, "eval.speech_rate_mode", "both") ? 3 : is(c, "eval.speech_rate_mode", "hop") ? 2 : 1;
}

// Writes a refusal of keys a and b into err, after "file:line:col: " of a (else of b) when the
// config came from a file; returns -1.
static int refuse(const config *c, const char *a, const char *b, char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int refuse(const config *c, const char *a, const char *b, char *err, size_t errlen, const char *fmt, ...) {
    char where[4200];
    config_key_where(c, cfg_index(a), where, sizeof where);
    if (!where[0]) config_key_where(c, cfg_index(b), where, sizeof where);
    int n = snprintf(err, errlen, "%s", where);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < errlen) vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

int train_settings_resolve(const config *c, train_settings *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->cfg = c;
    out->objective_name = cfg_str(c, "objective.name");
    read_data(c, out);
    read_train(c, out);
    read_eval(c, out);
    // Rules between keys, checked before any data is loaded.
    if (out->mfcc_frontend < 0)
        return refuse(c, "data.mfcc", "data.mfcc", err, errlen, "data.mfcc: '%s' is not valid (valid: " MFCC_FRONTENDS ")",
                      cfg_str(c, "data.mfcc"));
    if (out->attention_route < 0)
        return refuse(c, "train.attention", "train.attention", err, errlen,
                      "train.attention: '%s' is not valid (valid: " ATTENTION_ROUTE_SETTINGS ")", out->attention);
    if (is(c, "train.activations", "bf16") && !out->bf16)
        return refuse(c, "train.activations", "train.precision", err, errlen,
                      "train.activations=bf16 stores the linear layers' inputs in bfloat16: it needs train.precision=bf16 "
                      "(valid: train.activations=fp32 with train.precision=fp32, fp32 or bf16 with train.precision=bf16)");
    if (is(c, "train.recompute", "gelu") && !is(c, "train.activations", "bf16"))
        return refuse(c, "train.recompute", "train.activations", err, errlen,
                      "train.recompute=gelu recomputes the bf16 GELU output of train.activations=bf16 in the backward: "
                      "it needs train.activations=bf16 (valid: train.recompute=off with train.activations=fp32, off or "
                      "gelu with train.activations=bf16)");
    if (attention_route_setting_needs_bf16(out->attention_route) && !out->bf16)
        return refuse(c, "train.attention", "train.precision", err, errlen,
                      "train.attention=%s is a bf16 route: it needs train.precision=bf16 (valid: train.precision=bf16, "
                      "or a train.attention that is not a bf16 route)", out->attention);
    if (out->batch % out->accumulate != 0)
        return refuse(c, "train.accumulate", "train.batch", err, errlen,
                      "train.accumulate=%d must divide train.batch=%d (each step's batch is cut into that many equal "
                      "micro-batches; valid: a divisor of train.batch)", out->accumulate, out->batch);
    return 0;
}

void train_settings_resolve_or_die(const config *c, train_settings *out) {
    char err[1024];
    if (train_settings_resolve(c, out, err, sizeof err) != 0) die_input("%s", err);
}

optim_config train_settings_optim(const train_settings *s, long total_steps, int steps_per_epoch) {
    optim_config o = s->optim;
    o.warmup_steps = s->warmup_steps > 0 ? s->warmup_steps : lround(s->warmup_epochs * steps_per_epoch);
    o.total_steps = total_steps;
    return o;
}
