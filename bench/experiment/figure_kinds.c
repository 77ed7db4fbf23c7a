// bench/experiment/figure_kinds.c — the figure-kind registry and the check of one `figures:`
// entry (figure_kinds.h).
#include "figure_kinds.h"
#include "../config/config.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define FIGURE_ENTRY_(name, keys, help) {#name, keys, help},
static const figure_kind kinds[FIGURE_KIND_COUNT] = {FIGURE_KINDS(FIGURE_ENTRY_)};
#undef FIGURE_ENTRY_

const figure_kind *figure_kind_at(int id) { return id >= 0 && id < FIGURE_KIND_COUNT ? &kinds[id] : NULL; }

int figure_kind_find(const char *name) {
    for (int k = 0; name && k < FIGURE_KIND_COUNT; k++)
        if (!strcmp(kinds[k].name, name)) return k;
    return -1;
}

const char *figure_kind_names(void) {
    static char names[256];
    if (!names[0])
        for (int k = 0; k < FIGURE_KIND_COUNT; k++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "", kinds[k].name);
    return names;
}

void figure_metric_name(const char *in, char *out, size_t len) {
    if (!strncmp(in, "final.", 6)) snprintf(out, len, "%s", in + 6);
    else if (!strncmp(in, "train.", 6) || !strncmp(in, "eval.", 5)) {
        snprintf(out, len, "%s", in);
        char *dot = strchr(out, '.');
        if (dot) *dot = '/';
    } else snprintf(out, len, "%s", in);
}


// Is `key` one of the comma-separated `keys`?
static int allowed(const char *keys, const char *key) {
    size_t n = strlen(key);
    for (const char *p = keys; *p;) {
        size_t m = strcspn(p, ",");
        if (m == n && !strncmp(p, key, n)) return 1;
        p += m + (p[m] == ',');
    }
    return 0;
}

// The closest allowed key within edit distance 2, or "".
static void closest_key(const char *keys, const char *key, char *out, size_t len) {
    int best = 3;
    out[0] = 0;
    for (const char *p = keys; *p;) {
        size_t m = strcspn(p, ",");
        char cand[64];
        snprintf(cand, sizeof cand, "%.*s", (int)m, p);
        int d = cfg_edit_distance(key, cand);
        if (d < best) best = d, snprintf(out, len, "%s", cand);
        p += m + (p[m] == ',');
    }
}

static const char *scalar(const ynode *map, const char *key, const ynode **at) {
    const ynode *v = ytree_get(map, key, NULL);
    if (at) *at = v;
    return v && v->kind == YT_SCALAR ? v->text : NULL;
}

int figure_spec_check(const char *path, const ynode *item, figure_spec *out, char *err, size_t errlen) {
    figure_spec spec;
    memset(&spec, 0, sizeof spec);
    const ynode *kind_node = ytree_get(item, "kind", NULL);
    if (!item || item->kind != YT_MAP || !kind_node)
        return ytree_fail(path, item, "figures", err, errlen, "each figure needs a kind (valid: %s)", figure_kind_names());
    char got[300];
    ytree_describe(kind_node, got, sizeof got);
    int id = kind_node->kind == YT_SCALAR ? figure_kind_find(kind_node->text) : -1;
    if (id < 0) {
        char near[64] = "";
        for (int k = 0; k < FIGURE_KIND_COUNT && kind_node->kind == YT_SCALAR; k++)
            if (cfg_edit_distance(kind_node->text, kinds[k].name) <= 3) snprintf(near, sizeof near, "%s", kinds[k].name);
        if (near[0]) return ytree_fail(path, kind_node, "figures", err, errlen, "kind %s is not valid (did you mean '%s'?; valid: %s)", got, near, figure_kind_names());
        return ytree_fail(path, kind_node, "figures", err, errlen, "kind %s is not valid (valid: %s)", got, figure_kind_names());
    }
    const figure_kind *k = &kinds[id];
    for (int i = 0; i < item->n; i++) { // every key is one this kind takes
        const char *key = item->key[i]->text;
        if (allowed(k->keys, key)) continue;
        char near[64];
        closest_key(k->keys, key, near, sizeof near);
        char list[128];
        snprintf(list, sizeof list, "%s", k->keys);
        for (char *c = list; (c = strchr(c, ',')); ) *c = ' ';
        if (near[0]) return ytree_fail(path, item->key[i], "figures", err, errlen, "unknown key '%s' for kind %s (did you mean '%s'?; valid: %s)", key, k->name, near, list);
        return ytree_fail(path, item->key[i], "figures", err, errlen, "unknown key '%s' for kind %s (valid: %s)", key, k->name, list);
    }
    for (int i = 0; i < item->n; i++) // every value but with's is one scalar
        if (strcmp(item->key[i]->text, "with") && item->val[i]->kind != YT_SCALAR) {
            ytree_describe(item->val[i], got, sizeof got);
            return ytree_fail(path, item->val[i], "figures", err, errlen, "%s: expected a scalar, got %s", item->key[i]->text, got);
        }
    const ynode *at;
    const char *stage = scalar(item, "stage", NULL), *metric = scalar(item, "metric", &at), *x = scalar(item, "x", NULL);
    if (metric && id == FIGURE_curves && strncmp(metric, "train.", 6) && strncmp(metric, "eval.", 5) &&
        strncmp(metric, "train/", 6) && strncmp(metric, "eval/", 5))
        return ytree_fail(path, at, "figures", err, errlen, "curves: metric %s is not a training curve (valid: train.<column> or eval.<column>, "
                    "e.g. train.loss, eval.top1)", metric);
    if (metric && id == FIGURE_metric_vs_axis && (!strncmp(metric, "train.", 6) || !strncmp(metric, "eval.", 5)))
        return ytree_fail(path, at, "figures", err, errlen, "metric_vs_axis: metric %s is a curve (valid: a /final metric, e.g. final.top1)", metric);
    const ynode *with = ytree_get(item, "with", NULL);
    if (with) {
        if (!stage) return ytree_fail(path, with, "figures", err, errlen, "with needs a stage (the figure's own rows)");
        if (with->kind != YT_SEQ || with->n < 1 || with->n > 8)
            return ytree_fail(path, with, "figures", err, errlen, "with: expected a list of 1 to 8 stage names, like with: [ts, tsm]");
        for (int i = 0; i < with->n; i++) {
            if (with->val[i]->kind != YT_SCALAR) return ytree_fail(path, with->val[i], "figures", err, errlen, "with: expected stage names");
            snprintf(spec.axis + strlen(spec.axis), sizeof spec.axis - strlen(spec.axis), "%s%s", i ? "," : "", with->val[i]->text);
        }
    }
    spec.kind = (figure_kind_id)id;
    snprintf(spec.stage, sizeof spec.stage, "%s", stage ? stage : "");
    if (metric) figure_metric_name(metric, spec.metric, sizeof spec.metric);
    if (x) snprintf(spec.axis, sizeof spec.axis, "%s", x);
    const char *label = scalar(item, "label", NULL), *xlabel = scalar(item, "xlabel", NULL), *ylabel = scalar(item, "ylabel", NULL);
    snprintf(spec.label, sizeof spec.label, "%s", label ? label : "");
    snprintf(spec.xlabel, sizeof spec.xlabel, "%s", xlabel ? xlabel : "");
    snprintf(spec.ylabel, sizeof spec.ylabel, "%s", ylabel ? ylabel : "");
    snprintf(spec.where, sizeof spec.where, "%.300s:%d", path, item->line);
    if (out) *out = spec;
    return 0;
}
