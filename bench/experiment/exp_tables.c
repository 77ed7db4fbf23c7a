// bench/experiment/exp_tables.c — `reference:`, `figures:` and `findings:` of an experiment to
// reference.tsv, figures.tsv and findings.tsv (formats in bench/report/report.h, bench/report/plot.h and
// exp_tables.h). The findings are checked in full first, then written in a second pass.
#include "exp_tables.h"
#include "../report/findings.h"
#include "../../core/common.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fail(const experiment *e, const ynode *n, char *err, size_t errlen, const char *msg) {
    snprintf(err, errlen, "%s:%d:%d: %s", e->path, n ? n->line : 0, n ? n->col : 0, msg);
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

static void metric_name(const char *in, char *out, size_t len) {
    if (!strncmp(in, "final.", 6)) snprintf(out, len, "%s", in + 6);
    else if (!strncmp(in, "train.", 6) || !strncmp(in, "eval.", 5)) {
        snprintf(out, len, "%s", in);
        *strchr(out, '.') = '/';
    } else snprintf(out, len, "%s", in);
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

// ---- findings ----------------------------------------------------------------------
static const char *const finding_keys[] = {"claim", "paper", "kind", "a", "b", "value", "x", "per"};
static const char *const selector_keys[] = {"stage", "match", "metric"};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

// " (did you mean 'x'?; valid: a, b)" or " (valid: a, b)": the closest of n names to word.
static void suggest_names(char *buf, size_t len, const char *word, const char *const *names, int n) {
    char list[1024] = "";
    const char *best = NULL;
    int best_d = strlen(word) <= 3 ? 2 : 3;
    for (int i = 0; i < n; i++) {
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
        int d = cfg_edit_distance(word, names[i]);
        if (d < best_d) best_d = d, best = names[i];
    }
    if (best) snprintf(buf, len, " (did you mean '%s'?; valid: %s)", best, list);
    else snprintf(buf, len, " (valid: %s)", list);
}

static void suggest_stage(const experiment *e, char *buf, size_t len, const char *word) {
    const char *names[EXP_MAX_STAGES];
    for (int i = 0; i < e->nstages; i++) names[i] = e->stage_names[i];
    suggest_names(buf, len, word, names, e->nstages);
}

static void kind_names(const char **names) {
    for (int k = 0; k < finding_kind_count; k++) names[k] = finding_kinds[k].name;
}

// Checks that every key of map is one of names; `what` prefixes the message.
static int known_keys(const experiment *e, const ynode *map, const char *const *names, int n, const char *what, char *err,
                      size_t errlen) {
    for (int k = 0; k < map->n; k++) {
        int ok = 0;
        for (int i = 0; i < n; i++) ok |= !strcmp(map->key[k]->text, names[i]);
        if (ok) continue;
        char h[1200], msg[1500];
        suggest_names(h, sizeof h, map->key[k]->text, names, n);
        snprintf(msg, sizeof msg, "%sunknown key '%s'%s", what, map->key[k]->text, h);
        return fail(e, map->key[k], err, errlen, msg);
    }
    return 0;
}

// The text under key in *out (NULL when absent or null). 0, or -1 with the message in err
// when the value is there but not a scalar.
static int text_value(const experiment *e, const ynode *map, const char *key, const char *what, const char **out, char *err,
                      size_t errlen) {
    const ynode *v = ytree_get(map, key, NULL);
    *out = NULL;
    if (!v || ytree_is_null(v)) return 0;
    if (v->kind != YT_SCALAR) {
        char got[300], msg[600];
        ytree_describe(v, got, sizeof got);
        snprintf(msg, sizeof msg, "%s%s: expected text, got %s", what, key, got);
        return fail(e, v, err, errlen, msg);
    }
    *out = v->text;
    return 0;
}

// A key of match, per or x: a config key, or "<stage>.<config key>" for a stage of e.
// Returns its cfg_keys index, or -1 with the message in err.
static int config_key(const experiment *e, const ynode *at, const char *what, const char *key, char *err, size_t errlen) {
    int idx = cfg_index(key);
    if (idx >= 0) return idx;
    char msg[2000], h[1200];
    const char *dot = strchr(key, '.');
    char stage[64] = "";
    if (dot && (size_t)(dot - key) < sizeof stage) snprintf(stage, sizeof stage, "%.*s", (int)(dot - key), key);
    int is_stage = stage[0] && experiment_stage_index(e, stage) >= 0;
    const char *rest = is_stage ? dot + 1 : key;
    if (is_stage && (idx = cfg_index(rest)) >= 0) return idx;
    if (!is_stage && stage[0] && cfg_index(dot + 1) >= 0) {
        suggest_stage(e, h, sizeof h, stage);
        snprintf(msg, sizeof msg, "%sunknown stage '%s' in '%s'%s", what, stage, key, h);
        fail(e, at, err, errlen, msg);
        return -1;
    }
    const char *close = cfg_suggest(rest);
    if (close) snprintf(h, sizeof h, " (did you mean '%s%s%s'?)", is_stage ? stage : "", is_stage ? "." : "", close);
    else snprintf(h, sizeof h, "; posbench train --help lists every key");
    snprintf(msg, sizeof msg, "%s'%s' is not a config key%s", what, key, h);
    fail(e, at, err, errlen, msg);
    return -1;
}

// "final.top1" -> "top1"; other names must be plain /final attribute names.
static int final_metric(const experiment *e, const ynode *at, const char *what, const char *metric, char *out, size_t len,
                        char *err, size_t errlen) {
    const char *name = strncmp(metric, "final.", 6) ? metric : metric + 6;
    int ok = name[0] != '\0' && strlen(name) < len;
    const char *at_size = strchr(name, '@'); // per-size metrics: top1@56
    for (const char *p = name; *p && ok; p++) ok = isalnum((unsigned char)*p) || *p == '_' || (p == at_size && p > name);
    if (ok && at_size) ok = at_size[1] != '\0' && strspn(at_size + 1, "0123456789") == strlen(at_size + 1);
    if (ok) {
        snprintf(out, len, "%s", name);
        return 0;
    }
    char msg[600];
    if (!strncmp(metric, "train.", 6) || !strncmp(metric, "eval.", 5))
        snprintf(msg, sizeof msg, "%smetric '%s' is a /%.*s series; findings compare /final attributes (top1 or final.top1)", what,
                 metric, (int)strcspn(metric, "."), metric);
    else
        snprintf(msg, sizeof msg, "%smetric '%s' is not a /final attribute name (letters, digits and _, or NAME@SIZE: top1, final.top1, top1@56)", what,
                 metric);
    return fail(e, at, err, errlen, msg);
}

// One finding as checked: what its findings.tsv line is made of (pointers into the tree).
typedef struct {
    const char *stage;
    const ynode *match; // a mapping, or NULL
    char metric[128];   // without "final."
} side_spec;

typedef struct {
    const finding_kind_info *kind;
    const char *claim, *paper, *value, *x, *per; // NULL when absent
    side_spec a, b;                              // b.stage NULL unless the kind uses b
} finding_spec;

// Side `side` ("a" or "b") of a finding: {stage, match, metric}. 0, or -1 with the message.
static int check_side(const experiment *e, const ynode *item, const char *side, side_spec *out, char *err, size_t errlen) {
    const ynode *sel = ytree_get(item, side, NULL);
    char what[64], msg[1600], got[300], h[1200];
    snprintf(what, sizeof what, "findings: %s: ", side);
    ytree_describe(sel, got, sizeof got);
    if (sel->kind != YT_MAP) {
        snprintf(msg, sizeof msg, "%sexpected a mapping {stage, match, metric}, got %s", what, got);
        return fail(e, sel, err, errlen, msg);
    }
    if (known_keys(e, sel, selector_keys, COUNT(selector_keys), what, err, errlen)) return -1;
    const char *metric;
    if (text_value(e, sel, "stage", what, &out->stage, err, errlen) || text_value(e, sel, "metric", what, &metric, err, errlen))
        return -1;
    if (!out->stage) {
        suggest_stage(e, h, sizeof h, "");
        snprintf(msg, sizeof msg, "findings: %s needs a stage%s", side, h);
        return fail(e, sel, err, errlen, msg);
    }
    if (experiment_stage_index(e, out->stage) < 0) {
        suggest_stage(e, h, sizeof h, out->stage);
        snprintf(msg, sizeof msg, "%sstage '%s' is not a stage of this experiment%s", what, out->stage, h);
        return fail(e, ytree_get(sel, "stage", NULL), err, errlen, msg);
    }
    if (!metric) {
        snprintf(msg, sizeof msg, "findings: %s needs a metric (a /final attribute: top1 or final.top1)", side);
        return fail(e, sel, err, errlen, msg);
    }
    if (final_metric(e, ytree_get(sel, "metric", NULL), what, metric, out->metric, sizeof out->metric, err, errlen)) return -1;
    const ynode *m = ytree_get(sel, "match", NULL);
    out->match = m && !ytree_is_null(m) ? m : NULL;
    snprintf(what, sizeof what, "findings: %s: match: ", side);
    if (out->match && m->kind != YT_MAP) {
        ytree_describe(m, got, sizeof got);
        snprintf(msg, sizeof msg, "%sexpected a mapping of config key: value, got %s", what, got);
        return fail(e, m, err, errlen, msg);
    }
    config scratch; // types each value by its key
    config_defaults(&scratch);
    int rc = 0;
    for (int k = 0; out->match && k < m->n && rc == 0; k++) {
        int idx = config_key(e, m->key[k], what, m->key[k]->text, err, errlen);
        if (idx < 0) {
            rc = -1;
            break;
        }
        char verr[600];
        ytree_describe(m->val[k], got, sizeof got);
        if (m->val[k]->kind != YT_SCALAR) snprintf(verr, sizeof verr, "%s: expected a value, got %s", m->key[k]->text, got);
        if (m->val[k]->kind != YT_SCALAR || config_set(&scratch, idx, m->val[k]->text, verr, sizeof verr) != 0) {
            snprintf(msg, sizeof msg, "%s%s", what, verr);
            rc = fail(e, m->val[k], err, errlen, msg);
        }
    }
    config_free(&scratch);
    return rc;
}

// The `per` or `x` key of a finding (NULL when absent), checked.
static int check_axis(const experiment *e, const ynode *item, const char *key, const char **out, char *err, size_t errlen) {
    char what[32];
    snprintf(what, sizeof what, "findings: %s: ", key);
    if (text_value(e, item, key, "findings: ", out, err, errlen)) return -1;
    if (*out && config_key(e, ytree_get(item, key, NULL), what, *out, err, errlen) < 0) return -1;
    return 0;
}

// Checks that the kind gets the keys it needs and none it does not use.
static int check_kind_keys(const experiment *e, const ynode *item, const finding_kind_info *k, char *err, size_t errlen) {
    static const char *const uses[3] = {"b", "value", "x"};
    static const char *const needs_what[3] = {"b: {stage, match, metric} (the runs a is compared with)",
                                              "value: a number (in the metric's stored units: 0.95 for 95% top1)",
                                              "x: the config key whose values are the x axis"};
    int needs[3] = {k->needs_b, k->needs_value, k->needs_x};
    char msg[600];
    for (int u = 0; u < 3; u++) {
        const ynode *key_node = NULL, *v = ytree_get(item, uses[u], &key_node);
        if (v && ytree_is_null(v)) v = NULL;
        if (v && !needs[u]) {
            snprintf(msg, sizeof msg, "findings: kind '%s' does not use %s (%s)", k->name, uses[u], k->meaning);
            return fail(e, key_node, err, errlen, msg);
        }
        if (!v && needs[u]) {
            snprintf(msg, sizeof msg, "findings: kind '%s' needs %s", k->name, needs_what[u]);
            return fail(e, item, err, errlen, msg);
        }
    }
    const ynode *a = ytree_get(item, "a", NULL);
    if (!a || ytree_is_null(a))
        return fail(e, item, err, errlen, "findings: this finding needs a: {stage, match, metric} (the runs it is about)");
    return 0;
}

// Checks one finding into *fs. 0, or -1 with "file:line:col: findings: ..." in err.
static int check_finding(const experiment *e, const ynode *item, finding_spec *fs, char *err, size_t errlen) {
    char msg[1600], got[300], h[1200];
    const char *names[16];
    memset(fs, 0, sizeof *fs);
    kind_names(names);
    if (item->kind != YT_MAP) {
        ytree_describe(item, got, sizeof got);
        snprintf(msg, sizeof msg, "findings: each finding is a mapping {claim, kind, a, b, value, x, per, paper}, got %s", got);
        return fail(e, item, err, errlen, msg);
    }
    if (known_keys(e, item, finding_keys, COUNT(finding_keys), "findings: ", err, errlen)) return -1;
    const char *kind;
    const char *w = "findings: ";
    if (text_value(e, item, "claim", w, &fs->claim, err, errlen) || text_value(e, item, "paper", w, &fs->paper, err, errlen) ||
        text_value(e, item, "kind", w, &kind, err, errlen) || text_value(e, item, "value", w, &fs->value, err, errlen))
        return -1;
    if (!fs->claim || !fs->claim[0])
        return fail(e, item, err, errlen, "findings: this finding needs a claim (the paper's statement, as text)");
    suggest_names(h, sizeof h, kind ? kind : "", names, finding_kind_count);
    if (!kind) {
        snprintf(msg, sizeof msg, "findings: this finding needs a kind%s", h);
        return fail(e, item, err, errlen, msg);
    }
    int ki = finding_kind_index(kind);
    if (ki < 0) {
        snprintf(msg, sizeof msg, "findings: kind '%s' is not valid%s", kind, h);
        return fail(e, ytree_get(item, "kind", NULL), err, errlen, msg);
    }
    fs->kind = &finding_kinds[ki];
    if (check_kind_keys(e, item, fs->kind, err, errlen)) return -1;
    char *end = NULL;
    double num = fs->value ? strtod(fs->value, &end) : 0.0;
    if (fs->kind->needs_value && (!fs->value || *end || !isfinite(num))) {
        snprintf(msg, sizeof msg, "findings: value must be a number, got '%s'", fs->value ? fs->value : "");
        return fail(e, ytree_get(item, "value", NULL), err, errlen, msg);
    }
    if (check_axis(e, item, "x", &fs->x, err, errlen) || check_axis(e, item, "per", &fs->per, err, errlen)) return -1;
    if (check_side(e, item, "a", &fs->a, err, errlen)) return -1;
    return fs->kind->needs_b ? check_side(e, item, "b", &fs->b, err, errlen) : 0;
}

// Writes one field, a tab before it unless it is the first of the line. 0, or -1.
static int put_field(FILE *f, const char *text, int first) {
    if (!first && fputc('\t', f) == EOF) return -1;
    return findings_write_escaped(f, text ? text : "", 0);
}

// Writes a side's three fields (all empty for an unused side). 0, or -1.
static int put_side(FILE *f, const side_spec *s) {
    if (put_field(f, s->stage, 0) || fputc('\t', f) == EOF) return -1;
    for (int k = 0; s->match && k < s->match->n; k++) {
        if (k && fputc(',', f) == EOF) return -1;
        if (findings_write_escaped(f, s->match->key[k]->text, 1) || fputc('=', f) == EOF ||
            findings_write_escaped(f, s->match->val[k]->text, 1))
            return -1;
    }
    return put_field(f, s->stage ? s->metric : NULL, 0);
}

// One findings.tsv line (format in exp_tables.h). 0, or -1 when a write failed.
static int put_finding(FILE *f, const finding_spec *fs) {
    if (put_field(f, fs->kind->name, 1) || put_field(f, fs->claim, 0) || put_field(f, fs->paper, 0)) return -1;
    if (put_side(f, &fs->a) || put_side(f, &fs->b)) return -1;
    if (put_field(f, fs->value, 0) || put_field(f, fs->x, 0) || put_field(f, fs->per, 0)) return -1;
    return fputc('\n', f) == EOF ? -1 : 0;
}

// Checks every finding; with dir, writes DIR/findings.tsv (or removes a stale one when the
// experiment has no findings).
static int findings_table(const experiment *e, const char *dir, char *err, size_t errlen) {
    const ynode *list = e->findings;
    char tmp[4200];
    finding_spec fs;
    if (list && ytree_is_null(list)) list = NULL;
    if (list && list->kind != YT_SEQ) {
        char got[300], msg[600];
        ytree_describe(list, got, sizeof got);
        snprintf(msg, sizeof msg, "findings: expected a list of mappings {claim, kind, a, b, value, x, per, paper}, got %s", got);
        return fail(e, list, err, errlen, msg);
    }
    for (int i = 0; list && i < list->n; i++)
        if (check_finding(e, list->val[i], &fs, err, errlen)) return -1;
    if (!dir) return 0;
    if (!list) {
        snprintf(tmp, sizeof tmp, "%s/findings.tsv", dir);
        if (unlink(tmp) != 0 && errno != ENOENT) {
            snprintf(err, errlen, "%s: cannot remove the stale file: %s", tmp, strerror(errno));
            return -1;
        }
        return 0;
    }
    FILE *f = open_tmp(dir, "findings.tsv", tmp, sizeof tmp, err, errlen);
    if (!f) return -1;
    int bad = fprintf(f, "# posbench findings (format: bench/experiment/exp_tables.h); fields: kind, claim, paper, a.stage, a.match, "
                         "a.metric, b.stage, b.match, b.metric, value, x, per\nexperiment\t%s\n", e->name) < 0;
    for (int i = 0; i < list->n && !bad; i++) bad = check_finding(e, list->val[i], &fs, err, errlen) || put_finding(f, &fs);
    if (bad) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
        fclose(f);
        unlink(tmp);
        return -1;
    }
    return close_rename(f, tmp, err, errlen);
}

int exp_tables_write(const experiment *e, const char *dir, char *err, size_t errlen) {
    char tmp[4200];
    const ynode *ref = e->reference, *fig = e->figures;
    if (ref && ref->kind != YT_SEQ) return fail(e, ref, err, errlen, "reference: expected a list of {stage, match, metric, value, source}");
    FILE *f = NULL;
    if (ref && dir && !(f = open_tmp(dir, "reference.tsv", tmp, sizeof tmp, err, errlen))) return -1;
    for (int i = 0; ref && i < ref->n; i++) {
        const ynode *item = ref->val[i];
        if (item->kind != YT_MAP) return fail(e, item, err, errlen, "reference entry: expected a mapping {stage, match, metric, value, source}");
        if (only_keys(e, item, "stage,match,metric,value,source", err, errlen)) return -1;
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
        metric_name(metric, name, sizeof name);
        if (f) fprintf(f, "%s\t%s\t%s\t%s\t%s\n", stage ? stage : "*", match, name, value, source ? source : "");
    }
    if (f && close_rename(f, tmp, err, errlen)) return -1;
    f = NULL;
    if (fig && fig->kind != YT_SEQ) return fail(e, fig, err, errlen, "figures: expected a list of {kind, stage, metric, x}");
    if (fig && dir && !(f = open_tmp(dir, "figures.tsv", tmp, sizeof tmp, err, errlen))) return -1;
    for (int i = 0; fig && i < fig->n; i++) {
        const ynode *item = fig->val[i];
        if (item->kind != YT_MAP) return fail(e, item, err, errlen, "figure entry: expected a mapping {kind, stage, metric, x}");
        const char *kind = scalar(item, "kind"), *stage = scalar(item, "stage"), *metric = scalar(item, "metric"),
                   *x = scalar(item, "x");
        char name[128] = "*";
        if (metric) metric_name(metric, name, sizeof name);
        if (f) fprintf(f, "%s\t%s\t%s\t%s\n", kind ? kind : "*", stage ? stage : "*", name, x ? x : "*");
    }
    if (f && close_rename(f, tmp, err, errlen)) return -1;
    return findings_table(e, dir, err, errlen);
}
