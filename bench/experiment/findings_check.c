// bench/experiment/findings_check.c — a finding's metric, match values and x checked against the
// runs of its experiment (rules: findings_check.h).
#include "findings_check.h"
#include "../../objectives/objective.h"
#include "../results/run_metrics.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// /final attributes the trainer writes that no metric table lists (budgets, chosen steps and
// layers, the step count).
static const char *const other_final[] = {"steps", "diverged_step", "best_step", "knn_best_layer", "probe_best_layer",
                                          "updates", "images_seen", "updates_total", "images_seen_total", "budget_updates",
                                          "budget_images_seen", NULL};

// Appends name to the comma-separated list unless it is there (what does not fit is left out).
static void add_name(char *list, size_t len, const char *name) {
    size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && !strncmp(p, name, n)) return;
        p += m;
        while (*p == ',' || *p == ' ') p++;
    }
    size_t used = strlen(list);
    if (used + n + 3 < len) snprintf(list + used, len - used, "%s%s", used ? ", " : "", name);
}

static void add_table(char *list, size_t len, const metric_info *t) {
    for (int i = 0; t && t[i].name; i++) add_name(list, len, t[i].name);
}

int findings_metric_known(const experiment *e, const char *stage, const char *metric, char *valid, size_t validlen) {
    valid[0] = '\0';
    if (metric_info_match(run_metrics_common, metric)) return 1;
    char base[128];
    snprintf(base, sizeof base, "%.*s", (int)strcspn(metric, "@"), metric);
    for (int i = 0; other_final[i]; i++)
        if (!strcmp(other_final[i], base)) return 1;
    int any = 0;
    for (int r = 0; r < e->nruns; r++) {
        if (stage && strcmp(e->runs[r].stage, stage)) continue;
        const objective_kind *k = objective_find(cfg_str(&e->runs[r].cfg, "objective.name"));
        if (!k) return 1; // cannot be told
        any = 1;
        if (metric_info_match(k->metrics, metric)) return 1;
    }
    if (!any) return 1;
    for (int r = 0; r < e->nruns; r++)
        if (!stage || !strcmp(e->runs[r].stage, stage)) add_table(valid, validlen, objective_find(cfg_str(&e->runs[r].cfg, "objective.name"))->metrics);
    add_table(valid, validlen, run_metrics_common);
    for (int i = 0; other_final[i]; i++) add_name(valid, validlen, other_final[i]);
    return 0;
}

int findings_key_ordered(int idx) {
    const cfg_key *k = &config_key_table()[idx];
    return k->type == CFG_INT || k->type == CFG_FLOAT || k->type == CFG_BOOL;
}

// The run whose config holds key `key` for run r of `stage`: r itself for a plain key, else
// the run of the named stage up its init or budget chain; -1 when there is none.
static int holder(const experiment *e, int r, const char *stage, const char *key) {
    const char *dot = strchr(key, '.');
    if (!dot || cfg_index(key) >= 0) return r;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%.*s", (int)(dot - key), key);
    if (!strcmp(prefix, stage)) return r;
    for (int q = r, hops = 0; q >= 0 && hops < 2 * EXP_MAX_STAGES; hops++) {
        if (!strcmp(e->runs[q].stage, prefix)) return q;
        q = e->runs[q].parent >= 0 ? e->runs[q].parent : e->runs[q].budget;
    }
    return -1;
}

// 1 found, 0 not found (values seen appended to seen), -1 nothing could be told.
static int search(const experiment *e, const char *stage, const char *key, int idx, const char *want, char *seen, size_t seenlen) {
    int told = 0;
    for (int r = 0; r < e->nruns; r++) {
        if (strcmp(e->runs[r].stage, stage)) continue;
        int h = holder(e, r, stage, key);
        if (h < 0) continue;
        told = 1;
        char have[512];
        config_value_text(&e->runs[h].cfg, idx, have, sizeof have);
        if (!strcmp(have, want)) return 1;
        add_name(seen, seenlen, have[0] ? have : "\"\"");
    }
    return told ? 0 : -1;
}

int findings_value_exists(const experiment *e, const char *stage, const char *key, int idx, const char *value, char *seen,
                          size_t seenlen) {
    seen[0] = '\0';
    config scratch; // the value as the key's canonical text
    config_defaults(&scratch);
    char err[600], want[512];
    int ok = config_set(&scratch, idx, value, err, sizeof err) == 0;
    if (ok) config_value_text(&scratch, idx, want, sizeof want);
    config_free(&scratch);
    if (!ok) return 1; // a type error is reported by the caller
    int found = search(e, stage, key, idx, want, seen, seenlen);
    if (found != 0) return 1;
    // another scale of the file (or none) may have it
    const ynode *scales = ytree_get(e->tree, "scales", NULL);
    int n = scales && scales->kind == YT_MAP ? scales->n : 0;
    static experiment other; // large
    char why[2048];
    for (int i = -1; i < n && found != 1; i++) {
        const char *name = i < 0 ? "" : scales->key[i]->text;
        if (!strcmp(name, e->scale)) continue;
        if (experiment_load(&other, e->path, name, why, sizeof why) == 0) found = search(&other, stage, key, idx, want, seen, seenlen);
        experiment_free(&other);
    }
    return found != 0;
}
