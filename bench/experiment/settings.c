// bench/experiment/settings.c — config -> objective_settings (see settings.h).
#include "settings.h"
#include "../../datasets/registry.h"
#include "../../datasets/speech/mfcc.h"
#include "../../models/backbone.h"
#include "../../models/posenc/encoding.h"
#include <math.h>
#include <string.h>

model_config model_config_from_config(const config *c, int channels, int image_size, int num_classes, int features) {
    const dataset_kind *data = dataset_find(cfg_str(c, "data.name"));
    model_config v = {
        .features = features,
        .channels = channels,
        .image_size = image_size,
        .patch = (int)cfg_int(c, "model.patch"),
        .dim = (int)cfg_int(c, "model.dim"),
        .depth = (int)cfg_int(c, "model.depth"),
        .heads = (int)cfg_int(c, "model.heads"),
        .mlp_ratio = (int)cfg_int(c, "model.mlp_ratio"),
        .cls = cfg_bool(c, "model.cls"),
        .frame_seconds = features > 0 ? (float)MFCC_HOP / MFCC_SAMPLE_RATE : 0.0f,
        .num_classes = num_classes,
        .vocab = data ? data->vocab : 0, // > 0: token ids, their embedding's rows (text)
        .drop_path = (float)cfg_float(c, "model.drop_path"),
        .dropout = (float)cfg_float(c, "model.dropout"),
        .embed_init = model_embed_init_parse(cfg_str(c, "model.embed_init")),
        .trunc_normal = model_trunc_normal_parse(cfg_str(c, "model.trunc_normal")),
        .linear_init = model_linear_init_parse(cfg_str(c, "model.linear_init")),
        .bf16_activations = !strcmp(cfg_str(c, "train.activations"), "bf16"),
        .recompute_gelu = !strcmp(cfg_str(c, "train.recompute"), "gelu"),
    };
    key_reader r = config_reader(c);
    posenc_read_keys(&r, &v);   // pe.kind, pe.content_scale and the chosen encoding's own (pe_own)
    backbone_read_keys(&r, &v); // model.arch and the chosen backbone's own (arch_own)
    return v;
}

dataset_options dataset_options_from_config(const config *c) {
    int frontend = mfcc_frontend_parse(cfg_str(c, "data.mfcc")); // a CFG_CHOICE: always one of them
    return (dataset_options){
        .path = cfg_str(c, "data.path"),
        .seq_len = (int)cfg_int(c, "data.seq_len"),
        .mfcc_frontend = frontend < 0 ? MFCC_POSBENCH : frontend,
        .refuse_long_clips = !strcmp(cfg_str(c, "data.long_clips"), "refuse"),
        .max_bytes = cfg_int(c, "data.max_bytes"),
    };
}

void objective_settings_from_config(const config *c, objective_settings *s) {
    memset(s, 0, sizeof *s);
    s->pe_kind = cfg_str(c, "pe.kind");
    int sizes[CFG_LIST_MAX];
    s->train_sizes = cfg_int_list(c, "data.resolutions", sizes, CFG_LIST_MAX);
    s->n_eval_sizes = cfg_int_list(c, "eval.resolutions", s->eval_sizes, OBJECTIVE_MAX_SIZES);
    s->tta_delta = (int)cfg_int(c, "eval.tta_delta");
    s->train_size = (int)cfg_int(c, "data.resolution");
    s->patch = (int)cfg_int(c, "model.patch");
    s->position_limit = (int)cfg_int(c, "eval.position_limit");
    s->samples = (int)cfg_int(c, "eval.samples");
    s->seed = (uint32_t)cfg_int(c, "train.seed");
    s->cls = cfg_bool(c, "model.cls");
    s->data_name = cfg_str(c, "data.name");
    const dataset_kind *caps = dataset_find(s->data_name);
    s->text_data = caps && caps->tokens;
    s->data_unlabeled = caps && !caps->labels;
    s->data_audio = caps && caps->audio;
    s->batch = (int)cfg_int(c, "train.batch");
    s->heads = (int)cfg_int(c, "model.heads");
    s->linear_probe = cfg_bool(c, "eval.linear_probe");
    s->knn = cfg_bool(c, "eval.knn");
    key_reader r = config_reader(c);
    objective_read_settings(&r, s); // objective.name, eta, label_smoothing, ref_fraction and the objective's own
}
