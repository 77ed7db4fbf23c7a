// bench/report/findings_report.c — a report's findings: evaluate every finding of every
// experiment.yaml below the report's directory (findings.c), apply Holm's correction per
// experiment (findings_holm: one family per experiment, both directions, each comparison once),
// and render one Markdown section per experiment, its caveats (caveats.h) at the head of its
// table (output format in findings.h).
#include "findings.h"
#include "caveats.h"
#include "report_versions.h"
#include "findings_tsv.h"
#include "report_table.h"
#include "significance.h"
#include "../text/markdown_text.h"
#include "../../core/common.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void findings_holm(finding_result *r, const char *const *keys, int n, const char *family) {
    double *p = xcalloc((size_t)n + 1, sizeof *p, "holm"), *adj = xcalloc((size_t)n + 1, sizeof *adj, "holm");
    int *first = xcalloc((size_t)n + 1, sizeof *first, "holm"); // the finding whose p stands for this comparison
    for (int i = 0; i < n; i++) {
        r[i].holm_against = r[i].v == FINDING_FAILS && isfinite(r[i].p_against);
        first[i] = i;
        for (int k = 0; keys && k < i && first[i] == i; k++)
            if (keys[k] && keys[i] && !strcmp(keys[k], keys[i])) first[i] = k;
        p[i] = first[i] != i ? NAN : r[i].holm_against ? r[i].p_against : r[i].p_claim; // both sides, one family
    }
    int m = sig_holm(p, n, adj);
    for (int i = 0; i < n; i++) {
        r[i].p_holm = adj[first[i]], r[i].holm_m = m;
        if (!isfinite(r[i].p_holm) || r[i].p_holm < FINDING_ALPHA) continue;
        if (r[i].v == FINDING_HOLDS) {
            r[i].v = FINDING_INCONCLUSIVE;
            snprintf(r[i].why, sizeof r[i].why, "not significant after Holm's correction over %d comparisons of experiment `%s`", m, family);
        } else if (r[i].holm_against) {
            r[i].v = FINDING_INCONCLUSIVE;
            snprintf(r[i].why, sizeof r[i].why, "against the claim, not significant after Holm's correction over %d comparisons of experiment `%s`",
                     m, family);
        }
    }
    free(p), free(adj), free(first);
}

// A match key without its own stage's prefix ("finetune.pe.kind" on stage finetune selects as
// "pe.kind": findings.c looks it up so).
static const char *own_key(const finding_sel *s, int i) {
    const char *k = s->match[i].key;
    size_t sl = strlen(s->stage);
    return !strncmp(k, s->stage, sl) && k[sl] == '.' ? k + sl + 1 : k;
}

// A selection as text: stage, sorted match pairs, metric, divisor.
static void sel_key(const finding_sel *s, char *out, size_t len) {
    if (!s->stage) return;
    int order[64], n = s->nmatch < 64 ? s->nmatch : 64;
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++) // match pairs in key order: their order in the file does not change the runs
        for (int j = i; j > 0 && strcmp(own_key(s, order[j - 1]), own_key(s, order[j])) > 0; j--) {
            int t = order[j - 1];
            order[j - 1] = order[j], order[j] = t;
        }
    snprintf(out + strlen(out), len - strlen(out), "%s{", s->stage);
    for (int i = 0; i < n; i++)
        snprintf(out + strlen(out), len - strlen(out), "%s=%s,", own_key(s, order[i]), s->match[order[i]].value);
    snprintf(out + strlen(out), len - strlen(out), "}%s/%s", s->metric, s->divide_by ? s->divide_by : "");
}

void finding_comparison_key(const finding *f, char *out, size_t len) {
    snprintf(out, len, "%s|", finding_kinds[f->kind].name);
    sel_key(&f->a, out, len);
    snprintf(out + strlen(out), len - strlen(out), "|");
    if (finding_kinds[f->kind].needs_b) sel_key(&f->b, out, len);
    snprintf(out + strlen(out), len - strlen(out), "|per=%s|x=%s|value=%.17g|margin=%.17g", f->per ? f->per : "",
             f->x ? f->x : "", finding_kinds[f->kind].needs_value ? f->value : 0.0,
             finding_kinds[f->kind].needs_margin ? f->margin : 0.0);
}

// ---- finding the files and rendering --------------------------------------------------

// One evaluated finding of the report.
typedef struct {
    const finding *f;
    char *ours; // malloc'd
} evaluated;

static void verdict_text(const finding_result *r, char *out, size_t len) {
    if (r->v == FINDING_HOLDS) snprintf(out, len, "holds");
    else if (r->v == FINDING_FAILS) snprintf(out, len, "does not hold (%s)", r->why);
    else if (r->v == FINDING_INCONCLUSIVE) snprintf(out, len, "inconclusive (%s)", r->why);
    else snprintf(out, len, "not measured (%s)", r->why);
    if (r->caveats[0]) snprintf(out + strlen(out), len - strlen(out), " [caveats: %s]", r->caveats);
}

static void p_text(double p, char *out, size_t len) {
    if (isnan(p)) snprintf(out, len, "— (no test)");
    else if (p < 0.001) snprintf(out, len, "< 0.001");
    else if (p > 0.999) snprintf(out, len, "> 0.999");
    else snprintf(out, len, "= %.3f", p);
}

// The ours cell: the evaluation's text, then both one-sided p's, the adjusted p of the side the
// finding was judged on and its family.
static void ours_text(const char *ours, const char *family, const finding_result *r, char *cell, size_t len) {
    snprintf(cell, len, "%s", ours);
    if (isfinite(r->p_holm)) { // judged on a p (a part without a test leaves the claim's p out)
        char pc[32], pa[32], ph[32];
        p_text(r->p_claim, pc, sizeof pc), p_text(r->p_against, pa, sizeof pa), p_text(r->p_holm, ph, sizeof ph);
        snprintf(cell + strlen(cell), len - strlen(cell), "; claim p %s, against p %s; Holm p %s (%s; %d comparisons, experiment `%s`)",
                 pc, pa, ph, r->holm_against ? "against" : "claim", r->holm_m, family);
    }
}

static void render_row(FILE *md, const char *family, const finding *f, const char *ours, const finding_result *r) {
    char verdict[1700], cell[8400];
    verdict_text(r, verdict, sizeof verdict);
    ours_text(ours, family, r, cell, sizeof cell);
    fputc('|', md);
    rt_md_cell(md, f->claim), rt_md_cell(md, cell), rt_md_cell(md, f->paper), rt_md_cell(md, verdict);
    fputc('\n', md);
}

// The interval of "..., 90% CI [+5.12, +11.62], ..." when ours states exactly one.
static void single_ci(const char *ours, double *lo, double *hi) {
    *lo = *hi = NAN;
    const char *at = strstr(ours, "90% CI [");
    if (!at || strstr(at + 1, "90% CI [")) return;
    char *end;
    double a = strtod(at + 8, &end);
    if (end == at + 8 || strncmp(end, ", ", 2)) return;
    const char *second = end + 2;
    double b = strtod(second, &end);
    if (end == second || *end != ']') return;
    *lo = a, *hi = b;
}

static finding_row make_row(const char *experiment, const finding *f, const char *ours, const finding_result *r) {
    char verdict[1700], cell[8400];
    verdict_text(r, verdict, sizeof verdict);
    ours_text(ours, experiment, r, cell, sizeof cell);
    finding_row row = {0};
    row.experiment = xstrdup(experiment, "findings");
    row.kind = xstrdup(finding_kinds[f->kind].name, "findings");
    row.claim = xstrdup(f->claim, "findings");
    row.ours = xstrdup(cell, "findings");
    row.paper = xstrdup(f->paper, "findings");
    row.verdict = xstrdup(verdict, "findings");
    row.v = r->v;
    row.p_claim = r->p_claim, row.p_against = r->p_against, row.p_holm = r->p_holm, row.holm_m = r->holm_m;
    row.holm_side = !isfinite(r->p_holm) ? NULL : r->holm_against ? "against" : "claim";
    single_ci(ours, &row.ci_lo, &row.ci_hi);
    char *exp_caveats = caveats_joined(experiment);
    size_t clen = strlen(exp_caveats) + strlen(r->caveats) + 8;
    row.caveats = xmalloc(clen, "findings");
    snprintf(row.caveats, clen, "%s%s%s", r->caveats, r->caveats[0] && exp_caveats[0] ? "; " : "", exp_caveats);
    free(exp_caveats);
    return row;
}

void finding_rows_free(finding_row *rows, int n) {
    for (int i = 0; i < n; i++) {
        finding_row *r = &rows[i];
        free(r->experiment), free(r->kind), free(r->claim), free(r->ours), free(r->paper), free(r->verdict), free(r->caveats);
    }
    free(rows);
}

// Appends to *tsv the findings.tsv files below dir that have no experiment.yaml beside them (a
// results folder from before experiment files were copied: findings_tsv.h).
static int older_findings(const char *dir, char ***tsv) {
    char **paths = NULL, scan_err[1024];
    int n = 0, kept = 0;
    if (rr_find_files(dir, "findings.tsv", &paths, &n, scan_err, sizeof scan_err) < 0) n = 0; // rr_scan read dir already
    for (int i = 0; i < n; i++) {
        size_t len = strlen(paths[i]) + 32;
        char *yaml = xmalloc(len, "path");
        snprintf(yaml, len, "%.*sexperiment.yaml", (int)(strrchr(paths[i], '/') + 1 - paths[i]), paths[i]);
        if (access(yaml, F_OK) == 0) free(paths[i]);
        else paths[kept++] = paths[i];
        free(yaml);
    }
    *tsv = paths;
    return kept;
}

// Holm's correction per experiment: the findings of every list with the same experiment name
// (res in list order, nf in all) are one family, whatever else the report holds.
static void holm_per_experiment(const findings_list *lists, int nl, finding_result *res, int nf) {
    int *start = xcalloc((size_t)nl + 1, sizeof *start, "holm"), *done = xcalloc((size_t)nl + 1, sizeof *done, "holm");
    for (int l = 1; l < nl; l++) start[l] = start[l - 1] + lists[l - 1].n;
    finding_result *fam = xcalloc((size_t)nf + 1, sizeof *fam, "holm");
    char **keys = xcalloc((size_t)nf + 1, sizeof *keys, "holm");
    for (int l = 0; l < nl; l++) {
        if (done[l]) continue;
        int m = 0;
        for (int q = l; q < nl; q++) {
            if (strcmp(lists[q].experiment, lists[l].experiment)) continue;
            done[q] = 1;
            for (int i = 0; i < lists[q].n; i++, m++) {
                fam[m] = res[start[q] + i];
                keys[m] = xmalloc(4096, "holm");
                finding_comparison_key(&lists[q].items[i], keys[m], 4096);
            }
        }
        findings_holm(fam, (const char *const *)keys, m, lists[l].experiment);
        m = 0;
        for (int q = l; q < nl; q++) {
            if (strcmp(lists[q].experiment, lists[l].experiment)) continue;
            for (int i = 0; i < lists[q].n; i++, m++) res[start[q] + i] = fam[m], free(keys[m]);
        }
    }
    free(start), free(done), free(fam), free(keys);
}

int findings_report(const rr_set *set, const char *dir, char **md, char *err, size_t errlen) {
    return findings_report_rows(set, dir, md, NULL, NULL, err, errlen);
}

int findings_report_rows(const rr_set *set, const char *dir, char **md, finding_row **rows, int *nrows, char *err,
                         size_t errlen) {
    *md = NULL;
    if (rows) *rows = NULL, *nrows = 0;
    struct { char **paths; int n; } pl = {0};
    char scan_err[1024], **tsv = NULL;
    if (rr_find_files(dir, "experiment.yaml", &pl.paths, &pl.n, scan_err, sizeof scan_err) < 0) pl.n = 0; // rr_scan read dir already
    int ntsv = older_findings(dir, &tsv);
    size_t mdlen = 0;
    FILE *out = open_memstream(md, &mdlen);
    if (!out) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    int rc = 0, nl = 0, nf = 0;
    findings_list *lists = xcalloc((size_t)(pl.n + ntsv) + 1, sizeof *lists, "findings");
    const char **source = xcalloc((size_t)(pl.n + ntsv) + 1, sizeof *source, "findings"); // findings.tsv, or NULL
    for (int i = 0; i < pl.n + ntsv && rc == 0; i++) {
        if (i < pl.n) rc = findings_load(pl.paths[i], &lists[nl], err, errlen);
        else rc = findings_tsv_load(tsv[i - pl.n], &lists[nl], err, errlen), source[nl] = tsv[i - pl.n];
        if (rc == 0) nf += lists[nl++].n;
    }
    // the findings of one experiment are one family for Holm's correction (holm_per_experiment)
    finding_result *res = xcalloc((size_t)nf + 1, sizeof *res, "findings");
    char **ours = xcalloc((size_t)nf + 1, sizeof *ours, "findings");
    for (int l = 0, k = 0; rc == 0 && l < nl; l++)
        for (int i = 0; i < lists[l].n; i++, k++) {
            ours[k] = xmalloc(8192, "findings");
            res[k] = findings_eval_full(set, lists[l].experiment, &lists[l].items[i], ours[k], 8192);
        }
    if (rc == 0) holm_per_experiment(lists, nl, res, nf);
    if (rc == 0 && rows) {
        *rows = xcalloc((size_t)nf + 1, sizeof **rows, "findings");
        for (int l = 0, k = 0; l < nl; l++)
            for (int i = 0; i < lists[l].n; i++, k++) (*rows)[k] = make_row(lists[l].experiment, &lists[l].items[i], ours[k], &res[k]);
        *nrows = nf;
    }
    for (int l = 0, k = 0; rc == 0 && l < nl; l++) {
        if (lists[l].n == 0) continue;
        fputs("## Findings (experiment `", out), md_code(out, lists[l].experiment), fputs("`)\n\n", out);
        if (source[l])
            fputs("Findings read from `", out), md_code(out, source[l]), fprintf(out, "`: this results folder was written before `posbench run` kept a copy of the "
                         "experiment file beside the runs (no experiment.yaml there), so the experiment's caveats are not "
                         "known. Copying the experiment file there as experiment.yaml replaces this list with its findings.\n\n");
        caveats_fprint(out, lists[l].experiment, CAVEATS_FINDINGS); // bench/report/caveats.h
        char *note = report_earlier_note(set, lists[l].experiment); // runs of an earlier version: not used
        fputs(note, out);
        free(note);
        fprintf(out, "| claim | ours | paper | verdict |\n|---|---|---|---|\n");
        for (int i = 0; i < lists[l].n; i++, k++) render_row(out, lists[l].experiment, &lists[l].items[i], ours[k], &res[k]);
        fputc('\n', out);
    }
    for (int k = 0; k < nf; k++) free(ours[k]);
    for (int l = 0; l < nl; l++) findings_list_free(&lists[l]);
    free(ours), free(res), free(lists), free(source);
    for (int i = 0; i < pl.n; i++) free(pl.paths[i]);
    for (int i = 0; i < ntsv; i++) free(tsv[i]);
    free(pl.paths), free(tsv);
    if (fclose(out) != 0) die_fail("report: cannot build the findings section: %s", strerror(errno));
    if (rc != 0) {
        free(*md);
        *md = NULL;
    }
    return rc;
}
