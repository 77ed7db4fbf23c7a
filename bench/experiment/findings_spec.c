// bench/experiment/findings_spec.c — an experiment's `findings:` list checked and parsed into
// finding structs (rules in findings_spec.h). Order of work: check every finding (kind,
// the keys the kind uses, each side's stage, match and metric, the x and per keys) into
// pointers into the YAML tree; when all are good, copy them into the caller's list.
#include "findings_spec.h"
#include "findings_check.h"
#include "../../core/common.h"
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const finding_kind_info finding_kinds[] = {
    {"greater", 1, 0, 0, 0, "mean of a > mean of b (Welch t-test)"},
    {"at_least", 0, 1, 0, 0, "mean of a > value (one-sample t-test)"},
    {"at_most", 0, 1, 0, 0, "mean of a < value (one-sample t-test)"},
    {"peak_inside", 0, 0, 1, 0, "the highest inner mean over x beats the first and the last x value (Welch t-tests)"},
    {"increasing", 0, 0, 1, 0, "the metric rises along x (regression slope t-test)"},
    {"decreasing", 0, 0, 1, 0, "the metric falls along x (regression slope t-test)"},
    {"not_worse", 1, 0, 0, 1, "a is at least as good as b: mean of a > mean of b - margin (one-sided Welch non-inferiority test)"},
    {"equivalent", 1, 0, 0, 1, "a matches b: |mean of a - mean of b| < margin (TOST: two one-sided Welch tests)"},
};
const int finding_kind_count = (int)(sizeof finding_kinds / sizeof finding_kinds[0]);

int finding_kind_index(const char *name) {
    for (int k = 0; k < finding_kind_count; k++)
        if (!strcmp(finding_kinds[k].name, name)) return k;
    return -1;
}

// Where the findings come from: the file (for messages) and, when checking for `posbench
// run`, the experiment (stages, config keys); exp NULL for a kept copy read by the report.
typedef struct {
    const char *path;
    const experiment *exp;
} spec;

static int fail(const spec *e, const ynode *n, char *err, size_t errlen, const char *msg) {
    snprintf(err, errlen, "%s:%d:%d: %s", e->path, n ? n->line : 1, n ? n->col : 1, msg);
    return -1;
}

static const char *const finding_keys[] = {"claim", "paper", "source", "kind", "a", "b", "value", "margin", "x", "per", "effect"};
static const char *const selector_keys[] = {"stage", "match", "metric", "divide_by"};
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

static void suggest_stage(const spec *e, char *buf, size_t len, const char *word) {
    const char *names[EXP_MAX_STAGES];
    buf[0] = '\0';
    if (!e->exp) return;
    for (int i = 0; i < e->exp->nstages; i++) names[i] = e->exp->stage_names[i];
    suggest_names(buf, len, word, names, e->exp->nstages);
}

static void kind_names(const char **names) {
    for (int k = 0; k < finding_kind_count; k++) names[k] = finding_kinds[k].name;
}

// Checks that every key of map is one of names; `what` prefixes the message.
static int known_keys(const spec *e, const ynode *map, const char *const *names, int n, const char *what, char *err,
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
static int text_value(const spec *e, const ynode *map, const char *key, const char *what, const char **out, char *err,
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
static int config_key(const spec *e, const ynode *at, const char *what, const char *key, char *err, size_t errlen) {
    int idx = cfg_index(key);
    if (idx >= 0) return idx;
    char msg[2000], h[1200];
    const char *dot = strchr(key, '.');
    char stage[64] = "";
    if (dot && (size_t)(dot - key) < sizeof stage) snprintf(stage, sizeof stage, "%.*s", (int)(dot - key), key);
    int is_stage = stage[0] && experiment_stage_index(e->exp, stage) >= 0;
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
static int final_metric(const spec *e, const ynode *at, const char *what, const char *metric, char *out, size_t len,
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

// One finding as checked (pointers into the tree); copied into a `finding` by own_finding.
typedef struct {
    const char *stage;
    const ynode *match; // a mapping, or NULL
    char metric[128];   // without "final."
    char divide_by[128]; // "" when absent
} side_spec;

typedef struct {
    const finding_kind_info *kind;
    const char *claim, *paper, *source, *value, *margin, *x, *per, *effect; // NULL when absent
    side_spec a, b;                              // b.stage NULL unless the kind uses b
} finding_spec;

// Side `side` ("a" or "b") of a finding: {stage, match, metric}. 0, or -1 with the message.
static int check_side(const spec *e, const ynode *item, const char *side, side_spec *out, char *err, size_t errlen) {
    const ynode *sel = ytree_get(item, side, NULL);
    char what[64], msg[1600], got[300], h[1200];
    snprintf(what, sizeof what, "findings: %s: ", side);
    ytree_describe(sel, got, sizeof got);
    if (sel->kind != YT_MAP) {
        snprintf(msg, sizeof msg, "%sexpected a mapping {stage, match, metric}, got %s", what, got);
        return fail(e, sel, err, errlen, msg);
    }
    if (known_keys(e, sel, selector_keys, COUNT(selector_keys), what, err, errlen)) return -1;
    const char *metric, *divide_by;
    if (text_value(e, sel, "stage", what, &out->stage, err, errlen) || text_value(e, sel, "metric", what, &metric, err, errlen) ||
        text_value(e, sel, "divide_by", what, &divide_by, err, errlen))
        return -1;
    if (!out->stage) {
        suggest_stage(e, h, sizeof h, "");
        snprintf(msg, sizeof msg, "findings: %s needs a stage%s", side, h);
        return fail(e, sel, err, errlen, msg);
    }
    if (e->exp && experiment_stage_index(e->exp, out->stage) < 0) {
        suggest_stage(e, h, sizeof h, out->stage);
        snprintf(msg, sizeof msg, "%sstage '%s' is not a stage of this experiment%s", what, out->stage, h);
        return fail(e, ytree_get(sel, "stage", NULL), err, errlen, msg);
    }
    if (!metric) {
        snprintf(msg, sizeof msg, "findings: %s needs a metric (a /final attribute: top1 or final.top1)", side);
        return fail(e, sel, err, errlen, msg);
    }
    if (final_metric(e, ytree_get(sel, "metric", NULL), what, metric, out->metric, sizeof out->metric, err, errlen)) return -1;
    char valid[1024];
    if (e->exp && !findings_metric_known(e->exp, out->stage, out->metric, valid, sizeof valid)) {
        snprintf(msg, sizeof msg, "%smetric '%s' is not recorded by any run of stage '%s' (valid: %s)", what, out->metric, out->stage, valid);
        return fail(e, ytree_get(sel, "metric", NULL), err, errlen, msg);
    }
    out->divide_by[0] = '\0';
    if (divide_by) {
        char w2[64];
        snprintf(w2, sizeof w2, "findings: %s: divide_by: ", side);
        if (final_metric(e, ytree_get(sel, "divide_by", NULL), w2, divide_by, out->divide_by, sizeof out->divide_by, err, errlen))
            return -1;
        if (e->exp && !findings_metric_known(e->exp, out->stage, out->divide_by, valid, sizeof valid)) {
            snprintf(msg, sizeof msg, "%smetric '%s' is not recorded by any run of stage '%s' (valid: %s)", w2, out->divide_by,
                     out->stage, valid);
            return fail(e, ytree_get(sel, "divide_by", NULL), err, errlen, msg);
        }
    }
    const ynode *m = ytree_get(sel, "match", NULL);
    out->match = m && !ytree_is_null(m) ? m : NULL;
    snprintf(what, sizeof what, "findings: %s: match: ", side);
    if (out->match && m->kind != YT_MAP) {
        ytree_describe(m, got, sizeof got);
        snprintf(msg, sizeof msg, "%sexpected a mapping of config key: value, got %s", what, got);
        return fail(e, m, err, errlen, msg);
    }
    for (int k = 0; out->match && k < m->n; k++)
        if (m->val[k]->kind != YT_SCALAR) {
            ytree_describe(m->val[k], got, sizeof got);
            snprintf(msg, sizeof msg, "%s%s: expected a value, got %s", what, m->key[k]->text, got);
            return fail(e, m->val[k], err, errlen, msg);
        }
    if (!e->exp) return 0; // a kept copy: keys and value types were checked when it ran
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
        } else if (!findings_value_exists(e->exp, out->stage, m->key[k]->text, idx, m->val[k]->text, verr, sizeof verr)) {
            snprintf(msg, sizeof msg, "%s%s: no configuration of stage '%s' has the value '%s' (its runs have: %s)", what,
                     m->key[k]->text, out->stage, m->val[k]->text, verr);
            rc = fail(e, m->val[k], err, errlen, msg);
        }
    }
    config_free(&scratch);
    return rc;
}

// The `per` or `x` key of a finding (NULL when absent), checked; an x along which a trend or a
// peak is claimed must have ordered values (findings_check.h).
static int check_axis(const spec *e, const ynode *item, const char *key, const char *kind, const char **out, char *err,
                      size_t errlen) {
    char what[32];
    snprintf(what, sizeof what, "findings: %s: ", key);
    if (text_value(e, item, key, "findings: ", out, err, errlen)) return -1;
    if (*out && !(*out)[0] && !e->exp) *out = NULL;
    int idx = *out && e->exp ? config_key(e, ytree_get(item, key, NULL), what, *out, err, errlen) : 0;
    if (idx < 0) return -1;
    if (*out && e->exp && kind && !findings_key_ordered(idx)) {
        char msg[600];
        snprintf(msg, sizeof msg, "%s%s has text values, which have no order: kind '%s' needs x a number or boolean key "
                 "(compare text values with greater, per: %s)", what, *out, kind, *out);
        return fail(e, ytree_get(item, key, NULL), err, errlen, msg);
    }
    return 0;
}

// Checks that the kind gets the keys it needs and none it does not use.
static int check_kind_keys(const spec *e, const ynode *item, const finding_kind_info *k, char *err, size_t errlen) {
    static const char *const uses[4] = {"b", "value", "x", "margin"};
    static const char *const needs_what[4] = {"b: {stage, match, metric} (the runs a is compared with)",
                                              "value: a number (in the metric's stored units: 0.95 for 95% top1)",
                                              "x: the config key whose values are the x axis",
                                              "margin: the equivalence margin, a number in the compared quantity's stored units (0.01 = 1 point of top1)"};
    int needs[4] = {k->needs_b, k->needs_value, k->needs_x, k->needs_margin};
    char msg[600];
    for (int u = 0; u < 4; u++) {
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
static int check_finding(const spec *e, const ynode *item, finding_spec *fs, char *err, size_t errlen) {
    char msg[1600], got[300], h[1200];
    const char *names[16];
    memset(fs, 0, sizeof *fs);
    kind_names(names);
    if (item->kind != YT_MAP) {
        ytree_describe(item, got, sizeof got);
        snprintf(msg, sizeof msg, "findings: each finding is a mapping {claim, kind, a, b, value, margin, x, per, effect, paper, source}, got %s", got);
        return fail(e, item, err, errlen, msg);
    }
    if (known_keys(e, item, finding_keys, COUNT(finding_keys), "findings: ", err, errlen)) return -1;
    const char *kind;
    const char *w = "findings: ";
    if (text_value(e, item, "claim", w, &fs->claim, err, errlen) || text_value(e, item, "paper", w, &fs->paper, err, errlen) ||
        text_value(e, item, "source", w, &fs->source, err, errlen) ||
        text_value(e, item, "kind", w, &kind, err, errlen) || text_value(e, item, "value", w, &fs->value, err, errlen) ||
        text_value(e, item, "margin", w, &fs->margin, err, errlen) || text_value(e, item, "effect", w, &fs->effect, err, errlen))
        return -1;
    if (!fs->claim || !fs->claim[0])
        return fail(e, item, err, errlen, "findings: this finding needs a claim (the paper's statement, as text)");
    if (fs->source && (!fs->paper || !fs->paper[0]))
        return fail(e, ytree_get(item, "source", NULL), err, errlen,
                    "findings: source: says where in the paper the `paper:` text comes from; this finding has no paper: text");
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
    num = fs->margin ? strtod(fs->margin, &end) : 0.0;
    int min_zero = ki == FINDING_NOT_WORSE; // a zero margin: not_worse is a plain a >= b; equivalent needs a band
    if (fs->kind->needs_margin && (!fs->margin || *end || !isfinite(num) || num < 0 || (!min_zero && num == 0))) {
        snprintf(msg, sizeof msg, "findings: margin must be a number %s 0 (in the compared quantity's stored units: 0.01 = 1 point of top1), got '%s'",
                 min_zero ? ">=" : ">", fs->margin ? fs->margin : "");
        return fail(e, ytree_get(item, "margin", NULL), err, errlen, msg);
    }
    if (fs->effect) {
        double m = fs->kind->needs_margin ? strtod(fs->margin, NULL) : 0.0;
        num = strtod(fs->effect, &end);
        const char *rule = ki == FINDING_NOT_WORSE  ? ">= 0 (the true mean(a) - mean(b) to plan for; default 0)"
                           : ki == FINDING_EQUIVALENT ? "with |effect| < margin (the true mean(a) - mean(b) to plan for; default 0)"
                                                      : "> 0 (the true effect in the claim's direction to plan seeds for)";
        int ok = fs->effect[0] && !*end && isfinite(num) &&
                 (ki == FINDING_NOT_WORSE ? num >= 0 : ki == FINDING_EQUIVALENT ? fabs(num) < m : num > 0);
        if (!ok) {
            snprintf(msg, sizeof msg, "findings: effect must be a number %s, in the compared quantity's stored units (0.01 = 1 point of top1), got '%s'",
                     rule, fs->effect);
            return fail(e, ytree_get(item, "effect", NULL), err, errlen, msg);
        }
    }
    if (check_axis(e, item, "x", fs->kind->needs_x ? fs->kind->name : NULL, &fs->x, err, errlen) ||
        check_axis(e, item, "per", NULL, &fs->per, err, errlen))
        return -1;
    if (check_side(e, item, "a", &fs->a, err, errlen)) return -1;
    return fs->kind->needs_b ? check_side(e, item, "b", &fs->b, err, errlen) : 0;
}

// ---- the parsed list -----------------------------------------------------------------
static char *dup_or_null(const char *s) { return s ? xstrdup(s, "findings") : NULL; }

static void own_side(const side_spec *s, finding_sel *out) {
    memset(out, 0, sizeof *out);
    if (!s->stage) return;
    out->stage = xstrdup(s->stage, "findings");
    out->metric = xstrdup(s->metric, "findings");
    out->divide_by = s->divide_by[0] ? xstrdup(s->divide_by, "findings") : NULL;
    out->nmatch = s->match ? s->match->n : 0;
    out->match = xcalloc((size_t)out->nmatch + 1, sizeof *out->match, "findings match");
    for (int k = 0; k < out->nmatch; k++) {
        out->match[k].key = xstrdup(s->match->key[k]->text, "findings match");
        out->match[k].value = xstrdup(s->match->val[k]->text, "findings match");
    }
}

static void own_finding(const finding_spec *fs, finding *f) {
    memset(f, 0, sizeof *f);
    f->kind = (int)(fs->kind - finding_kinds);
    f->claim = xstrdup(fs->claim, "findings");
    f->paper = xstrdup(fs->paper ? fs->paper : "", "findings");
    own_side(&fs->a, &f->a);
    if (fs->kind->needs_b) own_side(&fs->b, &f->b);
    f->value = fs->value ? strtod(fs->value, NULL) : 0.0;
    f->margin = fs->kind->needs_margin ? strtod(fs->margin, NULL) : 0.0;
    f->x = fs->kind->needs_x ? dup_or_null(fs->x) : NULL;
    f->per = dup_or_null(fs->per);
    f->has_effect = fs->effect != NULL;
    f->effect = fs->effect ? strtod(fs->effect, NULL) : 0.0;
}

static void free_sel(finding_sel *s) {
    for (int i = 0; i < s->nmatch; i++) free(s->match[i].key), free(s->match[i].value);
    free(s->match), free(s->stage), free(s->metric), free(s->divide_by);
}

void findings_list_free(findings_list *l) {
    for (int i = 0; i < l->n; i++) {
        finding *f = &l->items[i];
        free(f->claim), free(f->paper), free(f->x), free(f->per);
        free_sel(&f->a), free_sel(&f->b);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

// Checks every finding of list (NULL: none); when all are good, copies them into *out.
static int parse_list(const spec *e, const ynode *list, findings_list *out, char *err, size_t errlen) {
    finding_spec fs;
    if (list && ytree_is_null(list)) list = NULL;
    if (list && list->kind != YT_SEQ) {
        char got[300], msg[600];
        ytree_describe(list, got, sizeof got);
        snprintf(msg, sizeof msg, "findings: expected a list of mappings {claim, kind, a, b, value, margin, x, per, effect, paper, source}, got %s", got);
        return fail(e, list, err, errlen, msg);
    }
    for (int i = 0; list && i < list->n; i++)
        if (check_finding(e, list->val[i], &fs, err, errlen)) return -1;
    out->n = list ? list->n : 0;
    out->items = xcalloc((size_t)out->n + 1, sizeof *out->items, "findings");
    for (int i = 0; i < out->n; i++) {
        check_finding(e, list->val[i], &fs, err, errlen); // checked above: fills fs
        own_finding(&fs, &out->items[i]);
    }
    return 0;
}

int findings_parse(const experiment *e, findings_list *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    snprintf(out->experiment, sizeof out->experiment, "%s", e->name);
    spec s = {e->path, e};
    return parse_list(&s, e->findings, out, err, errlen);
}

int findings_load(const char *path, findings_list *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    ynode *root = NULL;
    if (ytree_load(path, &root, err, errlen) != 0) return -1;
    spec s = {path, NULL};
    const ynode *name = ytree_get(root, "name", NULL);
    int rc;
    if (!root || root->kind != YT_MAP || !name || name->kind != YT_SCALAR || !name->text[0])
        rc = fail(&s, name ? name : root, err, errlen, "an experiment file needs a name (the experiment's name: [a-z0-9_-]+)");
    else {
        snprintf(out->experiment, sizeof out->experiment, "%s", name->text);
        rc = parse_list(&s, ytree_get(root, "findings", NULL), out, err, errlen);
    }
    ytree_free(root);
    return rc;
}
