// bench/report/findings_diff.c — the "changed since OLD.json" section of `posbench report --diff`
// (rules in findings_diff.h): reading an earlier findings.json and comparing it with this
// report's finding rows.
#include "findings_diff.h"
#include "report_formats.h"
#include "report_table.h"
#include "../experiment/yaml_tree.h"
#include "../../core/common.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

// ---- reading OLD.json ---------------------------------------------------------------------
static char *text_of(const ynode *item, const char *key) {
    const ynode *v = ytree_get(item, key, NULL);
    return xstrdup(v && v->kind == YT_SCALAR && !ytree_is_null(v) ? v->text : "", "findings diff");
}

static double number_of(const ynode *item, const char *key) {
    const ynode *v = ytree_get(item, key, NULL);
    if (!v || v->kind != YT_SCALAR || v->quoted || ytree_is_null(v)) return NAN;
    char *end;
    double x = strtod(v->text, &end);
    return end != v->text && !*end ? x : NAN;
}

int findings_diff_load(const char *path, findings_old *old, char *err, size_t errlen) {
    memset(old, 0, sizeof *old);
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "--diff %s: cannot read: %s (give the findings.json an earlier `posbench report --format json` wrote)",
                 path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "--diff %s: not a regular file (give the findings.json an earlier `posbench report --format json` wrote)", path);
        return -1;
    }
    ynode *root = NULL;
    char yerr[1200];
    if (ytree_load(path, &root, yerr, sizeof yerr) != 0) {
        snprintf(err, errlen, "--diff: not a findings file (not JSON): %s", yerr);
        return -1;
    }
    static const char *const needed[] = {"experiment", "claim", "verdict"};
    const char *why = NULL;
    int bad_item = -1;
    if (!root || root->kind != YT_SEQ) why = "its top level is not an array of findings";
    for (int i = 0; !why && i < root->n; i++) {
        const ynode *item = root->val[i];
        if (item->kind != YT_MAP) why = "an item is not an object", bad_item = i;
        for (int k = 0; !why && k < 3; k++) {
            const ynode *v = ytree_get(item, needed[k], NULL);
            if (!v || v->kind != YT_SCALAR || !v->quoted) why = needed[k], bad_item = i;
        }
    }
    if (why) {
        if (bad_item >= 0 && root->val[bad_item]->kind == YT_MAP)
            snprintf(err, errlen, "--diff %s:%d: not a findings file: finding %d has no \"%s\" string (a findings.json "
                     "has experiment, claim and verdict in every object)", path, root->val[bad_item]->line, bad_item + 1, why);
        else
            snprintf(err, errlen, "--diff %s: not a findings file: %s (a findings.json is an array of objects with "
                     "experiment, claim and verdict)", path, why);
        ytree_free(root);
        return -1;
    }
    int n = root->n;
    old->n = n;
    old->experiment = xcalloc((size_t)n + 1, sizeof(char *), "findings diff");
    old->claim = xcalloc((size_t)n + 1, sizeof(char *), "findings diff");
    old->verdict = xcalloc((size_t)n + 1, sizeof(char *), "findings diff");
    old->verdict_text = xcalloc((size_t)n + 1, sizeof(char *), "findings diff");
    old->ours = xcalloc((size_t)n + 1, sizeof(char *), "findings diff");
    old->p = xcalloc((size_t)n + 1, sizeof(double), "findings diff");
    old->p_holm = xcalloc((size_t)n + 1, sizeof(double), "findings diff");
    old->ci_lo = xcalloc((size_t)n + 1, sizeof(double), "findings diff");
    old->ci_hi = xcalloc((size_t)n + 1, sizeof(double), "findings diff");
    for (int i = 0; i < n; i++) {
        const ynode *item = root->val[i];
        old->experiment[i] = text_of(item, "experiment");
        old->claim[i] = text_of(item, "claim");
        old->verdict[i] = text_of(item, "verdict");
        old->verdict_text[i] = text_of(item, "verdict_text");
        old->ours[i] = text_of(item, "ours");
        old->p[i] = number_of(item, "p");
        old->p_holm[i] = number_of(item, "p_holm");
        old->ci_lo[i] = number_of(item, "ci90_low");
        old->ci_hi[i] = number_of(item, "ci90_high");
    }
    ytree_free(root);
    return 0;
}

void findings_diff_free(findings_old *old) {
    for (int i = 0; i < old->n; i++)
        free(old->experiment[i]), free(old->claim[i]), free(old->verdict[i]), free(old->verdict_text[i]), free(old->ours[i]);
    free(old->experiment), free(old->claim), free(old->verdict), free(old->verdict_text), free(old->ours);
    free(old->p), free(old->p_holm), free(old->ci_lo), free(old->ci_hi);
    memset(old, 0, sizeof *old);
}

// ---- matching -----------------------------------------------------------------------------
// How many earlier old findings have the name (experiment, claim) of finding i.
static int occurrence_old(const findings_old *o, int i) {
    int k = 0;
    for (int j = 0; j < i; j++) k += !strcmp(o->experiment[j], o->experiment[i]) && !strcmp(o->claim[j], o->claim[i]);
    return k;
}

// For each old finding the index of its new row, -1 when it is gone.
static int *match_rows(const findings_old *o, const finding_row *rows, int nrows) {
    int *to = xcalloc((size_t)o->n + 1, sizeof(int), "findings diff");
    for (int i = 0; i < o->n; i++) {
        to[i] = -1;
        int want = occurrence_old(o, i);
        for (int j = 0, k = 0; j < nrows && to[i] < 0; j++)
            if (!strcmp(rows[j].experiment, o->experiment[i]) && !strcmp(rows[j].claim, o->claim[i]) && k++ == want) to[i] = j;
    }
    return to;
}

// ---- the section --------------------------------------------------------------------------
// Do a and b differ once printed with `decimals` digits (NaN: printed as absent)?
static int moved(double a, double b, int decimals) {
    if (isnan(a) || isnan(b)) return isnan(a) != isnan(b);
    double scale = pow(10.0, decimals);
    return llround(a * scale) != llround(b * scale);
}

// The verdict as it reads: the word, and the verdict text when it carries more than the word.
static void verdict_cell(FILE *f, const char *word, const char *text) {
    rt_md_cell(f, text[0] && strcmp(text, word) ? text : word);
}

// "p 0.011 → 0.048; Holm p ...; 90% CI low ..." for the numbers that moved at printed precision.
static void what_moved(char *out, size_t len, const findings_old *o, int i, const finding_row *r) {
    out[0] = '\0';
    const struct {
        const char *name;
        double was, now;
        int decimals;
    } nums[] = {{"p", o->p[i], r->p_claim, 3}, {"Holm p", o->p_holm[i], r->p_holm, 3},
                {"90% CI low", o->ci_lo[i], r->ci_lo, 2}, {"90% CI high", o->ci_hi[i], r->ci_hi, 2}};
    for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
        if (!moved(nums[k].was, nums[k].now, nums[k].decimals)) continue;
        size_t at = strlen(out);
        char was[32], now[32];
        if (isnan(nums[k].was)) snprintf(was, sizeof was, "—");
        else snprintf(was, sizeof was, "%.*f", nums[k].decimals, nums[k].was);
        if (isnan(nums[k].now)) snprintf(now, sizeof now, "—");
        else snprintf(now, sizeof now, "%.*f", nums[k].decimals, nums[k].now);
        snprintf(out + at, len - at, "%s%s %s → %s", at ? "; " : "", nums[k].name, was, now);
    }
    if (!out[0]) snprintf(out, len, "the printed numbers");
}

char *findings_diff_markdown(const findings_old *o, const char *label, const finding_row *rows, int nrows) {
    int *to = match_rows(o, rows, nrows);
    int *matched = xcalloc((size_t)nrows + 1, sizeof(int), "findings diff");
    int nmoved = 0, nremoved = 0, nadded = 0, nnumbers = 0;
    for (int i = 0; i < o->n; i++) {
        if (to[i] < 0) {
            nremoved++;
            continue;
        }
        const finding_row *r = &rows[to[i]];
        matched[to[i]] = 1;
        nmoved += strcmp(o->verdict[i], finding_verdict_word(r->v)) != 0;
        nnumbers += strcmp(o->ours[i], r->ours) != 0;
    }
    for (int j = 0; j < nrows; j++) nadded += !matched[j];

    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    if (!f) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    fprintf(f, "## Changed since `%s`\n\n", label);
    fprintf(f, "Generated by `posbench report --diff` from the findings an earlier `posbench report --format json` wrote: "
               "%d findings then, %d now; %d verdicts moved, %d findings added, %d removed, %d with other printed numbers.\n\n",
            o->n, nrows, nmoved, nadded, nremoved, nnumbers);
    if (!nmoved && !nadded && !nremoved && !nnumbers)
        fputs("Nothing changed: the same findings, verdicts and printed numbers.\n\n", f);
    if (nmoved) {
        fputs("**Verdicts that moved:**\n\n| experiment | claim | was | now |\n|---|---|---|---|\n", f);
        for (int i = 0; i < o->n; i++) {
            if (to[i] < 0) continue;
            const finding_row *r = &rows[to[i]];
            if (!strcmp(o->verdict[i], finding_verdict_word(r->v))) continue;
            fputc('|', f), rt_md_cell(f, o->experiment[i]), rt_md_cell(f, o->claim[i]);
            verdict_cell(f, o->verdict[i], o->verdict_text[i]), verdict_cell(f, finding_verdict_word(r->v), r->verdict);
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    if (nadded) {
        fputs("**Findings added:**\n\n| experiment | claim | verdict |\n|---|---|---|\n", f);
        for (int j = 0; j < nrows; j++) {
            if (matched[j]) continue;
            fputc('|', f), rt_md_cell(f, rows[j].experiment), rt_md_cell(f, rows[j].claim);
            verdict_cell(f, finding_verdict_word(rows[j].v), rows[j].verdict), fputc('\n', f);
        }
        fputc('\n', f);
    }
    if (nremoved) {
        fputs("**Findings removed:**\n\n| experiment | claim | verdict then |\n|---|---|---|\n", f);
        for (int i = 0; i < o->n; i++) {
            if (to[i] >= 0) continue;
            fputc('|', f), rt_md_cell(f, o->experiment[i]), rt_md_cell(f, o->claim[i]);
            verdict_cell(f, o->verdict[i], o->verdict_text[i]), fputc('\n', f);
        }
        fputc('\n', f);
    }
    if (nnumbers) {
        fputs("**Numbers that moved** (the printed `ours` cell differs):\n\n| experiment | claim | what moved | was | now |\n"
              "|---|---|---|---|---|\n",
              f);
        for (int i = 0; i < o->n; i++) {
            if (to[i] < 0 || !strcmp(o->ours[i], rows[to[i]].ours)) continue;
            char what[400];
            what_moved(what, sizeof what, o, i, &rows[to[i]]);
            fputc('|', f), rt_md_cell(f, o->experiment[i]), rt_md_cell(f, o->claim[i]), rt_md_cell(f, what);
            rt_md_cell(f, o->ours[i]), rt_md_cell(f, rows[to[i]].ours), fputc('\n', f);
        }
        fputc('\n', f);
    }
    if (fclose(f) != 0) die_fail("report: cannot build the --diff section");
    free(to), free(matched);
    return s;
}
