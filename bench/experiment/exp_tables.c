// bench/experiment/exp_tables.c — `reference:` of an experiment to reference.tsv (format in
// bench/report/report.h), `findings:` checked (findings_spec.c), and the copy of the experiment
// file (exp_tables.h). `figures:` is checked when the experiment loads (figure_kinds.h) and read
// by `posbench plot` from the copy.
#include "exp_tables.h"
#include "findings_spec.h"
#include "figure_kinds.h"
#include "../../core/common.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

// Every key and scalar of a reference or figure entry becomes a field of a tab-separated
// line: a tab or line break in one would split it (and `report` would misread the table).
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


static FILE *open_tmp(const char *dir, const char *name, char *tmp, size_t len, char *err, size_t errlen) {
    snprintf(tmp, len, "%s/%s.tmp", dir, name);
    FILE *f = fopen(tmp, "w");
    if (!f) snprintf(err, errlen, "%s: cannot create: %s", tmp, strerror(errno));
    return f;
}

static int close_rename(FILE *f, const char *tmp, char *err, size_t errlen) {
    char final[4200];
    snprintf(final, sizeof final, "%.*s", (int)(strlen(tmp) - 4), tmp);
    if (fclose(f) != 0 || rename(tmp, final) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", final, strerror(errno));
        return -1;
    }
    return 0;
}

// DIR/experiment.yaml: the experiment file's text, byte for byte, so `posbench report` reads
// the findings (and anything else) as the experiment states them.
static int keep_copy(const experiment *e, const char *dir, char *err, size_t errlen) {
    char tmp[4200], buf[65536];
    FILE *in = fopen(e->path, "rb");
    if (!in) {
        snprintf(err, errlen, "%s: cannot read: %s", e->path, strerror(errno));
        return -1;
    }
    FILE *out = open_tmp(dir, "experiment.yaml", tmp, sizeof tmp, err, errlen);
    if (!out) {
        fclose(in);
        return -1;
    }
    size_t n;
    int bad = 0;
    while (!bad && (n = fread(buf, 1, sizeof buf, in)) > 0) bad = fwrite(buf, 1, n, out) != n;
    bad |= ferror(in);
    fclose(in);
    if (bad) {
        snprintf(err, errlen, "%s: cannot copy %s: %s", tmp, e->path, strerror(errno));
        fclose(out);
        unlink(tmp);
        return -1;
    }
    return close_rename(out, tmp, err, errlen);
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

int exp_tables_write(const experiment *e, const char *dir, char *err, size_t errlen) {
    char tmp[4200];
    const ynode *ref = e->reference;
    if (ref && ref->kind != YT_SEQ) return fail(e, ref, err, errlen, "reference: expected a list of {stage, match, metric, value, source}");
    FILE *f = NULL;
    if (ref && dir && !(f = open_tmp(dir, "reference.tsv", tmp, sizeof tmp, err, errlen))) return -1;
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
        if (f) fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\n", stage ? stage : "*", match, name, value, source ? source : "",
                       same_data ? "same_data" : "other_data");
    }
    if (f && close_rename(f, tmp, err, errlen)) return -1;
    f = NULL;
    findings_list fl;
    if (findings_parse(e, &fl, err, errlen)) return -1;
    findings_list_free(&fl);
    return dir ? keep_copy(e, dir, err, errlen) : 0;
}
