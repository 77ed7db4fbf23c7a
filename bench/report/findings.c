// bench/report/findings.c — findings.tsv read back and its claims checked against a results set
// (rules and output in findings.h; the file format in exp_tables.h). Order of work: read
// every findings.tsv below the report's directory; for each finding select the runs of
// each side, split them by `per` (and `x`), take the means, decide; render the Markdown.
#include "findings.h"
#include "stats.h"
#include "../../core/common.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const finding_kind_info finding_kinds[] = {
    {"greater", 1, 0, 0, "mean of a > mean of b"},
    {"at_least", 0, 1, 0, "mean of a >= value"},
    {"at_most", 0, 1, 0, "mean of a <= value"},
    {"peak_inside", 0, 0, 1, "the highest mean over x is neither at the first nor at the last x value"},
    {"increasing", 0, 0, 1, "means strictly increase along x"},
    {"decreasing", 0, 0, 1, "means strictly decrease along x"},
};
const int finding_kind_count = (int)(sizeof finding_kinds / sizeof finding_kinds[0]);
enum { K_GREATER, K_AT_LEAST, K_AT_MOST, K_PEAK_INSIDE, K_INCREASING, K_DECREASING }; // finding_kinds order
enum { NFIELDS = 12 };

int finding_kind_index(const char *name) {
    for (int k = 0; k < finding_kind_count; k++)
        if (!strcmp(finding_kinds[k].name, name)) return k;
    return -1;
}

// ---- the file format ----------------------------------------------------------------
int findings_write_escaped(FILE *f, const char *text, int in_match) {
    for (const char *p = text; *p; p++) {
        int rc;
        if (*p == '\\') rc = fputs("\\\\", f);
        else if (*p == '\t') rc = fputs("\\t", f);
        else if (*p == '\n') rc = fputs("\\n", f);
        else if (*p == '\r') rc = fputs("\\r", f);
        else if (in_match && (*p == ',' || *p == '=')) rc = fprintf(f, "\\%c", *p);
        else rc = fputc(*p, f);
        if (rc < 0) return -1;
    }
    return 0;
}

// Decodes one escaped field in place. Returns 0, or -1 on a backslash at the end.
static int unescape(char *s) {
    char *out = s;
    for (char *p = s; *p; p++) {
        if (*p != '\\') {
            *out++ = *p;
            continue;
        }
        p++;
        if (!*p) return -1;
        *out++ = *p == 't' ? '\t' : *p == 'n' ? '\n' : *p == 'r' ? '\r' : *p;
    }
    *out = '\0';
    return 0;
}

// Splits an escaped match field "k=v,k=v" into pairs (each part then unescaped).
// Returns 0, or -1 with a message in err.
static int parse_match(const char *field, finding_sel *sel, char *err, size_t errlen) {
    char *copy = xstrdup(field, "findings match");
    char *start = copy;
    for (char *p = copy;; p++) {
        if (*p == '\\' && p[1]) {
            p++;
            continue;
        }
        if (*p != ',' && *p != '\0') continue;
        int last = *p == '\0';
        *p = '\0';
        if (*start || !last || sel->nmatch) { // "" is an empty match; "a=1," has an empty pair
            char *eq = start;
            while (*eq && *eq != '=') eq += eq[0] == '\\' && eq[1] ? 2 : 1;
            if (*eq != '=' || eq == start) {
                snprintf(err, errlen, "match pair '%s' is not key=value", start);
                free(copy);
                return -1;
            }
            *eq = '\0';
            char *key = start, *value = eq + 1;
            if (unescape(key) || unescape(value)) {
                snprintf(err, errlen, "match pair ends in a lone backslash");
                free(copy);
                return -1;
            }
            finding_pair *m = realloc(sel->match, (size_t)(sel->nmatch + 1) * sizeof *m);
            if (!m) die_fail("out of memory reading findings");
            sel->match = m;
            m[sel->nmatch].key = xstrdup(key, "findings match");
            m[sel->nmatch++].value = xstrdup(value, "findings match");
        }
        if (last) break;
        start = p + 1;
    }
    free(copy);
    return 0;
}

static void free_sel(finding_sel *s) {
    for (int i = 0; i < s->nmatch; i++) free(s->match[i].key), free(s->match[i].value);
    free(s->match), free(s->stage), free(s->metric);
}

static void free_finding(finding *f) {
    free(f->claim), free(f->paper), free(f->x), free(f->per);
    free_sel(&f->a), free_sel(&f->b);
}

void findings_free(findings_file *f) {
    for (int i = 0; i < f->n; i++) free_finding(&f->items[i]);
    free(f->items), free(f->path), free(f->experiment);
    memset(f, 0, sizeof *f);
}

static char *opt_dup(const char *s) { return s[0] ? xstrdup(s, "findings") : NULL; }

// Splits a line at its tabs into at most max fields (strsep keeps empty ones). Returns the
// number of fields the line has (more than max when it has too many; field is then partial).
static int split_tabs(char *line, char **field, int max) {
    int total = 1;
    for (const char *c = line; *c; c++) total += *c == '\t';
    if (total > max) return total;
    char *p = line;
    for (int n = 0; n < total; n++) field[n] = strsep(&p, "\t");
    return total;
}

// One finding line (fields unescaped here) into f. 0, or -1 with a message in err.
static int parse_finding(char **field, finding *f, char *err, size_t errlen) {
    for (int i = 0; i < NFIELDS; i++)
        if (i != 4 && i != 7 && unescape(field[i])) { // the match fields are split first
            snprintf(err, errlen, "field %d ends in a lone backslash", i + 1);
            return -1;
        }
    f->kind = finding_kind_index(field[0]);
    if (f->kind < 0) {
        snprintf(err, errlen, "unknown kind '%s'", field[0]);
        return -1;
    }
    const finding_kind_info *k = &finding_kinds[f->kind];
    if (!field[1][0] || !field[3][0] || !field[5][0]) {
        snprintf(err, errlen, "claim, a.stage and a.metric must not be empty");
        return -1;
    }
    if (k->needs_b && (!field[6][0] || !field[8][0])) {
        snprintf(err, errlen, "kind %s needs b.stage and b.metric", k->name);
        return -1;
    }
    char *end;
    f->value = strtod(field[9], &end);
    if (k->needs_value && (!field[9][0] || *end || !isfinite(f->value))) {
        snprintf(err, errlen, "kind %s needs a number in the value field, got '%s'", k->name, field[9]);
        return -1;
    }
    if (k->needs_x && !field[10][0]) {
        snprintf(err, errlen, "kind %s needs x", k->name);
        return -1;
    }
    f->claim = xstrdup(field[1], "findings"), f->paper = xstrdup(field[2], "findings");
    f->a.stage = xstrdup(field[3], "findings"), f->a.metric = xstrdup(field[5], "findings");
    if (parse_match(field[4], &f->a, err, errlen)) return -1;
    if (k->needs_b) {
        f->b.stage = xstrdup(field[6], "findings"), f->b.metric = xstrdup(field[8], "findings");
        if (parse_match(field[7], &f->b, err, errlen)) return -1;
    }
    f->x = k->needs_x ? opt_dup(field[10]) : NULL;
    f->per = opt_dup(field[11]);
    return 0;
}

// Handles one non-comment line: the experiment header first, then findings.
static int read_line(char *line, int lineno, findings_file *out, int *cap, char *err, size_t errlen) {
    char *field[NFIELDS], msg[512];
    int nf = split_tabs(line, field, NFIELDS);
    if (!out->experiment) {
        if (nf != 2 || strcmp(field[0], "experiment") || !field[1][0]) {
            snprintf(err, errlen, "%s:%d: expected 'experiment<TAB>NAME' before the findings", out->path, lineno);
            return -1;
        }
        out->experiment = xstrdup(field[1], "findings");
        return 0;
    }
    if (nf != NFIELDS) {
        snprintf(err, errlen,
                 "%s:%d: expected %d tab-separated fields (kind, claim, paper, a.stage, a.match, a.metric, b.stage, b.match, "
                 "b.metric, value, x, per), found %d",
                 out->path, lineno, NFIELDS, nf);
        return -1;
    }
    if (out->n == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        finding *g = realloc(out->items, (size_t)*cap * sizeof *g);
        if (!g) die_fail("out of memory reading %s", out->path);
        out->items = g;
    }
    finding *f = &out->items[out->n++];
    memset(f, 0, sizeof *f);
    f->line = lineno;
    if (parse_finding(field, f, msg, sizeof msg) != 0) {
        snprintf(err, errlen, "%s:%d: %s", out->path, lineno, msg);
        return -1;
    }
    return 0;
}

int findings_read(const char *path, findings_file *out, char *err, size_t errlen) {
    memset(out, 0, sizeof *out);
    out->path = xstrdup(path, "path");
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
        findings_free(out);
        return -1;
    }
    char *line = NULL;
    size_t len = 0;
    int lineno = 0, cap = 0, rc = 0;
    while (rc == 0 && getline(&line, &len, f) >= 0) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0' || line[0] == '#') continue;
        rc = read_line(line, lineno, out, &cap, err, errlen);
    }
    if (rc == 0 && ferror(f)) snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno)), rc = -1;
    if (rc == 0 && !out->experiment) snprintf(err, errlen, "%s:%d: no 'experiment<TAB>NAME' line", path, lineno), rc = -1;
    free(line);
    fclose(f);
    if (rc != 0) findings_free(out);
    return rc;
}

// ---- selecting runs -----------------------------------------------------------------
// The /config value of key for a run of `stage` ("—" when absent); "<stage>.key" falls
// back to "key" when the qualified name is absent.
static const char *key_value(const rr_set *set, int run, const char *key, const char *stage) {
    size_t sl = strlen(stage);
    if (!rr_attr_get(&set->runs[run].config, key) && !strncmp(key, stage, sl) && key[sl] == '.') key += sl + 1;
    return rr_config_value(set, run, key);
}

typedef struct {
    int *runs;
    int n;
} run_list;

static void run_list_add(run_list *l, int run) {
    int *g = realloc(l->runs, (size_t)(l->n + 1) * sizeof *g);
    if (!g) die_fail("out of memory checking findings");
    l->runs = g;
    l->runs[l->n++] = run;
}

// Every run of (experiment, sel->stage) whose /config matches sel->match.
static run_list select_runs(const rr_set *set, const char *experiment, const finding_sel *sel) {
    run_list l = {0};
    for (int s = 0; s < set->nstages; s++) {
        const rr_stage *st = &set->stages[s];
        if (strcmp(st->experiment, experiment) || strcmp(st->name, sel->stage)) continue;
        for (int i = 0; i < st->nruns; i++) {
            int ok = 1;
            for (int m = 0; m < sel->nmatch && ok; m++)
                ok = rr_value_equal(key_value(set, st->runs[i], sel->match[m].key, sel->stage), sel->match[m].value);
            if (ok) run_list_add(&l, st->runs[i]);
        }
    }
    return l;
}

typedef struct {
    const char *label; // the key's value (first spelling seen); "" for an unsplit group
    run_list runs;
} run_group;

typedef struct {
    run_group *items;
    int n;
    int key_absent; // the key is absent from every run's /config
} run_groups;

static int cmp_group(const void *pa, const void *pb) {
    return rr_value_cmp(((const run_group *)pa)->label, ((const run_group *)pb)->label);
}

// Splits runs by the value of key (one group labelled "" when key is NULL), sorted by value.
static run_groups split_runs(const rr_set *set, const run_list *l, const char *key, const char *stage) {
    run_groups g = {0};
    g.key_absent = key != NULL && l->n > 0;
    for (int i = 0; i < l->n; i++) {
        const char *v = key ? key_value(set, l->runs[i], key, stage) : "";
        if (key && strcmp(v, "—")) g.key_absent = 0;
        int k = 0;
        while (k < g.n && !rr_value_equal(g.items[k].label, v)) k++;
        if (k == g.n) {
            run_group *p = realloc(g.items, (size_t)(g.n + 1) * sizeof *p);
            if (!p) die_fail("out of memory checking findings");
            g.items = p;
            g.items[g.n++] = (run_group){v, {0}};
        }
        run_list_add(&g.items[k].runs, l->runs[i]);
    }
    if (g.n > 1) qsort(g.items, (size_t)g.n, sizeof *g.items, cmp_group);
    return g;
}

static void free_groups(run_groups *g) {
    for (int k = 0; k < g->n; k++) free(g->items[k].runs.runs);
    free(g->items);
}

// ---- means and verdicts -------------------------------------------------------------
typedef struct {
    finding_verdict v;
    char why[1024];
} verdict;

// "finetune", "finetune with pe.kind=abs, model.dim=64": the runs a reason talks about
// (per_value: the `per` key's value of the group, NULL when the runs are not split).
static void describe_runs(const finding_sel *sel, const char *per, const char *per_value, char *out, size_t len) {
    snprintf(out, len, "%s", sel->stage);
    for (int m = 0; m < sel->nmatch; m++)
        snprintf(out + strlen(out), len - strlen(out), "%s%s=%s", m ? ", " : " with ", sel->match[m].key, sel->match[m].value);
    if (per && per_value) snprintf(out + strlen(out), len - strlen(out), "%s%s=%s", sel->nmatch ? ", " : " with ", per, per_value);
}

// Mean of the finite /final metric over the done runs of l. Returns 1 with *mean set, or 0
// with the reason (about the runs described by `who`) in why.
static int side_mean(const rr_set *set, const run_list *l, const char *metric, const char *who, double *mean, char *why,
                     size_t len) {
    int ndone = 0, n = 0;
    double sum = 0.0;
    for (int i = 0; i < l->n; i++) {
        const rr_run *r = &set->runs[l->runs[i]];
        if (strcmp(rr_run_status(r), "done")) continue;
        ndone++;
        const rr_attr *a = rr_attr_get(&r->final, metric);
        if (a && a->is_num && isfinite(a->num)) sum += a->num, n++;
    }
    *mean = n ? sum / n : NAN;
    if (l->n == 0) snprintf(why, len, "no runs of %s", who);
    else if (ndone == 0) snprintf(why, len, "no done runs of %s", who);
    else if (n == 0) snprintf(why, len, "no done run of %s has /final %s", who, metric);
    return n > 0;
}

static void metric_text(const char *metric, double v, char *out, size_t len) {
    if (isnan(v)) snprintf(out, len, "—");
    else report_metric_text(metric, v, out, len);
}

static void cat(char *out, size_t len, const char *fmt, const char *s) { snprintf(out + strlen(out), len - strlen(out), fmt, s); }

static void set_unmeasured(verdict *v, const char *why) {
    v->v = FINDING_NOT_MEASURED;
    snprintf(v->why, sizeof v->why, "%s", why);
}

// greater, at_least, at_most on one group of a-runs (and b-runs).
static verdict check_level(const rr_set *set, const finding *f, const run_list *a, const run_list *b, const char *per_value,
                           char *ours, size_t len) {
    verdict v = {FINDING_HOLDS, ""};
    char who[512], why[1024], ta[64], tb[64];
    double ma, mb = NAN;
    describe_runs(&f->a, f->per, per_value, who, sizeof who);
    int ok_a = side_mean(set, a, f->a.metric, who, &ma, why, sizeof why);
    if (!ok_a) set_unmeasured(&v, why);
    metric_text(f->a.metric, ma, ta, sizeof ta);
    if (f->kind == K_GREATER) {
        describe_runs(&f->b, f->per, per_value, who, sizeof who);
        int ok_b = side_mean(set, b, f->b.metric, who, &mb, why, sizeof why);
        if (!ok_b && ok_a) set_unmeasured(&v, why);
        metric_text(f->b.metric, mb, tb, sizeof tb);
        snprintf(ours + strlen(ours), len - strlen(ours), "%s vs %s", ta, tb);
        if (v.v == FINDING_HOLDS && !(ma > mb)) v.v = FINDING_FAILS;
        return v;
    }
    cat(ours, len, "%s", ta);
    if (v.v == FINDING_HOLDS && !(f->kind == K_AT_LEAST ? ma >= f->value : ma <= f->value)) v.v = FINDING_FAILS;
    return v;
}

// peak_inside, increasing, decreasing on one group of a-runs, along x.
static verdict check_trend(const rr_set *set, const finding *f, const run_list *a, const char *per_value, char *ours,
                           size_t len) {
    verdict v = {FINDING_HOLDS, ""};
    char who[512], why[1024], t[64];
    describe_runs(&f->a, f->per, per_value, who, sizeof who);
    double m;
    if (!side_mean(set, a, f->a.metric, who, &m, why, sizeof why)) {
        cat(ours, len, "%s", "—");
        set_unmeasured(&v, why);
        return v;
    }
    run_groups g = split_runs(set, a, f->x, f->a.stage);
    if (g.key_absent) {
        cat(ours, len, "%s", "—");
        snprintf(why, sizeof why, "the runs of %s have no /config key %s", who, f->x);
        set_unmeasured(&v, why);
        free_groups(&g);
        return v;
    }
    double *means = xcalloc((size_t)g.n + 1, sizeof *means, "finding means");
    int np = 0;
    for (int k = 0; k < g.n; k++) {
        double mk;
        if (side_mean(set, &g.items[k].runs, f->a.metric, who, &mk, why, sizeof why)) means[np++] = mk;
        else mk = NAN;
        metric_text(f->a.metric, mk, t, sizeof t);
        snprintf(ours + strlen(ours), len - strlen(ours), "%s%s: %s", k ? ", " : "", g.items[k].label, t);
    }
    int need = f->kind == K_PEAK_INSIDE ? 3 : 2;
    if (v.v == FINDING_HOLDS && np < need) {
        snprintf(why, sizeof why, "%d value%s of %s with a mean among the runs of %s, need %d", np, np == 1 ? "" : "s", f->x,
                 who, need);
        set_unmeasured(&v, why);
    }
    if (v.v == FINDING_HOLDS) {
        int holds = 1;
        if (f->kind == K_PEAK_INSIDE) {
            double inside = -INFINITY;
            for (int k = 1; k < np - 1; k++) inside = fmax(inside, means[k]);
            holds = inside > means[0] && inside > means[np - 1];
        } else {
            for (int k = 1; k < np; k++) holds &= f->kind == K_INCREASING ? means[k] > means[k - 1] : means[k] < means[k - 1];
        }
        if (!holds) v.v = FINDING_FAILS;
    }
    free(means);
    free_groups(&g);
    return v;
}

// Folds one group's verdict into the finding's: a failure decides; else the first reason.
static void combine(verdict *all, const verdict *one) {
    if (all->v == FINDING_FAILS || one->v == FINDING_HOLDS) return;
    if (one->v == FINDING_FAILS) {
        all->v = FINDING_FAILS;
        return;
    }
    if (all->v == FINDING_NOT_MEASURED) return;
    all->v = FINDING_NOT_MEASURED;
    snprintf(all->why, sizeof all->why, "%s", one->why);
}

static int group_index(const run_groups *g, const char *label) {
    for (int k = 0; k < g->n; k++)
        if (rr_value_equal(g->items[k].label, label)) return k;
    return -1;
}

// Lists the values of `from` that `other` lacks: "unpaired: relbias (only in b)".
static void list_unpaired(const run_groups *from, const run_groups *other, const char *side, char *ours, size_t len) {
    int n = 0;
    for (int k = 0; k < from->n; k++) {
        if (group_index(other, from->items[k].label) >= 0) continue;
        if (n++ == 0) cat(ours, len, "%s", ours[0] ? "; unpaired: " : "unpaired: ");
        else cat(ours, len, "%s", ", ");
        cat(ours, len, "%s", from->items[k].label);
    }
    if (n) cat(ours, len, " (only in %s)", side);
}

// A finding with `per`: the kind checked for each value of the per key.
static verdict check_per(const rr_set *set, const finding *f, const run_list *a, const run_list *b, char *ours, size_t len) {
    verdict all = {FINDING_HOLDS, ""};
    run_groups ga = split_runs(set, a, f->per, f->a.stage), gb = {0};
    int two = f->kind == K_GREATER;
    if (two) gb = split_runs(set, b, f->per, f->b.stage);
    const char *absent = ga.key_absent ? f->a.stage : gb.key_absent ? f->b.stage : NULL;
    if (absent) {
        cat(ours, len, "%s", "—");
        snprintf(all.why, sizeof all.why, "the runs of %s have no /config key %s", absent, f->per);
        all.v = FINDING_NOT_MEASURED;
        free_groups(&ga), free_groups(&gb);
        return all;
    }
    int common = 0;
    for (int k = 0; k < ga.n; k++) {
        int j = two ? group_index(&gb, ga.items[k].label) : -1;
        if (two && j < 0) continue;
        cat(ours, len, common++ ? "; %s: " : "%s: ", ga.items[k].label);
        int trend = finding_kinds[f->kind].needs_x;
        if (trend) cat(ours, len, "%s", "(");
        verdict one = trend ? check_trend(set, f, &ga.items[k].runs, ga.items[k].label, ours, len)
                            : check_level(set, f, &ga.items[k].runs, two ? &gb.items[j].runs : NULL, ga.items[k].label, ours, len);
        if (trend) cat(ours, len, "%s", ")");
        combine(&all, &one);
    }
    if (two) list_unpaired(&ga, &gb, "a", ours, len), list_unpaired(&gb, &ga, "b", ours, len);
    if (common == 0 && all.v == FINDING_HOLDS) {
        snprintf(all.why, sizeof all.why, two ? "no value of %s common to a and b" : "no runs to split by %s", f->per);
        all.v = FINDING_NOT_MEASURED;
    }
    free_groups(&ga), free_groups(&gb);
    return all;
}

finding_verdict findings_eval(const rr_set *set, const char *experiment, const finding *f, char *ours, size_t ours_len,
                              char *why, size_t why_len) {
    ours[0] = '\0';
    run_list a = select_runs(set, experiment, &f->a), b = {0};
    if (f->kind == K_GREATER) b = select_runs(set, experiment, &f->b);
    verdict v;
    if (f->per && a.n > 0 && (f->kind != K_GREATER || b.n > 0)) v = check_per(set, f, &a, &b, ours, ours_len);
    else if (finding_kinds[f->kind].needs_x) v = check_trend(set, f, &a, NULL, ours, ours_len);
    else v = check_level(set, f, &a, &b, NULL, ours, ours_len);
    if (f->kind == K_AT_LEAST || f->kind == K_AT_MOST) {
        char t[64];
        metric_text(f->a.metric, f->value, t, sizeof t);
        snprintf(ours + strlen(ours), ours_len - strlen(ours), " (claim %s %s)", f->kind == K_AT_LEAST ? "≥" : "≤", t);
    }
    snprintf(why, why_len, "%s", v.v == FINDING_NOT_MEASURED ? v.why : "");
    free(a.runs), free(b.runs);
    return v.v;
}

// ---- finding the files and rendering --------------------------------------------------
// A Markdown table cell: '|' escaped, newlines flattened.
static void md_cell(FILE *f, const char *text) {
    fputc(' ', f);
    for (const char *p = text; *p; p++) {
        if (*p == '|') fputs("\\|", f);
        else fputc(*p == '\n' || *p == '\r' || *p == '\t' ? ' ' : *p, f);
    }
    fputs(" |", f);
}

static void render_file(FILE *md, const rr_set *set, const findings_file *ff) {
    if (ff->n == 0) return;
    fprintf(md, "## Findings (experiment `%s`)\n\n| claim | ours | paper | verdict |\n|---|---|---|---|\n", ff->experiment);
    for (int i = 0; i < ff->n; i++) {
        const finding *f = &ff->items[i];
        char ours[4096], why[1024], verdict_text[1100];
        finding_verdict v = findings_eval(set, ff->experiment, f, ours, sizeof ours, why, sizeof why);
        if (v == FINDING_HOLDS) snprintf(verdict_text, sizeof verdict_text, "holds");
        else if (v == FINDING_FAILS) snprintf(verdict_text, sizeof verdict_text, "does not hold");
        else snprintf(verdict_text, sizeof verdict_text, "not measured (%s)", why);
        fputc('|', md);
        md_cell(md, f->claim), md_cell(md, ours), md_cell(md, f->paper), md_cell(md, verdict_text);
        fputc('\n', md);
    }
    fputc('\n', md);
}

int findings_report(const rr_set *set, const char *dir, char **md, char *err, size_t errlen) {
    *md = NULL;
    struct { char **paths; int n; } pl = {0};
    char scan_err[1024];
    if (rr_find_files(dir, "findings.tsv", &pl.paths, &pl.n, scan_err, sizeof scan_err) < 0) pl.n = 0; // rr_scan read dir already
    size_t mdlen = 0;
    FILE *out = open_memstream(md, &mdlen);
    if (!out) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    int rc = 0;
    for (int i = 0; i < pl.n && rc == 0; i++) {
        findings_file ff;
        rc = findings_read(pl.paths[i], &ff, err, errlen);
        if (rc == 0) render_file(out, set, &ff), findings_free(&ff);
    }
    for (int i = 0; i < pl.n; i++) free(pl.paths[i]);
    free(pl.paths);
    if (fclose(out) != 0) die_fail("report: cannot build the findings section: %s", strerror(errno));
    if (rc != 0) {
        free(*md);
        *md = NULL;
    }
    return rc;
}
