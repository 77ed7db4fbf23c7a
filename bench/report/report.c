// bench/report/report.c — `posbench report DIR`: per-stage Markdown tables (mean ± std over seeds
// of the final metrics, paper numbers beside them) and the findings sections
// (bench/report/findings.c) to stdout and DIR/REPORT.md.
// The table format is specified in report.h; the grouping in results_read.h.
#include "report.h"
#include "findings.h"
#include "budget_cells.h"
#include "caveats.h"
#include "stats.h"
#include "report_refs.h"
#include "report_versions.h"
#include "run_select.h"
#include "report_table.h"
#include "report_formats.h"
#include "report_html.h"
#include "report_index.h"
#include "../text/markdown_text.h"
#include "report_provenance.h"
#include "findings_diff.h"
#include "gnuplot.h"
#include "../../core/common.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

// ---- a growing string ---------------------------------------------------------------
typedef struct {
    char *s;
    size_t n, cap;
} sbuf;

static void __attribute__((format(printf, 2, 3))) sb_printf(sbuf *b, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int need = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
        va_end(ap);
        if (need < 0) die_fail("report: formatting failed");
        if (b->s && b->n + (size_t)need < b->cap) {
            b->n += (size_t)need;
            return;
        }
        size_t cap = b->cap ? b->cap : 4096;
        while (cap <= b->n + (size_t)need) cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) die_fail("out of memory building the report");
        b->s = p, b->cap = cap;
        if (b->n == 0) b->s[0] = '\0';
    }
}


static int is_done(const rr_run *r) { return !strcmp(rr_run_status(r), "done"); }

static int cmp_metric(const void *pa, const void *pb) {
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    const char *sa = strchr(a, '@'), *sb = strchr(b, '@');
    if (sa && sb) return atoi(sa + 1) - atoi(sb + 1);
    int ra = report_metric_format(a).rank, rb = report_metric_format(b).rank;
    return ra != rb ? ra - rb : strcmp(a, b);
}

// Metric names of a stage (see report.h): per_size NULL: every metric without '@'; per_size
// "top1": the per-size metrics "top1@S", ordered by S. Caller frees the array (not the names).
static int stage_metrics(const rr_set *set, const rr_stage *s, const char *per_size, const char ***out) {
    const rr_run *first = NULL;
    for (int i = 0; i < s->nruns && !first; i++)
        if (is_done(&set->runs[s->runs[i]])) first = &set->runs[s->runs[i]];
    const char **names = xcalloc(first ? (size_t)first->final.n : 1, sizeof(char *), "metric names");
    int n = 0;
    for (int k = 0; first && k < first->final.n; k++) {
        const rr_attr *a = &first->final.items[k];
        if (!a->is_num || !strcmp(a->name, "steps") || !strcmp(a->name, "diverged_step") || report_budget_attr(a->name)) continue;
        if ((strchr(a->name, '@') != NULL) != (per_size != NULL)) continue; // "top1@40": per-size tables only
        if (per_size && (strncmp(a->name, per_size, strlen(per_size)) || a->name[strlen(per_size)] != '@')) continue;
        int everywhere = 1;
        for (int i = 0; i < s->nruns && everywhere; i++) {
            const rr_run *r = &set->runs[s->runs[i]];
            const rr_attr *b = rr_attr_get(&r->final, a->name);
            if (is_done(r) && (!b || !b->is_num)) everywhere = 0;
        }
        if (everywhere) names[n++] = a->name;
    }
    if (n > 1) qsort(names, (size_t)n, sizeof *names, cmp_metric);
    *out = names;
    return n;
}

// ---- reference numbers (report_refs.h) ----------------------------------------------
// Does the key=value list of r match configuration c (its first run's /config)?
static int ref_matches(const rr_set *set, const rr_stage *s, const rr_config *c, const ref_line *r) {
    if (strcmp(r->stage, "*") && strcmp(r->stage, s->name)) return 0;
    if (!r->match[0] || !strcmp(r->match, "*") || !strcmp(r->match, "-")) return 1;
    char *copy = xstrdup(r->match, "ref"), *save = NULL;
    int ok = 1;
    for (char *kv = strtok_r(copy, ",", &save); kv && ok; kv = strtok_r(NULL, ",", &save)) {
        while (*kv == ' ') kv++;
        char *eq = strchr(kv, '=');
        if (!eq) {
            ok = 0;
            break;
        }
        *eq = '\0';
        const char *key = kv;
        size_t sl = strlen(s->name);
        if (!rr_attr_get(&set->runs[c->runs[0]].config, key) && !strncmp(key, s->name, sl) && key[sl] == '.')
            key += sl + 1;
        ok = rr_value_equal(rr_config_value(set, c->runs[0], key), eq + 1);
    }
    free(copy);
    return ok;
}

// ---- one stage ----------------------------------------------------------------------
static int status_rank(const char *st) {
    static const char *order[] = {"done", "diverged", "failed", "running"};
    for (int k = 0; k < 4; k++)
        if (!strcmp(st, order[k])) return k;
    return 4;
}

static int cmp_status(const void *pa, const void *pb) {
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    int ra = status_rank(a), rb = status_rank(b);
    return ra != rb ? ra - rb : strcmp(a, b);
}

// "2 done, 1 diverged": counts per status, done, diverged, failed, running, then by name.
static void status_cell(const rr_set *set, const rr_config *c, char *out, size_t len) {
    const char **seen = xcalloc((size_t)c->nruns + 1, sizeof(char *), "statuses");
    int nseen = 0;
    for (int i = 0; i < c->nruns; i++) {
        const char *st = rr_run_status(&set->runs[c->runs[i]]);
        int dup = 0;
        for (int k = 0; k < nseen && !dup; k++) dup = !strcmp(seen[k], st);
        if (!dup) seen[nseen++] = st;
    }
    if (nseen > 1) qsort(seen, (size_t)nseen, sizeof *seen, cmp_status);
    out[0] = '\0';
    for (int k = 0; k < nseen; k++) {
        int count = 0;
        for (int i = 0; i < c->nruns; i++) count += !strcmp(rr_run_status(&set->runs[c->runs[i]]), seen[k]);
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%d %s", k ? ", " : "", count, seen[k]);
    }
    free(seen);
}

static void format_cell(const metric_fmt *f, int n, double mean, double std, char *out, size_t len) {
    if (n == 0) {
        snprintf(out, len, "—");
        return;
    }
    char m[64], s[64];
    const char *fmt = report_value_format(f, mean * f->scale);
    if (!f->mean_only && n > 1 && fmt == f->fmt) fmt = report_value_format(f, std * f->scale); // mean and std alike
    snprintf(m, sizeof m, fmt, mean * f->scale);
    if (f->mean_only) {
        snprintf(out, len, "%s", m);
        return;
    }
    if (n == 1) snprintf(s, sizeof s, "—");
    else snprintf(s, sizeof s, fmt, std * f->scale);
    snprintf(out, len, "%s ± %s", m, s);
}

// The report's tables, in order, for --format csv,json (report_table.h).
typedef struct {
    report_table **items;
    int n;
} table_list;

static void tables_add(table_list *l, report_table *t) {
    report_table **grown = realloc(l->items, (size_t)(l->n + 1) * sizeof *grown);
    if (!grown) die_fail("out of memory building the report");
    l->items = grown;
    l->items[l->n++] = t;
}

// A table's file-name stem: "<experiment>_<stage>[_<what>]" with gp_sanitize's characters (the
// figures' naming: plot.h).
static void table_name(const rr_stage *s, const char *what, char *out, size_t len) {
    snprintf(out, len, "%s%s%s%s%s", s->experiment, s->experiment[0] ? "_" : "", s->name, what[0] ? "_" : "", what);
    gp_sanitize(out);
}

// One metric cell: the Markdown text and the numbers in the header's unit (report_table.h).
static void stats_cell(report_table *t, const rr_set *set, const rr_config *c, const char *metric) {
    metric_fmt f = report_metric_format(metric);
    double mean, std;
    int n = report_stats(set, c, metric, &mean, &std);
    char cell[160];
    format_cell(&f, n, mean, std, cell, sizeof cell);
    rt_stats(t, cell, n ? mean * f.scale : NAN, n > 1 && !f.mean_only ? std * f.scale : NAN);
}

// Runs evaluated at several image sizes (eval.resolutions): one table per metric, a column per
// size (CAPE Fig. 2-4, Table 1).
static void size_tables(sbuf *b, const rr_set *set, const rr_stage *s, table_list *tables) {
    static const struct { const char *metric, *title; } per_size[] = {
        {"top1", "test top-1 (%) by evaluation image size"},
        {"tta_top1", "test top-1 (%) with test-time augmentation (logits averaged over size-delta, size, size+delta)"},
        {"images_per_s", "evaluation throughput (images/s, forward passes only) by image size"}};
    for (size_t k = 0; k < sizeof per_size / sizeof per_size[0]; k++) {
        const char **cols;
        int nc = stage_metrics(set, s, per_size[k].metric, &cols);
        if (nc == 0) {
            free(cols);
            continue;
        }
        char name[700], what[64];
        snprintf(what, sizeof what, "%s-by-size", per_size[k].metric);
        table_name(s, what, name, sizeof name);
        report_table *t = rt_new(name, s->experiment, s->name, per_size[k].title);
        for (int a = 0; a < s->naxes; a++) rt_col(t, s->axes[a], 0, RT_TEXT);
        for (int m = 0; m < nc; m++) rt_col(t, report_metric_format(cols[m]).header, 1, RT_STATS);
        for (int ci = 0; ci < s->nconfigs; ci++) {
            const rr_config *c = &s->configs[ci];
            rt_row(t);
            for (int a = 0; a < s->naxes; a++) rt_text(t, c->values[a]);
            for (int m = 0; m < nc; m++) stats_cell(t, set, c, cols[m]);
        }
        char *md = rt_markdown(t);
        char *stage = md_code_dup(s->name);
        sb_printf(b, "Stage `%s`: %s.\n\n%s\n", stage, per_size[k].title, md);
        free(stage);
        free(md);
        tables_add(tables, t);
        free(cols);
    }
}

static void stage_table(sbuf *b, const rr_set *set, const rr_stage *s, ref_table *refs, table_list *tables) {
    const char **metrics;
    int nm = stage_metrics(set, s, NULL, &metrics);
    int *has_ref = xcalloc((size_t)nm + 1, sizeof(int), "ref flags"), *other = xcalloc((size_t)nm + 1, sizeof(int), "ref flags");
    for (int m = 0; m < nm; m++)
        for (int r = 0; r < refs->n; r++)
            if (!strcmp(refs->items[r].metric, metrics[m]) && (!strcmp(refs->items[r].stage, "*") || !strcmp(refs->items[r].stage, s->name)))
                has_ref[m] = 1, other[m] |= !refs->items[r].same_data; // one number on other data labels the column
    int any_not_done = 0, ndone = 0;
    for (int i = 0; i < s->nruns; i++) {
        int d = is_done(&set->runs[s->runs[i]]);
        any_not_done |= !d, ndone += d;
    }
    char *stage = md_code_dup(s->name), *experiment = md_code_dup(s->experiment); // one line each (markdown_text.h)
    sb_printf(b, "## stage `%s`", stage);
    if (s->experiment[0]) sb_printf(b, " (experiment `%s`)", experiment);
    free(stage), free(experiment);
    sb_printf(b, "\n\n%d run%s, %d configuration%s, seeds", s->nruns, s->nruns == 1 ? "" : "s", s->nconfigs, s->nconfigs == 1 ? "" : "s");
    long seeds[256];
    int nseeds = 0;
    for (int i = 0; i < s->nruns; i++) {
        long seed = rr_run_seed(&set->runs[s->runs[i]]);
        int dup = 0;
        for (int k = 0; k < nseeds && !dup; k++) dup = seeds[k] == seed;
        if (!dup && nseeds < 256) {
            int k = nseeds++;
            for (; k > 0 && seeds[k - 1] > seed; k--) seeds[k] = seeds[k - 1];
            seeds[k] = seed;
        }
    }
    for (int k = 0; k < nseeds; k++) sb_printf(b, "%s %ld", k ? "," : "", seeds[k]);
    // What the table lacks: runs the experiment file enumerates with no run file, and the files
    // of this stage left out (run_select.h); the rows count only the runs above.
    int left[3] = {0};
    for (int i = 0; i < set->nleft; i++)
        if (!strcmp(set->left[i].experiment, s->experiment) && !strcmp(set->left[i].stage, s->name)) left[set->left[i].kind]++;
    if (s->nmissing || left[RR_LEFT_DAMAGED] || left[RR_LEFT_DUPLICATE] || left[RR_LEFT_EARLIER]) {
        sb_printf(b, ". **Not in this table:**");
        const char *sep = " ";
        if (s->nmissing)
            sb_printf(b, "%s%d missing (runs the experiment file enumerates with no run file)", sep, s->nmissing), sep = ", ";
        if (left[RR_LEFT_DAMAGED]) sb_printf(b, "%s%d damaged", sep, left[RR_LEFT_DAMAGED]), sep = ", ";
        if (left[RR_LEFT_DUPLICATE]) sb_printf(b, "%s%d left out as copies of a counted run", sep, left[RR_LEFT_DUPLICATE]), sep = ", ";
        if (left[RR_LEFT_EARLIER]) sb_printf(b, "%s%d left out as runs of an earlier version", sep, left[RR_LEFT_EARLIER]);
        if (left[RR_LEFT_DAMAGED] || left[RR_LEFT_DUPLICATE] || left[RR_LEFT_EARLIER]) sb_printf(b, " (files named under \"Run files left out\")");
    }
    sb_printf(b, ". Cells: mean ± sample std (n−1) over the seeds whose run is `done`; ± — when n = 1. updates and images "
                 "seen: the training budget, its init chain's included (init + own).");
    for (int m = 0; m < nm; m++) // a timed metric: one statistic, named (the findings use the same one)
        if (report_metric_nature(metrics[m]).nature == METRIC_TIMED)
            sb_printf(b, " %s: each run's median over all its steps (/final %s), then the mean over runs, as the findings use it.",
                      report_metric_format(metrics[m]).header, metrics[m]);
    sb_printf(b, "\n\n");
    if (ndone == 0) sb_printf(b, "No run of this stage finished `done`: no metrics to show.\n\n");
    char name[700], title[600];
    table_name(s, "", name, sizeof name);
    snprintf(title, sizeof title, "stage %s%s%s%s", s->name, s->experiment[0] ? " (experiment " : "", s->experiment,
             s->experiment[0] ? ")" : "");
    report_table *t = rt_new(name, s->experiment, s->name, title);
    for (int a = 0; a < s->naxes; a++) rt_col(t, s->axes[a], 0, RT_TEXT);
    rt_col(t, "n", 1, RT_COUNT), rt_col(t, "updates", 1, RT_TEXT), rt_col(t, "images seen", 1, RT_TEXT);
    for (int m = 0; m < nm; m++) {
        rt_col(t, report_metric_format(metrics[m]).header, 1, RT_STATS);
        if (!has_ref[m]) continue;
        char head[400];
        snprintf(head, sizeof head, "paper%s %s", other[m] ? " (other data)" : "", metrics[m]);
        rt_col(t, head, 1, RT_TEXT);
    }
    if (any_not_done) rt_col(t, "status", 0, RT_TEXT);
    for (int ci = 0; ci < s->nconfigs; ci++) {
        const rr_config *c = &s->configs[ci];
        rt_row(t);
        for (int a = 0; a < s->naxes; a++) rt_text(t, c->values[a]);
        int ndone_c = 0;
        for (int i = 0; i < c->nruns; i++) ndone_c += is_done(&set->runs[c->runs[i]]);
        rt_count(t, ndone_c);
        char upd[160], img[160];
        report_budget_cells(set, c, upd, sizeof upd, img, sizeof img);
        rt_text(t, upd);
        rt_text(t, img);
        for (int m = 0; m < nm; m++) {
            stats_cell(t, set, c, metrics[m]);
            if (!has_ref[m]) continue;
            const char *val = "";
            for (int r = 0; r < refs->n; r++) {
                ref_line *rl = &refs->items[r];
                if (strcmp(rl->metric, metrics[m]) || !ref_matches(set, s, c, rl)) continue;
                if (!val[0]) val = rl->value;
                rl->used = 1;
            }
            rt_text(t, val);
        }
        if (any_not_done) {
            char st[256];
            status_cell(set, c, st, sizeof st);
            rt_text(t, st);
        }
    }
    char *md = rt_markdown(t);
    sb_printf(b, "%s", md);
    free(md);
    tables_add(tables, t);
    int nsrc = 0;
    for (int r = 0; r < refs->n; r++) {
        const ref_line *rl = &refs->items[r];
        if (!rl->used || (strcmp(rl->stage, "*") && strcmp(rl->stage, s->name))) continue;
        int dup = 0;
        for (int q = 0; q < r && !dup; q++)
            dup = refs->items[q].used && !strcmp(refs->items[q].source, rl->source) &&
                  (!strcmp(refs->items[q].stage, "*") || !strcmp(refs->items[q].stage, s->name));
        if (dup) continue;
        char *source = md_text_dup(rl->source[0] ? rl->source : "(no source given)");
        sb_printf(b, "%s%s", nsrc++ ? "; " : "\n`paper` columns: ", source);
        free(source);
    }
    if (nsrc) sb_printf(b, "\n");
    sb_printf(b, "\n");
    free(has_ref);
    free(other);
    free(metrics);
    size_tables(b, set, s, tables);
}

// ---- the command --------------------------------------------------------------------
void report_help(void) {
    printf("usage: posbench report DIR [--format md,csv,json,html] [--diff OLD.json]\n"
           "       posbench report --index DIR\n"
           "Reads every run file (*.h5, not *.h5.partial) below DIR and prints one Markdown table per\n"
           "stage: one row per configuration (the /config values that differ between the stage's runs,\n"
           "train.seed aside), mean ± sample std over seeds of the final metrics of the runs that\n"
           "finished `done`, and a status column when some run did not. The same text is written to\n"
           "DIR/REPORT.md. Numbers from DIR/<experiment>/reference.tsv, else DIR/reference.tsv (lines: stage, key=value[,key=value],\n"
           "metric, value, source; tab-separated) are printed in `paper <metric>` columns. Every\n"
           "experiment.yaml below DIR (the experiment file, copied there by posbench run) with\n"
           "`findings:` adds a Findings section: each claim, our numbers, the paper's, and holds /\n"
           "does not hold / not measured.\n"
           "--format (default md): csv also writes DIR/tables/<experiment>_<stage>.csv and DIR/findings.csv, json\n"
           "DIR/tables.json and DIR/findings.json (claim, ours, paper, verdict, p, Holm p, 90%% CI, caveats), html\n"
           "DIR/REPORT.html (docs/report.md).\n"
           "--diff OLD.json: a findings.json an earlier `posbench report --format json` wrote; adds the section\n"
           "\"Changed since OLD.json\" after the report's head (stdout, REPORT.md, REPORT.html): verdicts that moved\n"
           "(was -> now), findings added and removed, findings whose printed numbers moved. A missing or\n"
           "unreadable OLD.json, or one that is not a findings file, is refused (exit 2).\n"
           "--index: DIR holds one folder per source (results/mp3, results/cape, ...: make reproduce-all); writes\n"
           "DIR/REPORT.md and REPORT.html: per source its runs, findings by verdict, measured time\n"
           "(DIR/reproduce-times.tsv) and links to its own report, then every source's findings side by side.\n"
           "Exit status: 0 ok, 1 REPORT.md could not be written, 2 bad input.\n");
}

int cmd_report(int argc, char **argv) {
    const char *dir = NULL, *diff_path = NULL;
    int formats = REPORT_MD, index = 0;
    char err[4400];
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            report_help();
            return 0;
        }
        if (!strcmp(argv[i], "--format") || !strncmp(argv[i], "--format=", 9)) {
            const char *list = argv[i][8] == '=' ? argv[i] + 9 : i + 1 < argc ? argv[++i] : "";
            if (report_parse_formats(list, &formats, err, sizeof err) != 0) {
                error_msg("%s", err);
                return EXIT_BAD_INPUT;
            }
            continue;
        }
        if (!strcmp(argv[i], "--diff") || !strncmp(argv[i], "--diff=", 7)) {
            diff_path = argv[i][6] == '=' ? argv[i] + 7 : i + 1 < argc ? argv[++i] : "";
            if (!diff_path[0]) {
                fprintf(stderr, "posbench: error: --diff needs a file: the findings.json an earlier `posbench report --format json` wrote\n");
                return EXIT_BAD_INPUT;
            }
            continue;
        }
        if (!strcmp(argv[i], "--index")) {
            index = 1;
            continue;
        }
        if (argv[i][0] == '-' || dir) {
            error_msg("unexpected argument '%s' for posbench report (usage: posbench report DIR [--format md,csv,json,html] [--diff OLD.json], or posbench report --index DIR)", argv[i]);
            return EXIT_BAD_INPUT;
        }
        dir = argv[i];
    }
    if (!dir) {
        fprintf(stderr, "posbench: error: posbench report needs a results directory (usage: posbench report DIR)\n");
        return EXIT_BAD_INPUT;
    }
    if (index) {
        if (formats != REPORT_MD || diff_path) {
            fprintf(stderr, "posbench: error: report --index writes REPORT.md and REPORT.html; --format and --diff are for one source's report\n");
            return EXIT_BAD_INPUT;
        }
        return report_index(dir);
    }
    // OLD.json is read before anything is written: a later --format json may replace it.
    findings_old old = {0};
    if (diff_path && findings_diff_load(diff_path, &old, err, sizeof err) != 0) {
        error_msg("%s", err);
        return EXIT_BAD_INPUT;
    }
    rr_set set;
    if (run_select(dir, RR_ATTRS, &set, err, sizeof err) != 0) { // the runs that count (run_select.h), the others named
        error_msg("%s", err);
        findings_diff_free(&old);
        return EXIT_BAD_INPUT;
    }
    report_metrics_from(&set); // units, scales and natures from the files
    report_order_stages(&set, dir); // stages in their experiment file's order
    if (set.nruns == 0 && set.nleft) {
        error_msg("no run files to count under %s: all %d that were read are left out (see the warnings above)",
                dir, set.nleft);
        rr_set_free(&set);
        findings_diff_free(&old);
        return EXIT_BAD_INPUT;
    }
    if (set.nruns == 0) {
        error_msg("no finished runs under %s (no readable *.h5 files; a run still going or stopped leaves only <run-id>.h5.partial)", dir);
        rr_set_free(&set);
        findings_diff_free(&old);
        return EXIT_BAD_INPUT;
    }
    ref_table refs;
    if (load_refs_tsv(dir, &refs, err, sizeof err) != 0) { // an old results folder's
        error_msg("%s", err);
        rr_set_free(&set);
        findings_diff_free(&old);
        return EXIT_BAD_INPUT;
    }
    if (caveats_load(dir, &set, err, sizeof err) != 0) {
        error_msg("%s", err);
        free_refs(&refs);
        rr_set_free(&set);
        findings_diff_free(&old);
        return EXIT_BAD_INPUT;
    }
    char *findings = NULL;
    finding_row *rows = NULL;
    int nrows = 0;
    if (findings_report_rows(&set, dir, &findings, &rows, &nrows, err, sizeof err) != 0) {
        caveats_free();
        error_msg("%s", err);
        free_refs(&refs);
        rr_set_free(&set);
        findings_diff_free(&old);
        return EXIT_BAD_INPUT;
    }
    sbuf b = {0};
    table_list tables = {0};
    char *head = report_head_markdown(&set, dir, rows, nrows); // title, provenance, verdicts: report_provenance.h
    sb_printf(&b, "%s", head);
    free(head);
    if (diff_path) {
        char *changes = findings_diff_markdown(&old, diff_path, rows, nrows);
        sb_printf(&b, "%s", changes);
        free(changes);
        findings_diff_free(&old);
    }
    for (int s = 0; s < set.nstages; s++) {
        // A stage's paper numbers: the reference: list of its experiment's copy,
        // DIR/<experiment>/experiment.yaml (or DIR/experiment.yaml when DIR is that folder);
        // results folders from before issue 28: DIR/<experiment>/reference.tsv, else DIR/reference.tsv.
        ref_table own = {0};
        int have_own = 0;
        if (set.stages[s].experiment[0]) {
            const char *exp = set.stages[s].experiment;
            char edir[4200], copy[4300];
            snprintf(edir, sizeof edir, "%s/%s", dir, exp);
            snprintf(copy, sizeof copy, "%s/experiment.yaml", edir);
            int found = 0, rc = load_refs_yaml(copy, exp, &set, &own, &found, err, sizeof err);
            if (rc == 0 && !found) {
                snprintf(copy, sizeof copy, "%s/experiment.yaml", dir);
                rc = load_refs_yaml(copy, exp, &set, &own, &found, err, sizeof err);
            }
            if (rc == 0 && !found && strcmp(edir, dir)) rc = load_refs_tsv(edir, &own, err, sizeof err);
            if (rc != 0) {
                error_msg("%s", err);
                free(b.s), free(findings), caveats_free(), free_refs(&refs), rr_set_free(&set);
                finding_rows_free(rows, nrows);
                for (int t = 0; t < tables.n; t++) rt_free(tables.items[t]);
                free(tables.items);
                findings_diff_free(&old);
                return EXIT_BAD_INPUT;
            }
            have_own = found || own.n > 0;
        }
        stage_table(&b, &set, &set.stages[s], have_own ? &own : &refs, &tables);
        free_refs(&own);
        int last = 1; // the experiment's caveats under its last stage table
        for (int q = s + 1; q < set.nstages && last; q++) last = strcmp(set.stages[q].experiment, set.stages[s].experiment) != 0;
        if (last && set.stages[s].experiment[0]) {
            char *cav = caveats_markdown(set.stages[s].experiment, CAVEATS_TABLES);
            char *note = report_earlier_note(&set, set.stages[s].experiment);
            sb_printf(&b, "%s%s", cav, note);
            free(cav), free(note);
        }
    }
    sb_printf(&b, "%s", findings);
    free(findings);
    caveats_free();
    char *left = report_left_markdown(&set, 0);
    sb_printf(&b, "%s", left);
    free(left);
    if (set.nskipped) {
        sb_printf(&b, "Unreadable files left out:\n\n");
        for (int i = 0; i < set.nskipped; i++) {
            char *line = md_text_dup(set.skipped[i]); // a file name never starts a line (markdown_text.h)
            sb_printf(&b, "- %s\n", line);
            free(line);
        }
        sb_printf(&b, "\n");
    }
    for (int r = 0; r < refs.n; r++)
        if (!refs.items[r].used)
            warn_msg("%s:%d: no configuration of stage '%s' matches '%s' with metric %s", refs.path,
                    refs.items[r].line, refs.items[r].stage, refs.items[r].match, refs.items[r].metric);
    fwrite(b.s, 1, b.n, stdout);
    fflush(stdout);
    size_t plen = strlen(dir) + 16;
    char *path = xmalloc(plen, "path");
    snprintf(path, plen, "%s/REPORT.md", dir);
    int rc = report_write_file(path, b.s, b.n); // 0, or the exit code: 1 I/O failure, 2 not a file we may write
    if (rc == 0) rc = report_write_formats(dir, formats, tables.items, tables.n, rows, nrows);
    if (rc == 0) rc = report_html_write(dir, b.s, &set, argc, argv);
    free(path);
    finding_rows_free(rows, nrows);
    for (int t = 0; t < tables.n; t++) rt_free(tables.items[t]);
    free(tables.items);
    free(b.s);
    free_refs(&refs);
    rr_set_free(&set);
    return rc;
}
