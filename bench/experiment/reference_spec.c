// bench/experiment/reference_spec.c — an experiment's `reference:` list checked and read into
// reference entries (reference_spec.h).
#include "reference_spec.h"
#include "figure_kinds.h"
#include "../../core/common.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const experiment *e, const ynode *n, char *err, size_t errlen, const char *msg) {
    snprintf(err, errlen, "%s:%d:%d: %s", e->path, n ? n->line : 1, n ? n->col : 1, msg);
    return -1;
}

static const char *scalar(const ynode *map, const char *key) {
    const ynode *v = ytree_get(map, key, NULL);
    return v && v->kind == YT_SCALAR ? v->text : NULL;
}

// Checks that every key of `map` is one of the comma-separated `allowed`.
static int only_keys(const experiment *e, const ynode *map, const char *allowed, char *err, size_t errlen) {
    for (int k = 0; k < map->n; k++) {
        char want[64];
        snprintf(want, sizeof want, ",%s,", map->key[k]->text);
        char list[256];
        snprintf(list, sizeof list, ",%s,", allowed);
        if (!strstr(list, want)) {
            char msg[400];
            snprintf(msg, sizeof msg, "unknown key '%s' (valid: %s)", map->key[k]->text, allowed);
            return fail(e, map->key[k], err, errlen, msg);
        }
    }
    return 0;
}

// Every key and scalar of a reference entry lands in one cell of the report's Markdown table (and
// in a line of an old results folder's reference.tsv): a tab or line break would split it.
static int tsv_safe(const experiment *e, const ynode *n, char *err, size_t errlen) {
    if (n->kind == YT_SCALAR) {
        if (n->text && strpbrk(n->text, "\t\n\r"))
            return fail(e, n, err, errlen, "text with a tab or line break (reference: entries are one line each)");
        return 0;
    }
    for (int i = 0; i < n->n; i++) {
        if (n->kind == YT_MAP && tsv_safe(e, n->key[i], err, errlen)) return -1;
        if (tsv_safe(e, n->val[i], err, errlen)) return -1;
    }
    return 0;
}


// A reference entry's same_data: true, false, or a list of scale names (the data are the
// paper's at those scales only, e.g. [paper]); *same for the experiment's chosen scale.
static int same_data_flag(const experiment *e, const ynode *n, int *same, char *err, size_t errlen) {
    *same = 0;
    if (!n) return 0;
    const char *want = "reference same_data: expected true (our data are the paper's), false (the default) or a list "
                       "of scale names where they are, e.g. [paper]";
    if (n->kind == YT_SCALAR && !n->quoted && (!strcmp(n->text, "true") || !strcmp(n->text, "false"))) {
        *same = !strcmp(n->text, "true");
        return 0;
    }
    if (n->kind != YT_SEQ) return fail(e, n, err, errlen, want);
    const ynode *scales = ytree_get(e->tree, "scales", NULL);
    for (int i = 0; i < n->n; i++) {
        const ynode *v = n->val[i];
        if (v->kind != YT_SCALAR || !scales || !ytree_get(scales, v->text, NULL)) {
            char msg[400];
            snprintf(msg, sizeof msg, "reference same_data: '%s' is not a scale of this experiment", v->kind == YT_SCALAR ? v->text : "?");
            return fail(e, v, err, errlen, msg);
        }
        if (!strcmp(v->text, e->scale)) *same = 1;
    }
    return 0;
}

static int parse(const experiment *e, reference_entry **out, int *n, char *err, size_t errlen) {
    if (out) *out = NULL, *n = 0;
    const ynode *ref = e->reference;
    if (ref && ref->kind != YT_SEQ) return fail(e, ref, err, errlen, "reference: expected a list of {stage, match, metric, value, source}");
    for (int i = 0; ref && i < ref->n; i++) {
        const ynode *item = ref->val[i];
        if (item->kind != YT_MAP) return fail(e, item, err, errlen, "reference entry: expected a mapping {stage, match, metric, value, source}");
        if (only_keys(e, item, "stage,match,metric,value,source,same_data", err, errlen) || tsv_safe(e, item, err, errlen)) return -1;
        int same_data = 0; // our data are the paper's (default: other data)
        if (same_data_flag(e, ytree_get(item, "same_data", NULL), &same_data, err, errlen)) return -1;
        const char *stage = scalar(item, "stage"), *metric = scalar(item, "metric"), *value = scalar(item, "value"),
                   *source = scalar(item, "source");
        if (!metric || !value) return fail(e, item, err, errlen, "reference entry needs metric and value");
        char *end;
        strtod(value, &end);
        if (*value == 0 || *end) return fail(e, ytree_get(item, "value", NULL), err, errlen, "reference value must be a number");
        if (stage && strcmp(stage, "*") && experiment_stage_index(e, stage) < 0)
            return fail(e, ytree_get(item, "stage", NULL), err, errlen, "reference stage is not a stage of this experiment");
        char match[1024] = "";
        const ynode *m = ytree_get(item, "match", NULL);
        if (m && m->kind != YT_MAP) return fail(e, m, err, errlen, "reference match: expected a mapping of key: value");
        for (int k = 0; m && k < m->n; k++) {
            if (m->val[k]->kind != YT_SCALAR) return fail(e, m->val[k], err, errlen, "reference match values must be scalars");
            size_t used = strlen(match);
            snprintf(match + used, sizeof match - used, "%s%s=%s", used ? "," : "", m->key[k]->text, m->val[k]->text);
        }
        char name[128];
        figure_metric_name(metric, name, sizeof name);
        if (out) {
            *out = xrealloc(*out, (size_t)(*n + 1) * sizeof **out, "reference entries");
            reference_entry *r = &(*out)[(*n)++];
            r->stage = xstrdup(stage ? stage : "*", "reference"), r->match = xstrdup(match, "reference");
            r->metric = xstrdup(name, "reference"), r->value = xstrdup(value, "reference");
            r->source = xstrdup(source ? source : "", "reference"), r->same_data = same_data, r->line = item->line;
        }
    }
    return 0;
}

int reference_parse(const experiment *e, reference_entry **out, int *n, char *err, size_t errlen) {
    int rc = parse(e, out, n, err, errlen);
    if (rc && out) reference_free(*out, *n), *out = NULL, *n = 0;
    return rc;
}

void reference_free(reference_entry *r, int n) {
    for (int i = 0; i < n; i++) free(r[i].stage), free(r[i].match), free(r[i].metric), free(r[i].value), free(r[i].source);
    free(r);
}
