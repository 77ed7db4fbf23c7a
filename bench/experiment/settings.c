// bench/experiment/settings.c — config -> objective_settings (see settings.h).
#include "settings.h"
#include "../../datasets/text/text.h"
#include "../../datasets/speech/mfcc.h"
#include <math.h>
#include <string.h>

model_config model_config_from_config(const config *c, int channels, int image_size, int num_classes, int features) {
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
        .arch = cfg_str(c, "model.arch"),
        .pe_kind = cfg_str(c, "pe.kind"),
        .cape_global_shift = (float)cfg_float(c, "pe.cape_global_shift"),
        .cape_local_shift = (float)cfg_float(c, "pe.cape_local_shift"),
        .cape_scale = (float)cfg_float(c, "pe.cape_scale"),
        .cape_time_shift = (float)cfg_float(c, "pe.cape_time_shift"),
        .frame_seconds = features > 0 ? (float)MFCC_HOP / MFCC_SAMPLE_RATE : 0.0f,
        .rope_dims = (int)cfg_int(c, "pe.rope_dims"),
        .rope_base = (float)cfg_float(c, "pe.rope_base"),
        .content_scale = strcmp(cfg_str(c, "pe.content_scale"), "sqrt_d") == 0 ? sqrtf((float)cfg_int(c, "model.dim")) : 1.0f,
        .num_classes = num_classes,
        // token ids (data.name=text): the byte embedding; Toeplitz W over the token index (1D, the
        // paper's MLM form) for text, over the 2D patch offset for images
        .vocab = !strcmp(cfg_str(c, "data.name"), "text") ? TEXT_VOCAB : 0,
        .sgu_toeplitz = !cfg_bool(c, "model.sgu_toeplitz") ? 0 : !strcmp(cfg_str(c, "data.name"), "text") ? 1 : 2,
        .tiny_attn_dim = (int)cfg_int(c, "model.tiny_attn_dim"),
        .sgu_additive = !strcmp(cfg_str(c, "model.sgu_gating"), "additive"),
        .sgu_no_split = !cfg_bool(c, "model.sgu_split"),
        .sgu_no_norm = !cfg_bool(c, "model.sgu_norm"),
        .drop_path = (float)cfg_float(c, "model.drop_path"),
        .dropout = (float)cfg_float(c, "model.dropout"),
        .embed_init = model_embed_init_parse(cfg_str(c, "model.embed_init")),
    };
    return v;
}

void objective_settings_from_config(const config *c, objective_settings *s) {
    memset(s, 0, sizeof *s);
    s->name = cfg_str(c, "objective.name");
    s->pe_kind = cfg_str(c, "pe.kind");
    s->eta = cfg_float(c, "objective.eta");
    s->ref_fraction = cfg_float(c, "objective.ref_fraction");
    s->label_smoothing = cfg_float(c, "objective.label_smoothing");
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
    s->groups = (int)cfg_int(c, "objective.groups");
    s->segmentation = cfg_str(c, "objective.segmentation");
    s->order = cfg_str(c, "objective.order");
    s->streams = (int)cfg_int(c, "objective.streams");
    s->text_data = !strcmp(cfg_str(c, "data.name"), "text");
    s->decoder_depth = (int)cfg_int(c, "mae.decoder_depth");
    s->decoder_dim = (int)cfg_int(c, "mae.decoder_dim");
    s->heads = (int)cfg_int(c, "model.heads");
    s->linear_probe = cfg_bool(c, "eval.linear_probe");
}
