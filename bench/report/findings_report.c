// bench/report/findings_report.c — a report's findings as one family: evaluate every finding of
// every experiment.yaml below the report's directory (findings.c), apply Holm's correction over
// all of them (findings_holm), and render one Markdown section per experiment, its caveats
// (caveats.h) at the head of its table (output format in findings.h).
#include "findings.h"
#include "caveats.h"
#include "report_versions.h"
#include "findings_tsv.h"
#include "significance.h"
#include "../../core/common.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void findings_holm(finding_result *r, int n) {
    double *p = xcalloc((size_t)n + 1, sizeof *p, "holm"), *adj = xcalloc((size_t)n + 1, sizeof *adj, "holm");
    for (int i = 0; i < n; i++) p[i] = r[i].p_claim;
    int m = sig_holm(p, n, adj);
    for (int i = 0; i < n; i++) r[i].p_claim_holm = adj[i], r[i].holm_m = m;
    for (int i = 0; i < n; i++) p[i] = r[i].v == FINDING_FAILS ? r[i].p_against : NAN; // "significant against" claims too
    int m_against = sig_holm(p, n, adj);
    for (int i = 0; i < n; i++) {
        r[i].p_against_holm = adj[i];
        if (r[i].v == FINDING_HOLDS && isfinite(r[i].p_claim_holm) && r[i].p_claim_holm >= FINDING_ALPHA) {
            r[i].v = FINDING_INCONCLUSIVE;
            snprintf(r[i].why, sizeof r[i].why, "not significant after Holm's correction over %d findings", m);
        } else if (r[i].v == FINDING_FAILS && isfinite(adj[i]) && adj[i] >= FINDING_ALPHA) {
            r[i].v = FINDING_INCONCLUSIVE;
            snprintf(r[i].why, sizeof r[i].why, "against the claim, not significant after Holm's correction over %d findings", m_against);
        }
    }
    free(p), free(adj);
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
}

// The ours cell: the evaluation's text, then the finding's p and its Holm-adjusted value.
static void ours_text(const char *ours, const finding_result *r, char *cell, size_t len) {
    snprintf(cell, len, "%s", ours);
    if (isfinite(r->p_claim)) { // the finding's p (the largest of its parts) and its Holm-adjusted value
        char raw[32], adj[32];
        snprintf(raw, sizeof raw, r->p_claim < 0.001 ? "< 0.001" : "= %.3f", r->p_claim);
        snprintf(adj, sizeof adj, r->p_claim_holm < 0.001 ? "< 0.001" : "= %.3f", r->p_claim_holm);
        snprintf(cell + strlen(cell), len - strlen(cell), "; claim p %s, Holm p %s (%d findings)", raw, adj, r->holm_m);
    }
}

static void render_row(FILE *md, const finding *f, const char *ours, const finding_result *r) {
    char verdict[1100], cell[8400];
    verdict_text(r, verdict, sizeof verdict);
    ours_text(ours, r, cell, sizeof cell);
    fputc('|', md);
    md_cell(md, f->claim), md_cell(md, cell), md_cell(md, f->paper), md_cell(md, verdict);
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
    char verdict[1100], cell[8400];
    verdict_text(r, verdict, sizeof verdict);
    ours_text(ours, r, cell, sizeof cell);
    finding_row row = {0};
    row.experiment = xstrdup(experiment, "findings");
    row.kind = xstrdup(finding_kinds[f->kind].name, "findings");
    row.claim = xstrdup(f->claim, "findings");
    row.ours = xstrdup(cell, "findings");
    row.paper = xstrdup(f->paper, "findings");
    row.verdict = xstrdup(verdict, "findings");
    row.v = r->v;
    row.p_claim = r->p_claim, row.p_claim_holm = r->p_claim_holm, row.holm_m = r->holm_m;
    single_ci(ours, &row.ci_lo, &row.ci_hi);
    row.caveats = caveats_joined(experiment);
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
    // every finding of the report is one family for Holm's correction
    finding_result *res = xcalloc((size_t)nf + 1, sizeof *res, "findings");
    char **ours = xcalloc((size_t)nf + 1, sizeof *ours, "findings");
    for (int l = 0, k = 0; rc == 0 && l < nl; l++)
        for (int i = 0; i < lists[l].n; i++, k++) {
            ours[k] = xmalloc(8192, "findings");
            res[k] = findings_eval_full(set, lists[l].experiment, &lists[l].items[i], ours[k], 8192);
        }
    if (rc == 0) findings_holm(res, nf);
    if (rc == 0 && rows) {
        *rows = xcalloc((size_t)nf + 1, sizeof **rows, "findings");
        for (int l = 0, k = 0; l < nl; l++)
            for (int i = 0; i < lists[l].n; i++, k++) (*rows)[k] = make_row(lists[l].experiment, &lists[l].items[i], ours[k], &res[k]);
        *nrows = nf;
    }
    for (int l = 0, k = 0; rc == 0 && l < nl; l++) {
        if (lists[l].n == 0) continue;
        fprintf(out, "## Findings (experiment `%s`)\n\n", lists[l].experiment);
        if (source[l])
            fprintf(out, "Findings read from `%s`: this results folder was written before `posbench run` kept a copy of the "
                         "experiment file beside the runs (no experiment.yaml there), so the experiment's caveats are not "
                         "known. Copying the experiment file there as experiment.yaml replaces this list with its findings.\n\n",
                    source[l]);
        caveats_fprint(out, lists[l].experiment, CAVEATS_FINDINGS); // bench/report/caveats.h
        char *note = report_earlier_note(set, lists[l].experiment); // runs of an earlier version: not used
        fputs(note, out);
        free(note);
        fprintf(out, "| claim | ours | paper | verdict |\n|---|---|---|---|\n");
        for (int i = 0; i < lists[l].n; i++, k++) render_row(out, &lists[l].items[i], ours[k], &res[k]);
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
