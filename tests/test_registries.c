// tests/test_registries.c — the registries declare what the rest of the code asks:
//   - the key table is gathered from config.c's shared keys and every objective's, encoding's and
//     backbone's own `keys`: each key once, in name order but for objective.eta (after
//     objective.label_smoothing: the order run ids and config_yaml were made with), and every
//     module key is in it;
//   - a module's settings come back through its reader (gvp_settings, mae_settings, cape, rope, sgu);
//   - outside objectives/, tests/ and the data tables, no code compares an objective or encoding
//     name (a grep over bench/, models/ and core/ for strcmp/strstr against a quoted name).
#include "testing.h"
#include "../bench/experiment/config.h"
#include "../bench/experiment/settings.h"
#include "../models/backbone.h"
#include "../models/model.h"
#include "../models/posenc/encoding.h"
#include "../objectives/gvp/gvp.h"
#include "../objectives/mae/mae.h"
#include "../objectives/objective.h"
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
    model_config mc = model_config_from_config(&c, 1, 28, 10, 0);
    test_check("encodings and backbones read their own keys", mc.rope_dims == 1 && mc.cape_scale == 2.0f && mc.sgu_additive == 1 &&
               mc.tiny_attn_dim == 32 && !strcmp(mc.pe_kind, "abs") && !strcmp(mc.arch, "vit") && mc.content_scale == 1.0f,
               "rope_dims %d cape_scale %g additive %d tiny %d", mc.rope_dims, mc.cape_scale, mc.sgu_additive, mc.tiny_attn_dim);
    config_free(&c);
}

// Every line of bench/, models/ and core/ (C and CUDA) that compares a quoted objective or
// encoding name: none may remain (names live in their modules' registry entries and in data
// tables such as the perf benchmarks' configs, which are not comparisons).
static void test_no_name_branches(void) {
    FILE *p = popen("grep -rnE --include='*.c' --include='*.h' --include='*.cu' "
                    "'(strcmp|strncmp|strstr)\\([^;]*\"(supervised|mp3|gvp|mlm|mae|none|abs|sin1d|sin2d|cape|relbias|rope)\"' "
                    "bench models core 2>/dev/null", "r");
    if (!p) {
        test_skip("no name comparisons outside the modules", "cannot run grep");
        return;
    }
    char line[1024], first[1024] = "";
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        if (!n) snprintf(first, sizeof first, "%s", line);
        n++;
    }
    pclose(p);
    first[strcspn(first, "\n")] = 0;
    test_check("no objective or encoding name compared outside objectives/ and tests/", n == 0, "%d lines, e.g. %s", n, first);
}

int main(void) {
    test_key_table();
    test_readers();
    test_no_name_branches();
    return test_exit_code();
}
