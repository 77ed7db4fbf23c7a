// tests/test_registries.c — the registries declare what the rest of the code asks:
//   - the key table is gathered from config.c's shared keys and every objective's, encoding's and
//     backbone's own `keys`: each key once, in name order but for objective.eta (after
//     objective.label_smoothing: the order run ids and config_yaml were made with), and every
//     module key is in it;
//   - a module's settings come back through its reader (gvp_settings, mae_settings, cape, rope, sgu),
//     an encoding's and a backbone's only for the chosen one;
//   - model_config holds only what every model has: its fields, read from models/api/model_config.h,
//     are the listed ones (an encoding's, backbone's or objective's setting belongs in its own
//     struct), and model_request's are what objectives ask;
//   - no code outside a registry's folder compares one of its names: objectives (objectives/),
//     encodings (models/posenc/), backbones (models/backbones/), datasets (datasets/); the
//     names are read from the registries, and the code folders grepped for strcmp/strstr
//     against each quoted name;
//   - the dataset registry's entries, DATASET_KINDS and data.name's choices agree, and an
//     entry's capabilities and shape say what the dataset is;
//   - the help of objective.name, pe.kind, model.arch and data.name is made from the registries:
//     every entry's description, after its name, in registry order (--help and docs/keys.md).
#include "testing.h"
#include "../bench/config/config.h"
#include "../bench/experiment/settings.h"
#include "../models/backbone.h"
#include "../models/model.h"
#include "../models/posenc/encoding.h"
#include "../models/posenc/cape.h"
#include "../models/posenc/rope.h"
#include "../models/backbones/gmlp.h"
#include "../objectives/gvp/gvp.h"
#include "../objectives/mae/mae.h"
#include "../objectives/objective.h"
#include "../datasets/registry.h"
#include "../datasets/speech/mfcc.h"
#include "../datasets/speech/speech_commands.h"
#include "../datasets/text/text.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int in_table(const cfg_key *keys, int *missing, char *which, size_t len) {
    for (const cfg_key *k = keys; k && k->key; k++)
        if (cfg_index(k->key) < 0) (*missing)++, snprintf(which, len, "%s", k->key);
    return *missing == 0;
}

static void test_key_table(void) {
    int dups = 0, unordered = 0;
    for (int i = 0; i < cfg_key_count; i++)
        for (int j = i + 1; j < cfg_key_count; j++) dups += !strcmp(cfg_keys[i].key, cfg_keys[j].key);
    for (int i = 1; i < cfg_key_count; i++) {
        const char *a = cfg_keys[i - 1].key, *b = cfg_keys[i].key;
        int legacy = !strcmp(a, "objective.label_smoothing") && !strcmp(b, "objective.eta");
        legacy |= !strcmp(a, "objective.eta") && !strcmp(b, "objective.name");
        if (strcmp(a, b) >= 0 && !legacy) unordered++;
    }
    int ie = cfg_index("objective.eta"), il = cfg_index("objective.label_smoothing");
    test_check("key table: each key once, in name order (objective.eta after objective.label_smoothing)",
               dups == 0 && unordered == 0 && ie == il + 1, "%d duplicates, %d out of order, eta %d smoothing %d", dups,
               unordered, ie, il);
    int missing = 0;
    char which[128] = "";
    in_table(objective_common_keys, &missing, which, sizeof which);
    for (int i = 0; objective_at(i); i++) in_table(objective_at(i)->keys, &missing, which, sizeof which);
    in_table(posenc_common_keys, &missing, which, sizeof which);
    for (int i = 0; i < posenc_count(); i++) {
        in_table(posenc_at(i)->keys, &missing, which, sizeof which);
        if (posenc_at(i)->sequence_kind) in_table(posenc_at(i)->sequence_kind->keys, &missing, which, sizeof which);
    }
    in_table(backbone_common_keys, &missing, which, sizeof which);
    for (int i = 0; backbone_at(i); i++) in_table(backbone_at(i)->keys, &missing, which, sizeof which);
    test_check("key table: every module's keys gathered", missing == 0, "%d missing (%s)", missing, which);
    test_check("backbones name their PyTorch step twin (bench/perf/torch_cpu_step.py --arch 0 ViT, 1 gMLP, 2 aMLP)",
               backbone_vit.torch_step_arch == 0 && backbone_gmlp.torch_step_arch == 1 && backbone_amlp.torch_step_arch == 2,
               "vit %d gmlp %d amlp %d", backbone_vit.torch_step_arch, backbone_gmlp.torch_step_arch, backbone_amlp.torch_step_arch);
    test_check("key table: module keys owned by their module", objective_gvp.keys && objective_mae.keys && posenc_rope.keys &&
               posenc_cape.keys && backbone_gmlp.keys && !objective_supervised.keys, "a registry entry lacks its keys");
}

static void test_readers(void) {
    config c;
    config_defaults(&c);
    char err[256];
    const char *set[] = {"objective.name=gvp", "objective.groups=7", "objective.segmentation=fixed", "pe.rope_dims=1",
                         "pe.cape_scale=2", "model.sgu_gating=additive", "model.tiny_attn_dim=32"};
    int ok = 1;
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) ok &= config_apply_override(&c, set[i], err, sizeof err) == 0;
    objective_settings s;
    objective_settings_from_config(&c, &s);
    const gvp_settings *g = OBJECTIVE_OWN(&s, const gvp_settings);
    test_check("gvp reads its own settings", ok && !strcmp(s.name, "gvp") && g->groups == 7 && !strcmp(g->segmentation, "fixed") &&
               !strcmp(g->order, "random") && g->streams == 2, "groups %d segmentation %s", g->groups, g->segmentation);
    config_apply_override(&c, "objective.name=mae", err, sizeof err);
    config_apply_override(&c, "mae.decoder_dim=32", err, sizeof err);
    objective_settings_from_config(&c, &s);
    const mae_settings *m = OBJECTIVE_OWN(&s, const mae_settings);
    test_check("mae reads its own settings", m->decoder_dim == 32 && m->decoder_depth == 2, "depth %d dim %d", m->decoder_depth, m->decoder_dim);
    // Only the chosen encoding and backbone read their keys, each into its own block.
    config_apply_override(&c, "pe.kind=rope", err, sizeof err);
    config_apply_override(&c, "model.arch=amlp", err, sizeof err);
    model_config mc = model_config_from_config(&c, 1, 28, 10, 0);
    posenc_rope_settings rope = posenc_rope_settings_of(&mc);
    gmlp_settings sgu = gmlp_settings_of(&mc);
    test_check("the chosen encoding and backbone read their own keys", rope.dims == 1 && rope.base == 0.0f &&
               sgu.additive == 1 && sgu.tiny_attn_dim == 32 && sgu.toeplitz == 0 && !strcmp(mc.pe_kind, "rope") &&
               !strcmp(mc.arch, "amlp") && mc.content_scale == 1.0f,
               "rope_dims %d additive %d tiny %d", rope.dims, sgu.additive, sgu.tiny_attn_dim);
    config_apply_override(&c, "pe.kind=cape", err, sizeof err);
    mc = model_config_from_config(&c, 1, 28, 10, 0);
    posenc_cape_settings cape = posenc_cape_settings_of(&mc);
    rope = posenc_rope_settings_of(&mc);
    test_check("cape reads its own keys; another encoding's settings are its keys' defaults", cape.scale == 2.0f &&
               cape.global_shift == 0.5f && cape.local_shift == -1.0f && rope.dims == 2 && rope.base == 0.0f,
               "cape scale %g global %g local %g; rope dims %d", cape.scale, cape.global_shift, cape.local_shift, rope.dims);
    mc = model_config_from_config(&c, 1, 40, 10, 13); // a sequence (speech frames): cape's 1D form reads its keys too
    cape = posenc_cape_settings_of(&mc);
    test_check("cape on a sequence reads its own keys (time shift, local shift, scale)",
               cape.scale == 2.0f && cape.time_shift == 60.0f && cape.local_shift == -1.0f,
               "scale %g time shift %g local %g", cape.scale, cape.time_shift, cape.local_shift);
    config_apply_override(&c, "pe.kind=abs", err, sizeof err);
    config_apply_override(&c, "model.arch=vit", err, sizeof err);
    mc = model_config_from_config(&c, 1, 28, 10, 0);
    static const unsigned char zeros[MODEL_OWN_BYTES];
    test_check("abs has no settings: its block stays zero", !memcmp(mc.pe_own, zeros, sizeof zeros), "pe_own not zero");
    const char *why = model_config_error(&mc);
    test_check("vit refuses the SGU ablation keys it reads (model.sgu_gating=additive)",
               why && strstr(why, "model.sgu_gating"), "%s", why ? why : "(accepted)");
    config_free(&c);
}

// Appends "|name" for a name of a registry to the alternation `alt`.
static void add_name(char *alt, size_t len, const char *name) {
    size_t used = strlen(alt);
    snprintf(alt + used, len - used, "%s%s", used ? "|" : "", name);
}

// The lines of the code folders outside `owner` that compare a quoted name of `alt` (grep -E
// alternation): strcmp, strncmp, strstr or strcasecmp against it. *first gets the first line.
static int name_compares_outside(const char *owner, const char *alt, char *first, size_t firstlen) {
    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "grep -rnE --include='*.c' --include='*.h' --include='*.cu' "
             "'(strcmp|strncmp|strstr|strcasecmp)\\([^;]*\"(%s)\"' bench models core objectives datasets 2>/dev/null "
             "| grep -v '^%s/'", alt, owner);
    FILE *p = popen(cmd, "r");
    if (!p) return -1;
    char line[1024];
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        if (!n) snprintf(first, firstlen, "%s", line);
        n++;
    }
    pclose(p);
    first[strcspn(first, "\n")] = 0;
    return n;
}

// No code outside a registry's own folder compares one of its names (they live in registry
// entries and in data tables such as the perf benchmarks' configs, which are not comparisons).
// The names come from the registries themselves, so a new objective, encoding, backbone or
// dataset is covered the day it is added.
static void test_no_name_branches(void) {
    char objectives[512] = "", encodings[512] = "", backbones[512] = "", datasets[512] = "";
    for (int i = 0; objective_at(i); i++) add_name(objectives, sizeof objectives, objective_at(i)->name);
    for (int i = 0; i < posenc_count(); i++) {
        add_name(encodings, sizeof encodings, posenc_at(i)->name);
        if (posenc_at(i)->sequence_kind) add_name(encodings, sizeof encodings, posenc_at(i)->sequence_kind->name);
    }
    for (int i = 0; backbone_at(i); i++) add_name(backbones, sizeof backbones, backbone_at(i)->name);
    for (int i = 0; dataset_at(i); i++) add_name(datasets, sizeof datasets, dataset_at(i)->name);
    test_check("the name lists come from the registries", strstr(objectives, "dino") && strstr(objectives, "simclr") &&
               strstr(encodings, "rope") && strstr(backbones, "amlp") && strstr(datasets, "speech-commands"),
               "objectives %s; encodings %s; backbones %s; datasets %s", objectives, encodings, backbones, datasets);
    const struct { const char *what, *owner, *names; } regs[] = {
        {"objective", "objectives", objectives},
        {"encoding", "models/posenc", encodings},
        {"backbone", "models/backbones", backbones},
        {"dataset", "datasets", datasets},
    };
    for (size_t r = 0; r < sizeof regs / sizeof regs[0]; r++) {
        char first[1024] = "", check[128];
        int n = name_compares_outside(regs[r].owner, regs[r].names, first, sizeof first);
        snprintf(check, sizeof check, "no %s name compared outside %s/", regs[r].what, regs[r].owner);
        if (n < 0) test_skip(check, "cannot run grep");
        else test_check(check, n == 0, "%d lines, e.g. %s", n, first);
    }
}

// The registry's list of data.name values, its entries and the key's choices agree.
static void test_dataset_registry(void) {
    char names[512] = "";
    for (int i = 0; dataset_at(i); i++) {
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", i ? "|" : "", dataset_at(i)->name);
    }
    const cfg_key *k = &cfg_keys[cfg_index("data.name")];
    test_check("dataset registry: its entries are DATASET_KINDS and data.name's choices, in order",
               !strcmp(names, DATASET_CHOICES) && k->choices && !strcmp(k->choices, DATASET_CHOICES), "entries %s, choices %s",
               names, k->choices ? k->choices : "(none)");
    const dataset_kind *text = dataset_find("text"), *speech = dataset_find("speech-commands"), *cifar = dataset_find("cifar100");
    dataset_options opt = {.seq_len = 64, .path = "/nonexistent/text.txt"};
    dataset_shape ts = text ? text->shape(&opt) : (dataset_shape){0};
    opt.mfcc_frontend = MFCC_TC_RESNET;
    dataset_shape ss = speech ? speech->shape(&opt) : (dataset_shape){0};
    dataset_shape cs = cifar ? cifar->shape(&opt) : (dataset_shape){0};
    test_check("dataset registry: capabilities and shapes", text && speech && cifar && !dataset_find("cifar-10") &&
               text->tokens && !text->labels && text->vocab == TEXT_VOCAB && ts.side == 64 && ts.train_n == -1 &&
               speech->audio && speech->validation && !cifar->validation && speech->make_batch && speech->release &&
               text->make_batch && !text->release && !cifar->make_batch && !cifar->release && ss.side == 98 && ss.features == MFCC_COEFFS &&
               ss.classes == SPEECH_CLASSES && cs.side == 32 && cs.channels == 3 && cs.classes == 100 && cs.train_n == 50000,
               "text side %d n %ld; speech side %d features %d; cifar100 side %d classes %d", ts.side, ts.train_n, ss.side,
               ss.features, cs.side, cs.classes);
}

// The rules every objective shares are checked once, from each kind's capability flags: every
// kind without reference tokens refuses objective.ref_fraction, every one-size kind refuses
// eval.resolutions, every images-only kind refuses speech; each message names the key.
static void test_objective_shared_rules(void) {
    int wrong = 0, kinds = 0;
    char first[400] = "";
    for (int i = 0; objective_at(i); i++, kinds++) {
        const objective_kind *k = objective_at(i);
        objective_settings base = {.name = k->name, .pe_kind = "none", .text_data = k->text_input, .data_name = "fashion-mnist"};
        objective_settings s = base;
        s.ref_fraction = 0.1;
        const char *why = objective_config_error(&s);
        int bad = k->reference_tokens ? why && strstr(why, "gives MP3 reference tokens") != NULL
                                      : !why || !strstr(why, "objective.ref_fraction=0.1");
        s = base, s.n_eval_sizes = 1, s.eval_sizes[0] = 16;
        why = objective_config_error(&s);
        bad |= k->multi_size ? why && strstr(why, "at one size") != NULL : !why || !strstr(why, "eval.resolutions");
        s = base, s.data_audio = 1, s.data_name = "speech-commands";
        why = objective_config_error(&s);
        bad |= k->images_only && !k->text_input ? !why || !strstr(why, "data.name=speech-commands") : why && strstr(why, "is not images") != NULL;
        if (bad && !wrong) snprintf(first, sizeof first, "objective.name=%s: %s", k->name, why ? why : "(accepted)");
        wrong += bad;
    }
    test_check("objectives: the shared rules (reference tokens, one size, images only) follow each kind's flags", kinds >= 7 && wrong == 0,
               "%d kinds, %d wrong; first: %s", kinds, wrong, first);
}

// The field names of `typedef struct name { ... } name;` in a C header (comments dropped; one
// declaration per ';', its names after the type: "int patch, dim;" gives patch and dim) as
// " a b c ". -1 when the file or the struct is not there.
static int struct_fields(const char *path, const char *name, char *out, size_t len) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[1024], open[128], close[128], body[8192] = "";
    snprintf(open, sizeof open, "typedef struct %s {", name);
    snprintf(close, sizeof close, "} %s;", name);
    int in = 0;
    while (fgets(line, sizeof line, f)) {
        if (!in) { in = strstr(line, open) != NULL; continue; }
        if (strstr(line, close)) break;
        line[strcspn(line, "\n")] = 0;
        char *comment = strstr(line, "//");
        if (comment) *comment = 0;
        snprintf(body + strlen(body), sizeof body - strlen(body), "%s ", line);
    }
    fclose(f);
    snprintf(out, len, " ");
    for (char *decl = strtok(body, ";"); decl; decl = strtok(NULL, ";")) {
        char *bracket; // an array's size is not a name
        while ((bracket = strchr(decl, '['))) {
            size_t n = strcspn(bracket, "]");
            memset(bracket, ' ', bracket[n] ? n + 1 : n);
        }
        for (char *part = decl; part;) {
            char *comma = strchr(part, ',');
            if (comma) *comma = 0;
            char *end = part + strlen(part); // the name: the last identifier of the part
            while (end > part && !(isalnum((unsigned char)end[-1]) || end[-1] == '_')) end--;
            char *start = end;
            while (start > part && (isalnum((unsigned char)start[-1]) || start[-1] == '_')) start--;
            if (end > start) snprintf(out + strlen(out), len - strlen(out), "%.*s ", (int)(end - start), start);
            part = comma ? comma + 1 : NULL;
        }
    }
    return in ? 0 : -1;
}

// model_config keeps what every model has; a module's setting added back fails here (it belongs
// in the module's own struct: models/posenc/<kind>.h, models/backbones/<arch>.h, the objective's
// own settings, or model_request for what an objective asks of the model).
static void test_lean_model_config(void) {
    static const char *const config_fields =
        " arch pe_kind channels image_size max_image_size features vocab patch dim depth heads mlp_ratio cls"
        " frame_seconds content_scale num_classes drop_path dropout embed_init trunc_normal linear_init bf16_activations"
        " recompute_gelu request pe_own"
        " arch_own ";
    static const char *const request_fields =
        " token_head head_name token_outputs query_stream context_tokens ref_tokens keep_tokens extension decoder_depth"
        " decoder_dim proj_outputs head_bottleneck head_prototypes ";
    char got[2048];
    int rc = struct_fields("models/api/model_config.h", "model_config", got, sizeof got);
    test_check("model_config holds only what every model has (input, shape, names, regularisation, inits; the request "
               "and the two own blocks)", rc == 0 && !strcmp(got, config_fields), "fields:%s; expected:%s", got, config_fields);
    rc = struct_fields("models/api/model_config.h", "model_request", got, sizeof got);
    test_check("model_request holds what objectives ask of the model", rc == 0 && !strcmp(got, request_fields),
               "fields:%s; expected:%s", got, request_fields);
    test_check("the own blocks fit every encoding's and backbone's settings (each module also asserts its own)",
               sizeof(posenc_cape_settings) <= MODEL_OWN_BYTES && sizeof(posenc_rope_settings) <= MODEL_OWN_BYTES &&
               sizeof(gmlp_settings) <= MODEL_OWN_BYTES, "cape %zu rope %zu gmlp %zu > %d", sizeof(posenc_cape_settings),
               sizeof(posenc_rope_settings), sizeof(gmlp_settings), MODEL_OWN_BYTES);
}

// The key naming a registry lists every entry as "name (description)" in registry order, each
// description non-empty: the help is made from the registry, never a list written by hand.
static void check_registry_help(const char *key, const char *const *names, const char *const *descriptions, int n) {
    const cfg_key *k = &cfg_keys[cfg_index(key)];
    const char *at = k->help, *bad = NULL;
    for (int i = 0; i < n && !bad; i++) {
        char entry[600];
        snprintf(entry, sizeof entry, " %s (%s)", names[i], descriptions[i] ? descriptions[i] : "");
        const char *found = descriptions[i] && descriptions[i][0] ? strstr(at, entry) : NULL;
        if (!found) bad = names[i];
        else at = found + strlen(entry);
    }
    char name[80];
    snprintf(name, sizeof name, "registry help: %s", key);
    test_check(name, n > 0 && !bad, "%d entries, each as 'name (description)' in registry order%s%s%s%s", n,
               bad ? "; not so: " : "", bad ? bad : "", bad ? "; help: " : "", bad ? k->help : "");
}

static void test_registry_help(void) {
    const char *names[32], *descriptions[32];
    int n = 0;
    for (; objective_at(n) && n < 32; n++) names[n] = objective_at(n)->name, descriptions[n] = objective_at(n)->description;
    check_registry_help("objective.name", names, descriptions, n);
    for (n = 0; n < posenc_count() && n < 32; n++) names[n] = posenc_at(n)->name, descriptions[n] = posenc_at(n)->description;
    check_registry_help("pe.kind", names, descriptions, n);
    for (n = 0; backbone_at(n) && n < 32; n++) names[n] = backbone_at(n)->name, descriptions[n] = backbone_at(n)->description;
    check_registry_help("model.arch", names, descriptions, n);
    for (n = 0; dataset_at(n) && n < 32; n++) names[n] = dataset_at(n)->name, descriptions[n] = dataset_at(n)->description;
    check_registry_help("data.name", names, descriptions, n);
}

int main(void) {
    test_objective_shared_rules();
    test_key_table();
    test_readers();
    test_lean_model_config();
    test_no_name_branches();
    test_dataset_registry();
    test_registry_help();
    return test_exit_code();
}
