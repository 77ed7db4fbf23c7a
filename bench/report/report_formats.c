// bench/report/report_formats.c — the report's tables and findings as CSV and JSON files beside
// REPORT.md (files and columns in report_formats.h; CSV and JSON pieces from export.h).
#include "report_formats.h"
#include "gnuplot.h"
#include "../results/export.h"
#include "../../core/safe_file.h"
#include "../../core/common.h"
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int report_parse_formats(const char *list, int *formats, char *err, size_t errlen) {
    *formats = REPORT_MD;
    char *copy = xstrdup(list, "formats"), *save = NULL;
    int rc = 0;
    for (char *w = strtok_r(copy, ",", &save); w && rc == 0; w = strtok_r(NULL, ",", &save)) {
        if (!strcmp(w, "md")) *formats |= REPORT_MD;
        else if (!strcmp(w, "csv")) *formats |= REPORT_CSV;
        else if (!strcmp(w, "json")) *formats |= REPORT_JSON;
        else if (!strcmp(w, "html")) *formats |= REPORT_HTML;
        else {
            snprintf(err, errlen, "--format: unknown format '%s' (valid: md, csv, json, html, comma-separated, e.g. --format md,csv,json)", w);
            rc = -1;
        }
    }
    if (rc == 0 && !list[0]) snprintf(err, errlen, "--format needs a list (valid: md, csv, json, html)"), rc = -1;
    free(copy);
    return rc;
}

int report_write_file(const char *path, const char *text, size_t n) {
    char err[8800];
    int rc = safe_write_file(path, text, n, err, sizeof err); // its own temporary name: two reports never share one
    if (rc != SAFE_OK) error_msg("cannot write %s", err);
    return rc;
}

const char *finding_verdict_word(finding_verdict v) {
    return v == FINDING_HOLDS ? "holds" : v == FINDING_FAILS ? "does not hold" : v == FINDING_INCONCLUSIVE ? "inconclusive" : "not measured";
}

// p: the claim's one-sided p; p_against: the opposite's; p_holm: the Holm-adjusted p of the side
// (holm_side: claim or against) the finding was judged on, in a family of holm_findings
// comparisons (the findings of its experiment).
static const char *const finding_columns[] = {"experiment", "kind", "claim", "ours", "paper", "verdict", "verdict_text",
                                              "p", "p_against", "p_holm", "holm_side", "holm_findings", "ci90_low", "ci90_high", "caveats"};
enum { NFCOLS = sizeof finding_columns / sizeof finding_columns[0] };

// The row's fields in finding_columns order: text, or a number (is_num; NaN: empty / null).
static void row_fields(const finding_row *r, const char *text[NFCOLS], double num[NFCOLS], int is_num[NFCOLS]) {
    const char *t[NFCOLS] = {r->experiment, r->kind, r->claim, r->ours, r->paper, finding_verdict_word(r->v), r->verdict,
                             NULL, NULL, NULL, r->holm_side ? r->holm_side : "", NULL, NULL, NULL, r->caveats};
    double v[NFCOLS] = {0, 0, 0, 0, 0, 0, 0, r->p_claim, r->p_against, r->p_holm, 0, isfinite(r->p_holm) ? r->holm_m : NAN, r->ci_lo, r->ci_hi, 0};
    for (int c = 0; c < NFCOLS; c++) text[c] = t[c], num[c] = v[c], is_num[c] = t[c] == NULL;
}

int findings_rows_csv(const finding_row *rows, int n, FILE *out) {
    for (int c = 0; c < NFCOLS; c++) fprintf(out, "%s%s", c ? "," : "", finding_columns[c]);
    fputs("\r\n", out);
    for (int i = 0; i < n; i++) {
        const char *text[NFCOLS];
        double num[NFCOLS];
        int is_num[NFCOLS];
        row_fields(&rows[i], text, num, is_num);
        for (int c = 0; c < NFCOLS; c++) {
            if (c) fputc(',', out);
            char buf[40];
            if (is_num[c]) export_number(num[c], buf, sizeof buf), fputs(buf, out);
            else export_csv_field(out, text[c]);
        }
        fputs("\r\n", out);
    }
    return ferror(out) ? -1 : 0;
}

int findings_rows_json(const finding_row *rows, int n, FILE *out) {
    fputc('[', out);
    for (int i = 0; i < n; i++) {
        const char *text[NFCOLS];
        double num[NFCOLS];
        int is_num[NFCOLS];
        row_fields(&rows[i], text, num, is_num);
        fputs(i ? ",\n {" : "\n {", out);
        for (int c = 0; c < NFCOLS; c++) {
            fprintf(out, "%s\"%s\": ", c ? ", " : "", finding_columns[c]);
            char buf[40];
            if (is_num[c]) export_number(num[c], buf, sizeof buf), fputs(buf[0] ? buf : "null", out);
            else export_json_string(out, text[c]);
        }
        fputc('}', out);
    }
    fputs(n ? "\n]\n" : "]\n", out);
    return ferror(out) ? -1 : 0;
}

// ---- the files --------------------------------------------------------------------------
typedef struct {
    char *s;
    size_t n;
    FILE *f;
} memfile;

static FILE *mem_open(memfile *m) {
    m->s = NULL, m->n = 0;
    m->f = open_memstream(&m->s, &m->n);
    if (!m->f) die_fail("report: cannot open a memory stream: %s", strerror(errno));
    return m->f;
}

// Closes m and writes it to dir/name. 0, or the exit code (printed: report_write_file).
static int mem_write(memfile *m, int write_rc, const char *dir, const char *name) {
    if (fclose(m->f) != 0 || write_rc != 0) die_fail("report: cannot build %s: %s", name, strerror(errno));
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = xmalloc(len, "path");
    snprintf(path, len, "%s/%s", dir, name);
    int rc = report_write_file(path, m->s, m->n);
    free(path), free(m->s);
    return rc;
}

// dir/name removed when it is a regular file (never a link or anything else), said on stderr: a
// file of an earlier report this one does not rewrite would sit beside REPORT.md with old numbers.
static void remove_stale(const char *dir, const char *name, const char *why) {
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) return;
    if (unlink(path) == 0) fprintf(stderr, "posbench: report: removed %s (%s)\n", vis(path), why);
    else warn_msg("cannot remove %s (%s): %s", path, why, strerror(errno));
}

// The outputs of formats not asked for this time, and tables/<name>.csv of tables this report no
// longer has: removed (tables/ too when it is left empty).
static void remove_stale_outputs(const char *dir, int formats, report_table *const *tables, int ntables) {
    if (!(formats & REPORT_JSON)) {
        remove_stale(dir, "tables.json", "from an earlier --format json");
        remove_stale(dir, "findings.json", "from an earlier --format json");
    }
    if (!(formats & REPORT_CSV)) remove_stale(dir, "findings.csv", "from an earlier --format csv");
    char tdir[4200];
    snprintf(tdir, sizeof tdir, "%s/tables", dir);
    DIR *d = opendir(tdir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".csv")) continue;
        int current = 0;
        for (int t = 0; (formats & REPORT_CSV) && t < ntables && !current; t++)
            current = strlen(tables[t]->name) == len - 4 && !strncmp(tables[t]->name, e->d_name, len - 4);
        if (!current) remove_stale(tdir, e->d_name, formats & REPORT_CSV ? "a table this report no longer has" : "from an earlier --format csv");
    }
    closedir(d);
    if (!(formats & REPORT_CSV)) rmdir(tdir); // only when empty: anything else there stays
}

int report_write_formats(const char *dir, int formats, report_table *const *tables, int ntables, const finding_row *rows,
                         int nrows) {
    int rc = 0;
    memfile m;
    remove_stale_outputs(dir, formats, tables, ntables);
    if (formats & REPORT_CSV) {
        size_t len = strlen(dir) + 8;
        char *tdir = xmalloc(len, "path");
        snprintf(tdir, len, "%s/tables", dir);
        if (gp_make_dir(tdir) != 0) rc = EXIT_RUN_FAILED;
        for (int t = 0; t < ntables && rc == 0; t++) {
            char name[800];
            snprintf(name, sizeof name, "%s.csv", tables[t]->name);
            int wrc = rt_csv(tables[t], mem_open(&m));
            rc = mem_write(&m, wrc, tdir, name);
        }
        free(tdir);
        if (rc == 0) {
            int wrc = findings_rows_csv(rows, nrows, mem_open(&m));
            rc = mem_write(&m, wrc, dir, "findings.csv");
        }
    }
    if ((formats & REPORT_JSON) && rc == 0) {
        FILE *f = mem_open(&m);
        int wrc = 0;
        fputc('[', f);
        for (int t = 0; t < ntables && wrc == 0; t++) {
            fputs(t ? ",\n" : "\n", f);
            wrc = rt_json(tables[t], f);
        }
        fputs(ntables ? "\n]\n" : "]\n", f);
        rc = mem_write(&m, wrc, dir, "tables.json");
        if (rc == 0) {
            wrc = findings_rows_json(rows, nrows, mem_open(&m));
            rc = mem_write(&m, wrc, dir, "findings.json");
        }
    }
    return rc;
}
